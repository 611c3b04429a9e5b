//! Level 3 of routing: the devcontainers above a resource, nearest
//! first, and which of them may be chosen — the one home of the rule
//! below and of whether a devcontainer may be activated.
//!
//! **Level 3 and repositories inside repositories.** A devcontainer found
//! at the root of what a person registered (their checkout's
//! `.devcontainer/`, their directory's) is the level-3 candidate, trusted
//! or not (activation asks for trust; the route says whether it has it).
//! One found deep inside by a recursive discovery (`vendor/dep/
//! .devcontainer/`, a sub-project's) was brought by the repository, not
//! chosen by the person: level 3 passes over it — saying so in the route's
//! reason — until they trust it, and the next one up is chosen instead.
//! So is one reached through a link an agent made (see [`candidates`]).

use super::{Detected, Environment, ResourceKey, ToolRequest, environment_of, resource_id_of};
use crate::model::ResourceId;
use crate::registry::TrustState;
use crate::registry::type_set::TypeSet;
use crate::registry::{EnvironmentsError, Registry, RegistryError};
use crate::routing::{Ambiguous, Route, RouteInputs, RouteTrust};
use crate::store::Reader;
use std::collections::{HashSet, VecDeque};

impl Registry {
    /// Whether the devcontainer `id` may be activated for this registry's
    /// person.
    fn activation(&self, id: ResourceId) -> Result<Activation, RegistryError> {
        let resource = self.resource(&ResourceKey::Id(id))?;
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
        Ok(Activation::Trust {
            state: self.trust_state(&resource, &checked)?,
            name: resource.label(),
        })
    }
}

/// Is `id` a devcontainer (a resource of the type, or a subtype)?
fn is_devcontainer(r: &Reader<'_>, types: &TypeSet, id: ResourceId) -> Result<bool, RegistryError> {
    Ok(match r.resource_by_id(id)? {
        Some(row) => types
            .resolve(&row.type_name)?
            .is_a(&crate::registry::devcontainer_type()),
        None => false,
    })
}

/// Level 3: the nearest devcontainer at the root of a resource a person
/// registered, or a deeper one they trusted, into `inputs` (or the
/// ambiguity of several at one place); the ones passed over, with why.
pub(super) fn choose(
    reg: &Registry,
    candidates: Vec<Candidate>,
    inputs: &mut RouteInputs,
) -> Result<(), RegistryError> {
    for candidate in candidates {
        if !candidate.at_root {
            let activation = reg.activation(resource_id_of(&candidate.detected.environment))?;
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
    Ok(())
}

/// A route to a devcontainer says whether it may be activated; a tool
/// that requires a container is refused one it may not.
pub(super) fn check_trust(
    reg: &Registry,
    route: &mut Route,
    tool: &ToolRequest,
) -> Result<(), RegistryError> {
    if let Environment::Resource {
        resource_id, name, ..
    } = &route.environment
        && reg
            .store
            .read(|r| is_devcontainer(r, &*reg.types.get(r)?, *resource_id))?
    {
        let activation = reg.activation(*resource_id)?;
        let trusted = activation.allowed();
        if !trusted && *tool == ToolRequest::RequiredContainer {
            let operation = "route a tool that requires a container to";
            let resource = name.clone();
            return Err(match activation {
                Activation::Trust { state, .. } => EnvironmentsError::NotTrusted {
                    resource,
                    operation,
                    state: Box::new(state),
                },
                Activation::Refused(reason) => EnvironmentsError::ContainerRefused {
                    resource,
                    operation,
                    reason,
                },
            }
            .into());
        }
        route.trust = Some(RouteTrust {
            trusted,
            why: (!trusted).then(|| activation.why()),
        });
    }
    Ok(())
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
pub(super) struct Candidate {
    detected: Detected,
    /// It is (or is a child of) a resource a person registered: found by
    /// the discovery of what they registered, not deep inside it.
    at_root: bool,
    /// Its resource holds several devcontainers and none is the default
    /// (all of them from `.devcontainer/<folder>/`): their names.
    ambiguous: Option<Vec<String>>,
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
    let mut keyed = level
        .into_iter()
        .map(|c| {
            let row = r.resource_by_id(resource_id_of(&c.detected.environment))?;
            let is_default = row.is_none_or(|row| !row.properties.contains_key("config-folder"));
            Ok((is_default, c))
        })
        .collect::<Result<Vec<_>, RegistryError>>()?;
    for at in 0..keyed.len() {
        let via = keyed[at].1.detected.via.clone();
        let group: Vec<usize> = (0..keyed.len())
            .filter(|&i| keyed[i].1.detected.via == via)
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
///
/// A link an agent made moves nothing under a resource for routing
/// (`provenance`): a devcontainer reached through one (down to it, or on
/// the way up) is passed over like a vendored one, until the person
/// trusts it. (One at the root of what an agent registered itself is that
/// resource's own: chosen, and refused activation until a person trusts
/// it.)
pub(super) fn candidates(
    r: &Reader<'_>,
    types: &TypeSet,
    start: ResourceId,
) -> Result<Vec<Candidate>, RegistryError> {
    let is_dc = |id: ResourceId| is_devcontainer(r, types, id);
    let by_agent = |a: &Option<crate::model::Actor>| a.as_ref().is_some_and(|a| a.face.is_agent());
    let registered = |id: ResourceId| -> Result<bool, RegistryError> {
        Ok(r.resource_by_id(id)?
            .is_some_and(|row| !row.auto_discovered))
    };
    let mut out = Vec::new();
    let mut seen = HashSet::from([start]);
    // Each node of the level, and whether an agent's link led to it.
    let mut level = vec![(start, false)];
    let mut distance = 0u32;
    while !level.is_empty() {
        let mut found: Vec<(ResourceId, ResourceId, bool)> = Vec::new();
        for &(node, tainted) in &level {
            if is_dc(node)? {
                found.push((node, node, tainted));
            }
            for end in r.link_ends(node, true)? {
                if end.other != node && is_dc(end.other)? {
                    found.push((end.other, node, tainted || by_agent(&end.linked_by)));
                }
            }
        }
        found.sort();
        found.dedup_by_key(|(id, _, _)| *id);
        let first = out.len();
        let mut rooted = false;
        for (id, via, tainted) in found {
            let mut at_root = registered(id)?;
            for end in r.link_ends(id, false)? {
                at_root |= !by_agent(&end.linked_by) && registered(end.other)?;
            }
            let at_root = at_root && !tainted;
            rooted |= at_root;
            let env = environment_of(r, types, &ResourceKey::Id(id))?.0;
            let via_row = r.resource_by_id(via)?;
            out.push(Candidate {
                detected: Detected {
                    environment: env,
                    via: via_row.map_or_else(|| via.to_string(), |v| v.label()),
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
        for &(node, tainted) in &level {
            for end in r.link_ends(node, false)? {
                if seen.insert(end.other) {
                    next.push_back((end.other, tainted || by_agent(&end.linked_by)));
                }
            }
        }
        level = next.into_iter().collect();
        distance += 1;
    }
    Ok(out)
}
