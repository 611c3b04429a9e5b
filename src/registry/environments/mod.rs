//! Execution-environment settings and routing: what `agents project
//! context …`, `agents plan use` and `agents env resolve` stand on. The
//! registry gathers the router's inputs (the settings, the nearest
//! devcontainer above the resource, the tool's wish); `routing::route`
//! decides.
//!
//! Level 3 (the devcontainers above a resource, and which of them may
//! be chosen) is `level3`.

pub(super) mod containers;
mod settings;

use crate::devcontainer::DevcontainerError;
use crate::model::ContainerState;
use crate::store::ContainerStateRow;
use containers::{ContainerView, Lookup};
mod level3;

pub use settings::SettingView;
pub(super) use settings::check_scope;
use settings::{record_setting, setting_view};

use super::{Registry, RegistryError};
use crate::model::SettingScope;
use crate::model::{ResourceId, ResourceKey, TypeName, resource_label};
use crate::registry::EnvironmentsError;
use crate::registry::devcontainer_config::container_failed;
use crate::registry::lookup::find_row;
use crate::registry::type_set::TypeSet;
use crate::routing::{
    self, Detected, Environment, Priority, Route, RouteInputs, Setting, ToolPreference,
};
use crate::store::{Reader, ResourceRow, SettingRow};

/// The plan a command means when it names none.
pub const DEFAULT_PLAN: &str = "default";

/// The type every execution environment is (or inherits).
pub const ENVIRONMENT_TYPE: &str = "container-instance";

/// The type a detected devcontainer is (or inherits).
pub const DEVCONTAINER_TYPE: &str = "devcontainer-instance";

/// Where a setting points: the host, or a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvironmentKey {
    Host,
    Resource(ResourceKey),
}

impl EnvironmentKey {
    /// `host`, or a resource name or id.
    pub fn parse(text: &str) -> Result<Self, crate::model::NameError> {
        if text == "host" {
            return Ok(Self::Host);
        }
        ResourceKey::parse(text).map(Self::Resource)
    }
}

/// What a tool asks for (`--tool-env`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolRequest {
    #[default]
    None,
    RequiredContainer,
    PreferredContainer,
    Specific(EnvironmentKey),
}

impl ToolRequest {
    /// `required:container`, `preferred:container` or `specific:NAME`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.split_once(':') {
            Some(("required", "container")) => Ok(Self::RequiredContainer),
            Some(("preferred", "container")) => Ok(Self::PreferredContainer),
            Some(("specific", name)) => EnvironmentKey::parse(name)
                .map(Self::Specific)
                .map_err(|e| e.to_string()),
            _ => Err(format!(
                "{text:?} is not a tool environment preference; use required:container, \
                 preferred:container or specific:NAME"
            )),
        }
    }
}

fn resource_id_of(env: &Environment) -> ResourceId {
    match env {
        Environment::Resource { resource_id, .. } => *resource_id,
        Environment::Host => unreachable!("a resource key names a resource"),
    }
}

pub(super) fn not_an_environment(env: &Environment) -> RegistryError {
    RegistryError::Environments(EnvironmentsError::NotAnEnvironment {
        environment: env.to_string(),
    })
}

/// The resource `key` as an environment, and whether it is one (a
/// `container-instance` or a subtype).
pub(super) fn environment_of(
    r: &Reader<'_>,
    types: &TypeSet,
    key: &ResourceKey,
) -> Result<(Environment, bool), RegistryError> {
    let row = find_row(r, key)?;
    let is_env = types.resolve(&row.type_name)?.is_a(&environment_type());
    Ok((environment(&row), is_env))
}

/// The resource of `row` as an environment.
fn environment(row: &ResourceRow) -> Environment {
    Environment::Resource {
        resource_id: row.id,
        name: resource_label(row.name.as_ref(), row.id),
        resource_type_name: row.type_name.to_string(),
    }
}

/// A stored setting's target (`None`: the host).
fn environment_at(
    r: &Reader<'_>,
    types: &TypeSet,
    id: Option<ResourceId>,
) -> Result<Environment, RegistryError> {
    match id {
        None => Ok(Environment::Host),
        Some(id) => Ok(environment_of(r, types, &ResourceKey::Id(id))?.0),
    }
}

fn environment_type() -> TypeName {
    TypeName::parse(ENVIRONMENT_TYPE).unwrap_or_else(|e| unreachable!("a built-in name: {e}"))
}

impl Registry {
    /// Store the project's (or a plan's) execution environment. The
    /// resource must exist and be an execution environment.
    pub fn set_environment(
        &mut self,
        scope: SettingScope,
        target: &EnvironmentKey,
        priority: Priority,
    ) -> Result<SettingView, RegistryError> {
        check_scope(&scope)?;
        let now = self.now();
        let rec = self.recorder();
        let cache = &self.types;
        self.store.write(|w| {
            let types = cache.get(w)?;
            let resource = match target {
                EnvironmentKey::Host => None,
                EnvironmentKey::Resource(key) => match environment_of(w, &types, key)? {
                    (env, true) => Some(resource_id_of(&env)),
                    (env, false) => return Err(not_an_environment(&env)),
                },
            };
            let row = SettingRow {
                scope,
                resource,
                priority,
                updated_at: now.clone(),
            };
            let before = w.setting(&row.scope)?;
            w.put_setting(&row)?;
            record_setting(&rec, w, &row.scope, before.as_ref(), Some(&row))?;
            setting_view(w, &row)
        })
    }

    pub fn environment_setting(
        &self,
        scope: &SettingScope,
    ) -> Result<Option<SettingView>, RegistryError> {
        check_scope(scope)?;
        self.store.read(|r| {
            r.setting(scope)?
                .map(|row| setting_view(r, &row))
                .transpose()
        })
    }

    /// Every stored setting: the project's, then the plans'.
    pub fn environment_settings(&self) -> Result<Vec<SettingView>, RegistryError> {
        self.store.read(|r| {
            r.settings()?
                .iter()
                .map(|row| setting_view(r, row))
                .collect()
        })
    }

    /// Remove a setting; answers whether there was one.
    pub fn unset_environment(&mut self, scope: &SettingScope) -> Result<bool, RegistryError> {
        check_scope(scope)?;
        let rec = self.recorder();
        self.store.write(|w| {
            let before = w.setting(scope)?;
            let gone = w.delete_setting(scope)?;
            if let Some(before) = before.filter(|_| gone) {
                record_setting(&rec, w, scope, Some(&before), None)?;
            }
            Ok(gone)
        })
    }

    /// Where a tool acting on `key` runs (`plan`: the plan's name, else
    /// the default plan), and which level decided. A pure answer: nothing
    /// is built or started here. When the environment is a devcontainer,
    /// the route says whether it may be activated (`trust`); a tool that
    /// requires a container is refused one that may not.
    pub fn resolve_environment(
        &self,
        key: &ResourceKey,
        plan: Option<&str>,
        tool: &ToolRequest,
    ) -> Result<Route, RegistryError> {
        let plan = plan.unwrap_or(DEFAULT_PLAN).to_owned();
        let plan_scope = SettingScope::Plan(plan.clone());
        check_scope(&plan_scope)?;
        let cache = &self.types;
        let (mut inputs, candidates) = self.store.read(|r| {
            let types = cache.get(r)?;
            let start = find_row(r, key)?;
            let setting = |scope: &SettingScope| -> Result<Option<Setting>, RegistryError> {
                r.setting(scope)?
                    .map(|row| {
                        Ok(Setting {
                            environment: environment_at(r, &types, row.resource)?,
                            priority: row.priority,
                        })
                    })
                    .transpose()
            };
            let tool = match tool {
                ToolRequest::None => ToolPreference::None,
                ToolRequest::RequiredContainer => ToolPreference::RequiredContainer,
                ToolRequest::PreferredContainer => ToolPreference::PreferredContainer,
                ToolRequest::Specific(EnvironmentKey::Host) => ToolPreference::Specific {
                    environment: Environment::Host,
                    is_environment: true,
                },
                ToolRequest::Specific(EnvironmentKey::Resource(k)) => {
                    let (environment, is_environment) = environment_of(r, &types, k)?;
                    ToolPreference::Specific {
                        environment,
                        is_environment,
                    }
                }
            };
            let inputs = RouteInputs {
                plan: setting(&plan_scope)?.map(|s| (plan.clone(), s)),
                project: setting(&SettingScope::Project)?,
                devcontainer: None,
                passed_over: Vec::new(),
                ambiguous: None,
                tool,
            };
            Ok::<_, RegistryError>((inputs, level3::candidates(r, &types, start.id)?))
        })?;
        level3::choose(self, candidates, &mut inputs)?;
        let mut route = routing::route(&inputs)?;
        level3::check_trust(self, &mut route, tool)?;
        Ok(route)
    }

    /// The lifecycle of a devcontainer resource (`detected` until it was
    /// first started).
    pub fn container_status(&self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        let (resource, row) = self.devcontainer(key, "show")?;
        self.view(&resource, row.as_ref())
    }

    /// A resource's container lifecycle when it is a devcontainer, `None`
    /// for any other resource (`resource show`): unlike
    /// [`Registry::container_status`], not being one is no refusal, while
    /// every other failure is.
    pub fn container_of(&self, key: &ResourceKey) -> Result<Option<ContainerView>, RegistryError> {
        match self.lookup_devcontainer(key)? {
            Lookup::Devcontainer(resource, row) => self.view(&resource, row.as_ref()).map(Some),
            Lookup::Other(_) => Ok(None),
        }
    }

    /// Build and start the container (lazy activation: what the router's
    /// first selection does). A running container is left as it is.
    pub fn start_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        self.lifecycle(key, "start", |runtime, req, checked, row| {
            if let Some(id) = row.and_then(|r| r.container_id.as_deref())
                && row.is_some_and(|r| r.state == ContainerState::Running)
                && runtime.is_running(id).unwrap_or(false)
            {
                return Ok(None);
            }
            runtime.up_checked(req, checked).map(Some)
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
        tool: &ToolRequest,
    ) -> Result<(Route, Option<ContainerView>), RegistryError> {
        let route = self.resolve_environment(key, plan, tool)?;
        let Environment::Resource { resource_id, .. } = &route.environment else {
            return Ok((route, None));
        };
        let target = ResourceKey::Id(*resource_id);
        match self.devcontainer(&target, "start") {
            Ok(_) => {
                let started = self.start_container(&target)?;
                Ok((route, Some(started)))
            }
            Err(RegistryError::Environments(EnvironmentsError::ContainerRefused { .. })) => {
                Ok((route, None))
            }
            Err(other) => Err(other),
        }
    }

    /// Rebuild the container from its current configuration (after
    /// `devcontainer.json` changed): the old one is removed first.
    pub fn rebuild_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        self.lifecycle(key, "rebuild", |runtime, req, checked, _| {
            runtime.rebuild_checked(req, checked).map(Some)
        })
    }

    /// Stop the running container (it stays, stopped, until started again
    /// or rebuilt). Like `docker stop`, stopping what is not running is no
    /// error: one never started, or with no container (a failed build),
    /// is answered as it is, and nothing is asked of the engine.
    pub fn stop_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        let (resource, row) = self.devcontainer(key, "stop")?;
        let Some((row, id)) = row.and_then(|r| r.container_id.clone().map(|id| (r, id))) else {
            log::info!("{} is not running: nothing to stop", resource.label());
            return self.container_status(key);
        };
        let runtime = self.container_runtime(&resource, "stop")?;
        let _lock = self.container_lock(&resource)?;
        match runtime.stop(&id) {
            Ok(()) | Err(DevcontainerError::NoSuchContainer { .. }) => {}
            Err(source) => return Err(container_failed(&resource, "stop", source)),
        }
        let stopped = self.put_container_state(ContainerStateRow {
            state: ContainerState::Stopped,
            last_error: None,
            ..row
        })?;
        self.view(&resource, Some(&stopped))
    }
}
