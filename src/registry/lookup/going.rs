//! What removing resources takes along: the removal rule
//! (`dag::removal`) walked in the store, and the sandboxes and containers
//! that live on what goes — asked by `remove` (and its `--force`), by
//! `sandbox destroy` and the container steps of a forced removal, and by a
//! rediscovery that drops children.

use super::load_resources;
use crate::dag;
use crate::model::{Resource, ResourceId};
use crate::registry::RegistryError;
use crate::registry::type_set::TypeSet;
use crate::store::Reader;

/// What removing `roots` takes with it: (the resources that go, in the
/// order the rule found them — roots first; the hand-registered resources
/// that only lose a link).
pub(crate) fn what_goes(
    r: &Reader<'_>,
    types: &TypeSet,
    roots: &[ResourceId],
) -> Result<(Vec<Resource>, Vec<Resource>), RegistryError> {
    let below = r.subgraph_below(roots)?;
    let removal = dag::removal(roots, &below.edges, &below.auto_discovered);
    let mut removed = load_resources(r, types, &removal.going)?;
    // In the removal's own order (parents before children).
    let order: std::collections::HashMap<ResourceId, usize> = removal
        .going
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, i))
        .collect();
    removed.sort_by_key(|res| order.get(&res.resource_id).copied());
    let unlinked = load_resources(r, types, &removal.unlinked)?;
    Ok((removed, unlinked))
}

/// The sandboxes living on any of `resources`.
pub(crate) fn sandboxes_on(
    r: &Reader<'_>,
    resources: &[Resource],
) -> Result<Vec<crate::model::SandboxId>, RegistryError> {
    let ids: Vec<ResourceId> = resources.iter().map(|res| res.resource_id).collect();
    Ok(r.sandboxes_of(&ids)?.into_iter().map(|s| s.id).collect())
}

/// The resources among `resources` whose container the engine holds, and
/// each as `name (state, container id)`.
pub(crate) fn containers_on<'a>(
    r: &Reader<'_>,
    resources: &'a [Resource],
) -> Result<Vec<(&'a Resource, String)>, RegistryError> {
    let held = r.containers()?;
    Ok(resources
        .iter()
        .filter_map(|res| {
            let row = held.iter().find(|c| c.resource == res.resource_id)?;
            let id = row.container_id.as_deref().unwrap_or_default();
            let text = format!(
                "{} ({}, {})",
                res.label(),
                row.state,
                &id[..id.len().min(12)]
            );
            Some((res, text))
        })
        .collect())
}
