//! Execution-environment settings and routing: what `agents project
//! context …`, `agents plan use` and `agents env resolve` stand on. The
//! registry gathers the router's inputs (the settings, the nearest
//! devcontainer above the resource, the tool's wish); `routing::route`
//! decides.
//!
//! **Level 3 and repositories inside repositories.** A devcontainer found
//! at the root of what a person registered (their checkout's
//! `.devcontainer/`, their directory's) is the level-3 candidate, trusted
//! or not (activation asks for trust; the route says whether it has it).
//! One found deep inside by a recursive discovery (`vendor/dep/
//! .devcontainer/`, a sub-project's) was brought by the repository, not
//! chosen by the person: level 3 passes over it — saying so in the route's
//! reason — until they trust it, and the next one up is chosen instead.

use super::lookup::find_row;
use super::trust::TrustState;
use super::type_set::TypeSet;
use super::{Registry, RegistryError};
use crate::model::SettingScope;
use crate::model::{ResourceId, ResourceKey, TypeName, resource_label};
use crate::registry::{EnvironmentsError, ResourcesError};
use crate::routing::{
    self, Ambiguous, Detected, Environment, Priority, Route, RouteInputs, RouteTrust, Setting,
    ToolPreference,
};
use crate::store::{Reader, SettingRow};
use serde::Serialize;
use std::collections::{HashSet, VecDeque};

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

/// A stored setting as the registry hands it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingView {
    /// `project` or `plan`.
    pub scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    pub environment: Environment,
    pub priority: Priority,
    pub updated_at: String,
}

impl Registry {
    /// Whether the devcontainer `id` may be activated for this registry's
    /// person.
    fn activation(&self, id: ResourceId) -> Result<Activation, RegistryError> {
        let resource = self.show_resource(&ResourceKey::Id(id))?;
        let checked = match self.checked_config(&resource, "activate") {
            Ok((_, checked)) => checked,
            Err(RegistryError::Environments(EnvironmentsError::ContainerFailed {
                source, ..
            })) => {
                return Ok(Activation::Refused(format!(
                    "its configuration is refused: {source}"
                )));
            }
            Err(RegistryError::Environments(EnvironmentsError::ContainerRefused {
                reason,
                ..
            })) => {
                return Ok(Activation::Refused(reason));
            }
            Err(other) => return Err(other),
        };
        let state = self
            .store
            .read(|r| self.trust_state(r, &resource, &checked))?;
        Ok(Activation::Trust {
            state,
            name: resource.label(),
        })
    }

    fn is_devcontainer(&self, id: ResourceId) -> Result<bool, RegistryError> {
        let cache = &self.types;
        self.store.read(|r| {
            let types = cache.get(r)?;
            Ok(match r.resource_by_id(id)? {
                Some(row) => types.resolve(&row.type_name)?.is_a(&devcontainer_type()),
                None => false,
            })
        })
    }
}

pub(super) fn check_scope(scope: &SettingScope) -> Result<(), RegistryError> {
    if let SettingScope::Plan(name) = scope {
        let ok = !name.is_empty()
            && name.len() <= 128
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok {
            return Err(RegistryError::Environments(
                EnvironmentsError::BadPlanName { name: name.clone() },
            ));
        }
    }
    Ok(())
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
    let ty = types.resolve(&row.type_name)?;
    let is_env = ty.is_a(&environment_type());
    Ok((
        Environment::Resource {
            resource_id: row.id,
            name: resource_label(row.name.as_ref(), row.id),
            resource_type_name: row.type_name.to_string(),
        },
        is_env,
    ))
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

fn setting_view(r: &Reader<'_>, row: &SettingRow) -> Result<SettingView, RegistryError> {
    let environment = match row.resource {
        None => Environment::Host,
        Some(id) => {
            let found = r.resource_by_id(id)?.ok_or(RegistryError::Resources(
                ResourcesError::ResourceNotFound {
                    key: ResourceKey::Id(id),
                },
            ))?;
            Environment::Resource {
                resource_id: id,
                name: resource_label(found.name.as_ref(), id),
                resource_type_name: found.type_name.to_string(),
            }
        }
    };
    let (scope, plan) = match &row.scope {
        SettingScope::Project => ("project", None),
        SettingScope::Plan(name) => ("plan", Some(name.clone())),
    };
    Ok(SettingView {
        scope,
        plan,
        environment,
        priority: row.priority,
        updated_at: row.updated_at.clone(),
    })
}

fn environment_type() -> TypeName {
    TypeName::parse(ENVIRONMENT_TYPE).unwrap_or_else(|e| unreachable!("a built-in name: {e}"))
}

fn devcontainer_type() -> TypeName {
    TypeName::parse(DEVCONTAINER_TYPE).unwrap_or_else(|e| unreachable!("a built-in name: {e}"))
}

/// Whether a devcontainer may be activated: where it stands for the
/// person, or why its configuration is refused whoever trusts it.
enum Activation {
    Trust { state: TrustState, name: String },
    Refused(String),
}

impl Activation {
    fn allowed(&self) -> bool {
        matches!(self, Self::Trust { state, .. } if state.is_trusted())
    }

    fn why(&self) -> String {
        match self {
            Self::Trust { state, name } => state.explain(name),
            Self::Refused(reason) => reason.clone(),
        }
    }
}

/// A devcontainer level 3 may choose.
struct Candidate {
    detected: Detected,
    /// It is (or is a child of) a resource a person registered: found by
    /// the discovery of what they registered, not deep inside it.
    at_root: bool,
    /// Its resource holds several devcontainers and none is the default
    /// (all of them from `.devcontainer/<folder>/`): their names.
    ambiguous: Option<Vec<String>>,
}

impl Detected {
    fn resource_id(&self) -> ResourceId {
        match &self.environment {
            Environment::Resource { resource_id, .. } => *resource_id,
            Environment::Host => unreachable!("a devcontainer is a resource"),
        }
    }
}

/// Among one level's candidates, a resource holding several
/// devcontainers offers its default one (`.devcontainer/devcontainer.json`
/// or `.devcontainer.json`: no `config-folder`) first; with no default and
/// more than one, each is marked ambiguous (the router then asks the tool
/// or a setting to choose).
fn choose_within_each_resource(
    r: &Reader<'_>,
    level: Vec<Candidate>,
) -> Result<Vec<Candidate>, RegistryError> {
    let mut keyed = Vec::with_capacity(level.len());
    for c in level {
        let row = r.resource_by_id(c.detected.resource_id())?;
        let is_default = row.is_none_or(|row| !row.properties.contains_key("config-folder"));
        keyed.push((is_default, c));
    }
    let vias: Vec<String> = keyed.iter().map(|(_, c)| c.detected.via.clone()).collect();
    for via in &vias {
        let group: Vec<usize> = (0..keyed.len())
            .filter(|&i| &keyed[i].1.detected.via == via)
            .collect();
        if group.len() < 2 || group.iter().any(|&i| keyed[i].0) {
            continue;
        }
        let names: Vec<String> = group
            .iter()
            .map(|&i| match &keyed[i].1.detected.environment {
                Environment::Resource { name, .. } => name.clone(),
                Environment::Host => "host".to_owned(),
            })
            .collect();
        for &i in &group {
            keyed[i].1.ambiguous = Some(names.clone());
        }
    }
    // Defaults first; otherwise in the order they were found (stable).
    keyed.sort_by_key(|(is_default, _)| !is_default);
    Ok(keyed.into_iter().map(|(_, c)| c).collect())
}

/// The devcontainers above `start`, nearest first, up to the first at
/// the root of a resource a person registered: walking up the DAG level
/// by level (the resource itself at distance 0), a devcontainer is the
/// resource itself or a devcontainer child of the resource reached; at
/// equal distance, the one registered first comes first.
fn devcontainer_candidates(
    r: &Reader<'_>,
    types: &TypeSet,
    start: ResourceId,
) -> Result<Vec<Candidate>, RegistryError> {
    let dc = devcontainer_type();
    let is_dc = |id: ResourceId| -> Result<bool, RegistryError> {
        Ok(match r.resource_by_id(id)? {
            Some(row) => types.resolve(&row.type_name)?.is_a(&dc),
            None => false,
        })
    };
    let registered = |id: ResourceId| -> Result<bool, RegistryError> {
        Ok(r.resource_by_id(id)?
            .is_some_and(|row| !row.auto_discovered))
    };
    let mut out = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut level = vec![start];
    let mut distance = 0u32;
    while !level.is_empty() {
        let mut found: Vec<(ResourceId, ResourceId)> = Vec::new();
        for &node in &level {
            if is_dc(node)? {
                found.push((node, node));
            }
            for child in r.children_of(node)? {
                if child != node && is_dc(child)? {
                    found.push((child, node));
                }
            }
        }
        found.sort();
        found.dedup_by_key(|(id, _)| *id);
        let first = out.len();
        let mut rooted = false;
        for (id, via) in found {
            let mut at_root = registered(id)?;
            for parent in r.parents_of(id)? {
                at_root |= registered(parent)?;
            }
            rooted |= at_root;
            let env = environment_of(r, types, &ResourceKey::Id(id))?.0;
            let via_row = r.resource_by_id(via)?;
            out.push(Candidate {
                detected: Detected {
                    environment: env,
                    via: resource_label(via_row.as_ref().and_then(|v| v.name.as_ref()), via),
                    distance,
                },
                at_root,
                ambiguous: None,
            });
        }
        let level_found = out.split_off(first);
        out.extend(choose_within_each_resource(r, level_found)?);
        if rooted {
            break;
        }
        let mut next = VecDeque::new();
        for &node in &level {
            for parent in r.parents_of(node)? {
                if seen.insert(parent) {
                    next.push_back(parent);
                }
            }
        }
        level = next.into_iter().collect();
        distance += 1;
    }
    Ok(out)
}

/// The work of [`Registry::set_environment`].
pub(in crate::registry) fn set_environment(
    reg: &mut Registry,
    scope: SettingScope,
    target: &EnvironmentKey,
    priority: Priority,
) -> Result<SettingView, RegistryError> {
    check_scope(&scope)?;
    let now = reg.now();
    let cache = &reg.types;
    reg.store.write(|w| {
        let types = cache.get(w)?;
        let resource = match target {
            EnvironmentKey::Host => None,
            EnvironmentKey::Resource(key) => {
                let env = environment_of(w, &types, key)?;
                if !env.1 {
                    return Err(not_an_environment(&env.0));
                }
                Some(resource_id_of(&env.0))
            }
        };
        let row = SettingRow {
            scope,
            resource,
            priority,
            updated_at: now.clone(),
        };
        w.put_setting(&row)?;
        setting_view(w, &row)
    })
}

/// The work of [`Registry::environment_setting`].
pub(in crate::registry) fn environment_setting(
    reg: &Registry,
    scope: &SettingScope,
) -> Result<Option<SettingView>, RegistryError> {
    check_scope(scope)?;
    reg.store.read(|r| {
        r.setting(scope)?
            .map(|row| setting_view(r, &row))
            .transpose()
    })
}

/// The work of [`Registry::environment_settings`].
pub(in crate::registry) fn environment_settings(
    reg: &Registry,
) -> Result<Vec<SettingView>, RegistryError> {
    reg.store.read(|r| {
        r.settings()?
            .iter()
            .map(|row| setting_view(r, row))
            .collect()
    })
}

/// The work of [`Registry::unset_environment`].
pub(in crate::registry) fn unset_environment(
    reg: &mut Registry,
    scope: &SettingScope,
) -> Result<bool, RegistryError> {
    check_scope(scope)?;
    reg.store.write(|w| Ok(w.delete_setting(scope)?))
}

/// The work of [`Registry::resolve_environment`].
pub(in crate::registry) fn resolve_environment(
    reg: &Registry,
    key: &ResourceKey,
    plan: Option<&str>,
    tool: &ToolRequest,
) -> Result<Route, RegistryError> {
    let plan = plan.unwrap_or(DEFAULT_PLAN).to_owned();
    let plan_scope = SettingScope::Plan(plan.clone());
    check_scope(&plan_scope)?;
    let cache = &reg.types;
    let (mut inputs, candidates) = reg.store.read(|r| {
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
        Ok::<_, RegistryError>((inputs, devcontainer_candidates(r, &types, start.id)?))
    })?;
    // Level 3: the nearest devcontainer at the root of a resource a
    // person registered, or a deeper one they trusted.
    for candidate in candidates {
        if !candidate.at_root {
            let activation = reg.activation(candidate.detected.resource_id())?;
            if !activation.allowed() {
                inputs.passed_over.push(format!(
                    "{} (below {}: {})",
                    candidate.detected.environment,
                    candidate.detected.via,
                    activation.why()
                ));
                continue;
            }
        }
        match candidate.ambiguous {
            Some(devcontainers) => {
                inputs.ambiguous = Some(Ambiguous {
                    via: candidate.detected.via,
                    devcontainers,
                })
            }
            None => inputs.devcontainer = Some(candidate.detected),
        }
        break;
    }
    let mut route = routing::route(&inputs)?;
    if let Environment::Resource {
        resource_id, name, ..
    } = &route.environment
        && reg.is_devcontainer(*resource_id)?
    {
        let activation = reg.activation(*resource_id)?;
        let trusted = activation.allowed();
        if !trusted && *tool == ToolRequest::RequiredContainer {
            let operation = "route a tool that requires a container to";
            return Err(match activation {
                Activation::Trust { state, .. } => {
                    RegistryError::Environments(EnvironmentsError::NotTrusted {
                        resource: name.clone(),
                        operation,
                        state: Box::new(state),
                    })
                }
                Activation::Refused(reason) => {
                    RegistryError::Environments(EnvironmentsError::ContainerRefused {
                        resource: name.clone(),
                        operation,
                        reason,
                    })
                }
            });
        }
        route.trust = Some(RouteTrust {
            trusted,
            why: (!trusted).then(|| activation.why()),
        });
    }
    Ok(route)
}
