//! The devcontainer lifecycle as the registry keeps it: `detected` →
//! `building` → `running` ⇄ `stopped`, or `failed` with the error (a failed
//! build is retried by the next start). States, container ids and config
//! hashes are rows (`container_states`), so they survive restarts; the
//! containers themselves are `devcontainer`'s.
//!
//! Like a sandbox operation, a lifecycle step cannot join a SQLite
//! transaction: the row says `building` (committed) before the engine is
//! asked, and the outcome is written after. Steps on one container are
//! serialised across processes by `<home>/containers/<id>.lock`, so two
//! starts never build two containers.

use super::environments::DEVCONTAINER_TYPE;
use super::lookup::{find_row, load_one};
use super::{Registry, RegistryError};
use crate::devcontainer::{self, Container, DevcontainerError, UpRequest};
use crate::model::{Resource, ResourceKey, TypeName};
use crate::store::{ContainerState, ContainerStateRow};
use serde::Serialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How the registry finds the container tools: the `PATH` to look on and
/// the variables the engine may need (`devcontainer::ENGINE_ENV_VARS`).
/// The library reads no environment: the CLI hands its own in.
#[derive(Debug, Clone, Default)]
pub struct ContainerTools {
    pub search_path: Option<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

/// A container resource's lifecycle, as `resource show`, `start`, `stop`
/// and `rebuild` give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

impl Registry {
    /// The lifecycle of a devcontainer resource (`detected` until it was
    /// first started).
    pub fn container_status(&self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        let (resource, row) = self.devcontainer(key, "show")?;
        Ok(view(&resource, row.as_ref()))
    }

    /// Build and start the container (lazy activation: what the router's
    /// first selection does). A running container is left as it is.
    pub fn start_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        self.lifecycle(key, "start", |runtime, req, row| {
            if let Some(id) = row.and_then(|r| r.container_id.as_deref())
                && row.is_some_and(|r| r.state == ContainerState::Running)
                && runtime.is_running(id).unwrap_or(false)
            {
                return Ok(None);
            }
            runtime.up(req).map(Some)
        })
    }

    /// Route a tool call and make its environment ready: what an agent
    /// runtime does before running a tool. When the router lands on a
    /// devcontainer, it is built and started if it is not running (lazy
    /// activation); other environments are answered as they are.
    pub fn enter_environment(
        &mut self,
        key: &ResourceKey,
        plan: Option<&str>,
        tool: &super::ToolRequest,
    ) -> Result<(crate::routing::Route, Option<ContainerView>), RegistryError> {
        let route = self.resolve_environment(key, plan, tool)?;
        let crate::routing::Environment::Resource { resource_id, .. } = &route.environment else {
            return Ok((route, None));
        };
        let target = ResourceKey::Id(*resource_id);
        match self.devcontainer(&target, "start") {
            Ok(_) => {
                let started = self.start_container(&target)?;
                Ok((route, Some(started)))
            }
            Err(RegistryError::ContainerRefused { .. }) => Ok((route, None)),
            Err(other) => Err(other),
        }
    }

    /// Rebuild the container from its current configuration (after
    /// `devcontainer.json` changed): the old one is removed first.
    pub fn rebuild_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        self.lifecycle(key, "rebuild", |runtime, req, _| {
            runtime.rebuild(req).map(Some)
        })
    }

    /// Stop the running container (it stays, stopped, until started again
    /// or rebuilt).
    pub fn stop_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        let (resource, row) = self.devcontainer(key, "stop")?;
        let refuse = |reason: &str| RegistryError::ContainerRefused {
            resource: resource.label(),
            operation: "stop",
            reason: reason.to_owned(),
        };
        let Some(row) = row else {
            return Err(refuse("it was never started (state detected)"));
        };
        let Some(id) = row.container_id.clone() else {
            return Err(refuse(&format!(
                "it has no container (state {})",
                row.state
            )));
        };
        let runtime = self.container_runtime(&resource, "stop")?;
        let _lock = self.container_lock(&resource)?;
        match runtime.stop(&id) {
            Ok(()) => {}
            Err(DevcontainerError::NoSuchContainer { .. }) => {}
            Err(source) => return Err(self.container_failed(&resource, "stop", source)),
        }
        let stopped = ContainerStateRow {
            state: ContainerState::Stopped,
            last_error: None,
            updated_at: self.now(),
            ..row
        };
        self.store.write(|w| w.put_container_state(&stopped))?;
        Ok(view(&resource, Some(&stopped)))
    }

    /// One build-or-start step: `building` recorded first, the outcome
    /// after (`running`, or `failed` with the error).
    fn lifecycle(
        &mut self,
        key: &ResourceKey,
        operation: &'static str,
        step: impl FnOnce(
            &devcontainer::Runtime,
            &UpRequest,
            Option<&ContainerStateRow>,
        ) -> Result<Option<Container>, DevcontainerError>,
    ) -> Result<ContainerView, RegistryError> {
        let (resource, _) = self.devcontainer(key, operation)?;
        let runtime = self.container_runtime(&resource, operation)?;
        let _lock = self.container_lock(&resource)?;
        // Read again under the lock: another process may have started it.
        let (_, row) = self.devcontainer(key, operation)?;
        let config = config_path(&resource);
        let hash = devcontainer::config_hash(&config).ok();
        let req = UpRequest {
            workspace: PathBuf::from(resource.location.clone().unwrap_or_default()),
            config,
            id_label: format!("agents.resource={}", resource.resource_id),
        };
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
        match step(&runtime, &req, row.as_ref()) {
            Ok(None) => Ok(view(&resource, row.as_ref())),
            Ok(Some(container)) => {
                let running = ContainerStateRow {
                    state: ContainerState::Running,
                    container_id: Some(container.id),
                    tool: Some(container.tool.to_string()),
                    config_hash: hash,
                    updated_at: self.now(),
                    ..building
                };
                self.store.write(|w| w.put_container_state(&running))?;
                Ok(view(&resource, Some(&running)))
            }
            Err(source) => {
                let err = self.container_failed(&resource, operation, source);
                let failed = ContainerStateRow {
                    state: ContainerState::Failed,
                    last_error: Some(crate::text::excerpt(&err.to_string(), 3000).into_owned()),
                    updated_at: self.now(),
                    ..building
                };
                self.store.write(|w| w.put_container_state(&failed))?;
                Err(err)
            }
        }
    }

    /// The resource, if it is a devcontainer, and its recorded state.
    fn devcontainer(
        &self,
        key: &ResourceKey,
        operation: &'static str,
    ) -> Result<(Resource, Option<ContainerStateRow>), RegistryError> {
        let cache = &self.types;
        self.store.read(|r| {
            let types = cache.get(r)?;
            let resource = load_one(r, &types, find_row(r, key)?)?;
            let ty = types.resolve(&resource.resource_type_name)?;
            let dc = TypeName::parse(DEVCONTAINER_TYPE)
                .unwrap_or_else(|e| unreachable!("a built-in name: {e}"));
            if !ty.is_a(&dc) {
                return Err(RegistryError::ContainerRefused {
                    resource: resource.label(),
                    operation,
                    reason: format!(
                        "it is a {}; the host builds and starts devcontainer-instance resources \
                         (a container-instance is an environment someone else runs)",
                        resource.resource_type_name
                    ),
                });
            }
            let row = r.container_state(resource.resource_id)?;
            Ok((resource, row))
        })
    }

    fn container_runtime(
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
        .map_err(|source| self.container_failed(resource, operation, source))
    }

    fn container_failed(
        &self,
        resource: &Resource,
        operation: &'static str,
        source: DevcontainerError,
    ) -> RegistryError {
        RegistryError::ContainerFailed {
            resource: resource.label(),
            operation,
            source: Box::new(source),
        }
    }

    fn container_lock(&self, resource: &Resource) -> Result<std::fs::File, RegistryError> {
        let home = self.home.as_ref().ok_or(RegistryError::SandboxNeedsHome)?;
        let dir = home.join("containers");
        let path = dir.join(format!("{}.lock", resource.resource_id));
        super::sandboxes::lock_file(&dir, &path)
    }
}

/// The devcontainer.json a resource was found by (its `config-path`
/// property), else `.devcontainer/devcontainer.json` in its location.
fn config_path(resource: &Resource) -> PathBuf {
    match resource
        .properties
        .get("config-path")
        .and_then(|v| v.as_str())
    {
        Some(path) => PathBuf::from(path),
        None => Path::new(resource.location.as_deref().unwrap_or("."))
            .join(".devcontainer/devcontainer.json"),
    }
}

pub(super) fn view(resource: &Resource, row: Option<&ContainerStateRow>) -> ContainerView {
    let now = devcontainer::config_hash(&config_path(resource)).ok();
    let built_from = row.and_then(|r| r.config_hash.clone());
    let has_container = row.is_some_and(|r| r.container_id.is_some());
    ContainerView {
        state: row.map_or(ContainerState::Detected, |r| r.state),
        container_id: row.and_then(|r| r.container_id.clone()),
        tool: row.and_then(|r| r.tool.clone()),
        out_of_date: has_container && built_from.is_some() && now.is_some() && built_from != now,
        built_from,
        config_hash: now,
        last_error: row.and_then(|r| r.last_error.clone()),
        updated_at: row.map(|r| r.updated_at.clone()),
    }
}
