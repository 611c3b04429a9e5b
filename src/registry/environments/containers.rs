//! The devcontainer lifecycle as the registry keeps it: `detected` →
//! `building` → `running` ⇄ `stopped`, or `failed` with the error (a failed
//! build is retried by the next start). States, container ids and config
//! hashes are rows (`container_states`), so they survive restarts; the
//! containers themselves are `devcontainer`'s.
//!
//! Nothing is built or started — no tool is even probed — unless the
//! configuration passes `devcontainer::Checked` (what is refused even when
//! trusted) and its person trusted it (`trust`); both are checked again
//! under the lock, where the step runs exactly what was checked.
//!
//! Like a sandbox operation, a lifecycle step cannot join a SQLite
//! transaction: the row says `building` (committed) before the engine is
//! asked, and the outcome is written after. Steps on one container are
//! serialised across processes by `<home>/containers/<id>.lock`, so two
//! starts never build two containers.

use crate::devcontainer::{self, Checked, Container, DevcontainerError, UpRequest};
use crate::model::ContainerState;
use crate::model::{Resource, ResourceKey};
use crate::registry::EnvironmentsError;
use crate::registry::TrustState;
use crate::registry::devcontainer_config::container_failed;
use crate::registry::lookup::{find_row, load_one};
use crate::registry::{Registry, RegistryError};
use crate::store::ContainerStateRow;
use serde::Serialize;

/// A container resource's lifecycle, as `resource show`, `start`, `stop`
/// and `rebuild` give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContainerView {
    pub state: ContainerState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// `devcontainer-cli`, `docker` or `podman`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The configuration digest the container was built from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub built_from: Option<String>,
    /// The configuration's digest now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_hash: Option<String>,
    /// Built from an older configuration: `rebuild` brings it up to date.
    pub out_of_date: bool,
    /// Where it stands for the registry's person (absent when the
    /// configuration is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustState>,
    /// Why activation is refused even if trusted (the configuration
    /// cannot be read, or names what is never allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

impl Registry {
    /// Remove (`rm -f`: stopping it) the container of each devcontainer
    /// that removing `key` would take, so that the removal orphans none:
    /// what `agents resource remove --force` does first. Answers the
    /// devcontainers whose container went, each with the container's id.
    pub(crate) fn remove_containers_for_removal(
        &mut self,
        key: &ResourceKey,
    ) -> Result<Vec<(String, String)>, RegistryError> {
        let going = self.removal_takes(key, |r, removed| {
            let held = crate::registry::lookup::going::containers_on(r, removed)?;
            Ok(held
                .into_iter()
                .map(|(res, _)| res.clone())
                .collect::<Vec<_>>())
        })?;
        let mut gone = Vec::new();
        for resource in going {
            let runtime = self.container_runtime(&resource, "remove")?;
            let _lock = self.container_lock(&resource)?;
            // Read under the lock: another process may have removed it.
            let id = resource.resource_id;
            let Some(row) = self.store.read(|r| r.container_state(id))? else {
                continue;
            };
            let Some(container) = row.container_id.clone() else {
                continue;
            };
            match runtime.remove(&container) {
                Ok(()) | Err(DevcontainerError::NoSuchContainer { .. }) => {}
                Err(source) => return Err(container_failed(&resource, "remove", source)),
            }
            self.put_container_state(ContainerStateRow {
                state: ContainerState::Detected,
                container_id: None,
                last_error: None,
                ..row
            })?;
            gone.push((resource.label(), container));
        }
        Ok(gone)
    }

    /// One build-or-start step: the configuration checked and its trust
    /// required (before any tool runs, and again under the lock), then
    /// `building` recorded, the outcome after (`running`, or `failed`
    /// with the error).
    pub(super) fn lifecycle(
        &mut self,
        key: &ResourceKey,
        operation: &'static str,
        step: impl FnOnce(
            &devcontainer::Runtime,
            &UpRequest,
            &Checked,
            Option<&ContainerStateRow>,
        ) -> Result<Option<Container>, DevcontainerError>,
    ) -> Result<ContainerView, RegistryError> {
        self.check_key_in_roots(key, "a container")?;
        let (resource, _) = self.devcontainer(key, operation)?;
        let (_, checked) = self.checked_config(&resource, operation)?;
        self.require_trust(&resource, &checked, operation)?;
        let runtime = self.container_runtime(&resource, operation)?;
        let _lock = self.container_lock(&resource)?;
        // Read again under the lock: another process may have started it,
        // or the configuration changed while this one waited.
        let (resource, row) = self.devcontainer(key, operation)?;
        let (req, checked) = self.checked_config(&resource, operation)?;
        self.require_trust(&resource, &checked, operation)?;
        let building = ContainerStateRow {
            resource: resource.resource_id,
            state: ContainerState::Building,
            container_id: row.as_ref().and_then(|r| r.container_id.clone()),
            tool: Some(runtime.tool().to_string()),
            config_hash: row.as_ref().and_then(|r| r.config_hash.clone()),
            last_error: None,
            updated_at: self.now(),
        };
        if row
            .as_ref()
            .is_none_or(|r| r.state != ContainerState::Running)
        {
            self.store.write(|w| w.put_container_state(&building))?;
        }
        match step(&runtime, &req, &checked, row.as_ref()) {
            Ok(None) => self.view(&resource, row.as_ref()),
            Ok(Some(container)) => {
                let running = self.put_container_state(ContainerStateRow {
                    state: ContainerState::Running,
                    container_id: Some(container.id),
                    tool: Some(container.tool.to_string()),
                    config_hash: Some(checked.config_hash.clone()),
                    ..building
                })?;
                self.view(&resource, Some(&running))
            }
            Err(source) => {
                let err = container_failed(&resource, operation, source);
                self.put_container_state(ContainerStateRow {
                    state: ContainerState::Failed,
                    last_error: Some(crate::text::excerpt(&err.to_string(), 3000).into_owned()),
                    ..building
                })?;
                Err(err)
            }
        }
    }

    /// Record `row` as its container's state, stamped now.
    pub(super) fn put_container_state(
        &mut self,
        row: ContainerStateRow,
    ) -> Result<ContainerStateRow, RegistryError> {
        let row = ContainerStateRow {
            updated_at: self.now(),
            ..row
        };
        self.store.write(|w| w.put_container_state(&row))?;
        Ok(row)
    }

    /// The resource, if it is a devcontainer, and its recorded state.
    pub(super) fn devcontainer(
        &self,
        key: &ResourceKey,
        operation: &'static str,
    ) -> Result<(Resource, Option<ContainerStateRow>), RegistryError> {
        match self.lookup_devcontainer(key)? {
            Lookup::Devcontainer(resource, row) => Ok((resource, row)),
            Lookup::Other(resource) => Err(EnvironmentsError::ContainerRefused {
                resource: resource.label(),
                operation,
                reason: format!(
                    "it is a {}; the host builds and starts devcontainer-instance resources \
                     (a container-instance is an environment someone else runs)",
                    resource.resource_type_name
                ),
            }
            .into()),
        }
    }

    /// The resource `key` names, and whether it is a devcontainer (with its
    /// recorded state).
    pub(super) fn lookup_devcontainer(&self, key: &ResourceKey) -> Result<Lookup, RegistryError> {
        let cache = &self.types;
        self.store.read(|r| {
            let types = cache.get(r)?;
            let resource = load_one(r, &types, find_row(r, key)?)?;
            let ty = types.resolve(&resource.resource_type_name)?;
            if !ty.is_a(&crate::registry::devcontainer_type()) {
                return Ok(Lookup::Other(resource));
            }
            let row = r.container_state(resource.resource_id)?;
            Ok(Lookup::Devcontainer(resource, row))
        })
    }

    pub(super) fn container_runtime(
        &self,
        resource: &Resource,
        operation: &'static str,
    ) -> Result<devcontainer::Runtime, RegistryError> {
        let path = self.container_tools.search_path.clone().unwrap_or_default();
        devcontainer::detect_with(
            &path,
            &self.container_tools.env,
            std::time::Duration::from_secs(20),
        )
        .runtime()
        .map_err(|source| container_failed(resource, operation, source))
    }

    pub(super) fn container_lock(
        &self,
        resource: &Resource,
    ) -> Result<std::fs::File, RegistryError> {
        let dir = self.needs_home()?.join("containers");
        let path = dir.join(format!("{}.lock", resource.resource_id));
        crate::registry::sandboxes::lock_file(&dir, &path)
    }
}

/// A resource looked up as a devcontainer.
pub(super) enum Lookup {
    Devcontainer(Resource, Option<ContainerStateRow>),
    Other(Resource),
}

impl Registry {
    /// The lifecycle view of `resource`: its recorded state, and what its
    /// configuration is now (hash, trust, or why it is refused).
    pub(crate) fn view(
        &self,
        resource: &Resource,
        row: Option<&ContainerStateRow>,
    ) -> Result<ContainerView, RegistryError> {
        let (now, trust, refused) = match self.checked_config(resource, "show") {
            Ok((_, checked)) => {
                let trust = self.trust_state(resource, &checked)?;
                (Some(checked.config_hash), Some(trust), None)
            }
            Err(RegistryError::Environments(EnvironmentsError::ContainerFailed {
                source, ..
            })) => (None, None, Some(source.to_string())),
            Err(RegistryError::Environments(EnvironmentsError::ContainerRefused {
                reason,
                ..
            })) => (None, None, Some(reason)),
            Err(other) => return Err(other),
        };
        let built_from = row.and_then(|r| r.config_hash.clone());
        let has_container = row.is_some_and(|r| r.container_id.is_some());
        Ok(ContainerView {
            state: row.map_or(ContainerState::Detected, |r| r.state),
            container_id: row.and_then(|r| r.container_id.clone()),
            tool: row.and_then(|r| r.tool.clone()),
            out_of_date: has_container
                && built_from.is_some()
                && now.is_some()
                && built_from != now,
            built_from,
            config_hash: now,
            trust,
            refused,
            last_error: row.and_then(|r| r.last_error.clone()),
            updated_at: row.map(|r| r.updated_at.clone()),
        })
    }
}
