//! Removing resources: `agents resource remove`. What goes with a
//! resource (the rule is `dag::removal`, walked in the store) is shared
//! with a rediscovery that drops children and with the forced clean-up of
//! sandboxes and containers: `lookup::going`.

use crate::model::{Resource, ResourceId, ResourceKey};
use crate::registry::lookup::find_row;
use crate::registry::lookup::going::{containers_on, sandboxes_on, what_goes};
use crate::registry::recording::{EventOp, listed};
use crate::registry::resources::equivalence;
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::Reader;
use serde::Serialize;
use serde_json::json;

/// What a removal took (or, in a dry run, would take).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RemovalReport {
    pub dry_run: bool,
    /// The resource and the auto-discovered descendants no other parent keeps.
    pub removed: Vec<Resource>,
    /// User-registered children that stay, only losing their link.
    pub unlinked: Vec<Resource>,
    /// The sandboxes living on what goes: a removal is refused while any
    /// exist (destroy them, or `--force`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sandboxes: Vec<crate::model::SandboxId>,
    /// The devcontainers among what goes whose container the engine still
    /// holds: a removal is refused while any do (`--force` stops and
    /// removes them first), so no container is orphaned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<String>,
    /// What [`RemoveOptions::force`] cleared first (not part of the
    /// report's view: the CLI says each on stderr).
    #[serde(skip)]
    pub forced: Forced,
}

/// What a forced removal stopped and destroyed before removing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Forced {
    /// Each devcontainer whose container was stopped and removed, with
    /// the container's id.
    pub containers: Vec<(String, String)>,
    /// The sandboxes destroyed.
    pub sandboxes: Vec<crate::registry::SandboxView>,
}

/// How [`Registry::remove_resource`] removes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RemoveOptions {
    /// Only report what would go; write nothing.
    pub dry_run: bool,
    /// First stop and remove the containers and destroy the sandboxes on
    /// what goes (which otherwise refuse the removal). Ignored in a dry run.
    pub force: bool,
}

impl RemoveOptions {
    /// Report what would go, write nothing.
    pub fn dry_run() -> Self {
        Self {
            dry_run: true,
            ..Self::default()
        }
    }

    /// Clear the containers and sandboxes on what goes first.
    pub fn forced() -> Self {
        Self {
            force: true,
            ..Self::default()
        }
    }
}

/// The work of [`Registry::remove_resource`].
pub(crate) fn remove_resource(
    reg: &mut Registry,
    key: &ResourceKey,
    options: RemoveOptions,
) -> Result<RemovalReport, RegistryError> {
    let RemoveOptions { dry_run, force } = options;
    reg.check_key_in_roots(key, "removal")?;
    let mut forced = Forced::default();
    if force && !dry_run {
        forced.containers = reg.remove_containers_for_removal(key)?;
        forced.sandboxes = reg.destroy_sandboxes_for_removal(key)?;
    }
    let plan = |r: &Reader<'_>, types: &TypeSet| -> Result<RemovalReport, RegistryError> {
        let root = find_row(r, key)?;
        let (removed, unlinked) = what_goes(r, types, &[root.id])?;
        let sandboxes = sandboxes_on(r, &removed)?;
        let containers = containers_on(r, &removed)?
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        Ok(RemovalReport {
            dry_run,
            removed,
            unlinked,
            sandboxes,
            containers,
            forced: Forced::default(),
        })
    };
    let cache = &reg.types;
    if dry_run {
        return reg.store.read(|r| plan(r, &*cache.get(r)?));
    }
    let now = reg.now();
    let rec = reg.recorder();
    let (id_source, clock) = (&reg.ids, &reg.clock);
    reg.store.write(|w| {
        let types = cache.get(w)?;
        let root = find_row(w, key)?;
        let report = plan(w, &types)?;
        if !report.sandboxes.is_empty() {
            return Err(RegistryError::HasSandboxes {
                resource: key.to_string(),
                sandboxes: report.sandboxes,
            });
        }
        if !report.containers.is_empty() {
            return Err(RegistryError::HasContainers {
                resource: key.to_string(),
                containers: report.containers,
            });
        }
        let ids: Vec<ResourceId> = report.removed.iter().map(|r| r.resource_id).collect();
        w.delete_resources(&ids)?;
        let others = report.removed.iter().filter(|r| r.resource_id != root.id);
        let mut changes = json!({
            "type": root.type_name.as_str(),
            "location": root.location,
        });
        if ids.len() > 1 {
            changes["with"] = listed(others.map(|r| r.label()), ids.len() - 1);
        }
        if !report.unlinked.is_empty() {
            let kept = report.unlinked.iter().map(|r| r.label());
            changes["unlinked"] = listed(kept, report.unlinked.len());
        }
        rec.resource(w, EventOp::ResourceRemoved, &root, Some(changes))?;
        // Identities left with fewer than two members go too.
        equivalence::reconcile(w, &types, &|| id_source.next_id(clock.now()), &now)?;
        Ok(RemovalReport {
            forced: forced.clone(),
            ..report
        })
    })
}
