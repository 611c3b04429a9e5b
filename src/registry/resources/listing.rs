//! `Registry::list`: which resources `agents resource list` shows and in
//! which order — by type (`ResourceFilter`), by a glob over the name,
//! below a resource, at most so many — with the count before the limit,
//! so people are told what they do not see; and `list_resources`, every
//! resource of a type.

use crate::model::{Resource, ResourceId, ResourceKey};
use crate::natural::{glob_match, names_cmp};
use crate::registry::lookup::{assemble, find_row};
use crate::registry::{Registry, RegistryError};
use serde::Serialize;
use std::collections::HashSet;

/// The order of a listing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ListOrder {
    /// Natural order of the names (`f1, f2, f10`); resources without a
    /// name last, by id.
    #[default]
    Name,
    /// The order they were registered in (ids are time-ordered ULIDs).
    Registered,
}

/// What `Registry::list` lists; the default is every resource by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListOptions {
    pub filter: ResourceFilter,
    /// Only names matching this glob: `*` any run of characters (`/`
    /// included: `local/api-repo/*.py`), `?` one; `\*`, `\?` and `\\` are
    /// those characters themselves; the whole name must match.
    pub name: Option<String>,
    /// Only resources below this one (its descendants, not itself).
    pub under: Option<ResourceKey>,
    /// At most this many, after ordering.
    pub limit: Option<usize>,
    pub order: ListOrder,
}

/// A listing: the resources shown and how many matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResourceList {
    /// How many resources matched, before `limit`.
    pub total: usize,
    pub resources: Vec<Resource>,
}

/// The work of [`Registry::list`].
pub(crate) fn list(reg: &Registry, opts: &ListOptions) -> Result<ResourceList, RegistryError> {
    let below: Option<HashSet<ResourceId>> = match &opts.under {
        None => None,
        Some(key) => Some(reg.store.read(|r| -> Result<_, RegistryError> {
            let root = find_row(r, key)?;
            Ok(r.edges_reachable(&[root.id])?
                .into_iter()
                .map(|e| e.child)
                .filter(|id| *id != root.id)
                .collect())
        })?),
    };
    let mut resources = reg.list_resources(&opts.filter)?;
    resources.retain(|r| {
        below.as_ref().is_none_or(|b| b.contains(&r.resource_id))
            && opts.name.as_deref().is_none_or(|glob| {
                r.name
                    .as_ref()
                    .is_some_and(|n| glob_match(glob, n.as_str()))
            })
    });
    if opts.order == ListOrder::Name {
        let name = |r: &Resource| r.name.as_ref().map(|n| n.as_str().to_owned());
        resources.sort_by(|a, b| {
            names_cmp(name(a).as_deref(), name(b).as_deref())
                .then_with(|| a.resource_id.cmp(&b.resource_id))
        });
    }
    let total = resources.len();
    if let Some(limit) = opts.limit {
        resources.truncate(limit);
    }
    Ok(ResourceList { total, resources })
}

/// Which resources `list_resources` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ResourceFilter {
    #[default]
    All,
    /// Resources of this type or any subtype of it.
    TypeOrSubtype(String),
    /// Resources of exactly this type.
    ExactType(String),
}

/// The work of [`Registry::list_resources`].
pub(crate) fn list_resources(
    reg: &Registry,
    filter: &ResourceFilter,
) -> Result<Vec<Resource>, RegistryError> {
    reg.store.read(|r| {
        let types = reg.types.get(r)?;
        let wanted = match filter {
            ResourceFilter::All => None,
            ResourceFilter::TypeOrSubtype(t) => Some(types.with_subtypes(&types.find(t)?.name)),
            ResourceFilter::ExactType(t) => Some(vec![types.find(t)?.name.clone()]),
        };
        let rows = r.resources(wanted.as_deref())?;
        let (children, parents) = r.all_links()?;
        rows.into_iter()
            .map(|row| {
                let p = parents.get(&row.id).cloned().unwrap_or_default();
                let c = children.get(&row.id).cloned().unwrap_or_default();
                // A list keeps the spec's fields; `show` says who.
                let mut resource = assemble(&types, row, p, c)?;
                resource.registered_by = None;
                Ok(resource)
            })
            .collect()
    })
}
