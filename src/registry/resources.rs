//! Resource operations: register, list, show, remove.

use super::args::{self, CheckedArgs};
use super::catalogue::Catalogue;
use super::{Registry, RegistryError};
use crate::dag;
use crate::model::{
    Resource, ResourceCapabilities, ResourceId, ResourceKind, ResourceName, SandboxStrategy,
};
use crate::store::{Reader, ResourceRow, Writer};
use serde::Serialize;
use std::path::PathBuf;

/// A registration request: what `agents resource add` collects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewResource {
    /// The type's name, as given.
    pub type_name: String,
    /// Optional namespaced name (`local/api-repo`).
    pub name: Option<String>,
    /// The type's arguments: flag name (without `--`) and raw text.
    pub args: Vec<(String, String)>,
    pub description: Option<String>,
    /// A per-resource sandbox strategy override.
    pub sandbox_strategy: Option<String>,
    pub read_only: bool,
    /// What relative `path` arguments are relative to.
    pub base_dir: Option<PathBuf>,
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

/// What a removal took (or, in a dry run, would take).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RemovalReport {
    pub dry_run: bool,
    /// The resource and the auto-discovered descendants no other parent keeps.
    pub removed: Vec<Resource>,
    /// User-registered children that stay, only losing their link.
    pub unlinked: Vec<Resource>,
}

/// A registration that passed every check, ready to write: the resource
/// and the children its handler discovered.
struct Prepared {
    row: ResourceRow,
    children: Vec<ResourceRow>,
}

impl Registry {
    /// Register one resource (`register_resource(type_name, name=, location=, …)`).
    pub fn register_resource(&mut self, request: NewResource) -> Result<Resource, RegistryError> {
        let catalogue = self.catalogue()?;
        let prepared = self.prepare(&catalogue, request)?;
        let id = prepared.row.id;
        let now = self.now();
        self.store.write(|w| write_prepared(w, &prepared, &now))?;
        self.show_resource(&id.to_string())
    }

    /// Register many resources in one transaction: all or none.
    pub fn register_resources(
        &mut self,
        requests: impl IntoIterator<Item = NewResource>,
    ) -> Result<Vec<ResourceId>, RegistryError> {
        let catalogue = self.catalogue()?;
        let prepared = requests
            .into_iter()
            .map(|r| self.prepare(&catalogue, r))
            .collect::<Result<Vec<_>, _>>()?;
        let now = self.now();
        self.store.write(|w| {
            for p in &prepared {
                write_prepared(w, p, &now)?;
            }
            Ok(prepared.iter().map(|p| p.row.id).collect())
        })
    }

    /// Check a request against its type; nothing is written.
    fn prepare(
        &self,
        catalogue: &Catalogue,
        request: NewResource,
    ) -> Result<Prepared, RegistryError> {
        let ty = catalogue.find(&request.type_name)?;
        if !ty.user_addable.value {
            let parents: Vec<&str> = ty.parent_type_names().map(|n| n.as_str()).collect();
            let why = match (ty.resource_kind.value, parents.is_empty()) {
                (ResourceKind::Virtual, _) => {
                    "virtual resources are created by the registry, never by hand".to_owned()
                }
                (_, false) => format!(
                    "its resources are auto-discovered as children of {}",
                    parents.join(", ")
                ),
                (_, true) => "its resources are only created by discovery".to_owned(),
            };
            return Err(RegistryError::NotUserAddable {
                type_name: ty.name.clone(),
                why,
            });
        }
        let name = request
            .name
            .as_deref()
            .map(ResourceName::parse)
            .transpose()?;
        let checked: CheckedArgs = args::check(&ty, &request.args, request.base_dir.as_deref())?;
        let label = name
            .as_ref()
            .map_or_else(|| "(unnamed)".to_owned(), ToString::to_string);
        let strategy = request
            .sandbox_strategy
            .as_deref()
            .map(|s| check_strategy(&ty, &label, s))
            .transpose()?;
        let now = self.clock.now();
        let stamp = crate::effects::iso8601(now);
        let mut row = ResourceRow {
            id: self.ids.next_id(now),
            name,
            type_name: ty.name.clone(),
            kind: ty.resource_kind.value,
            location: checked.location,
            description: request.description,
            read_only: request.read_only,
            auto_discovered: false,
            sandbox_strategy: strategy,
            content_hash: None,
            properties: checked.properties,
            created_at: stamp.clone(),
            updated_at: stamp,
        };
        let children = match self.handler_for(&ty)? {
            Some(handler) => {
                // Refuse a taken name before running the handler for
                // nothing (the write checks again, under the lock).
                if let Some(name) = &row.name
                    && let Some(existing) = self.store.read(|r| r.resource_by_name(name))?
                {
                    return Err(RegistryError::DuplicateName {
                        name: name.to_string(),
                        id: existing.id.to_string(),
                    });
                }
                self.consult_handler(catalogue, &ty, &handler, &mut row)?
            }
            None => Vec::new(),
        };
        Ok(Prepared { row, children })
    }

    /// Resources in registration order (`list_resources(type_name=)`).
    pub fn list_resources(&self, filter: &ResourceFilter) -> Result<Vec<Resource>, RegistryError> {
        let catalogue = self.catalogue()?;
        let types = match filter {
            ResourceFilter::All => None,
            ResourceFilter::TypeOrSubtype(t) => {
                Some(catalogue.with_subtypes(&catalogue.find(t)?.name))
            }
            ResourceFilter::ExactType(t) => Some(vec![catalogue.find(t)?.name.clone()]),
        };
        self.store.read(|r| {
            let rows = r.resources(types.as_deref())?;
            let (children, parents) = r.all_links()?;
            rows.into_iter()
                .map(|row| {
                    let p = parents.get(&row.id).cloned().unwrap_or_default();
                    let c = children.get(&row.id).cloned().unwrap_or_default();
                    assemble(&catalogue, row, p, c)
                })
                .collect()
        })
    }

    /// One resource by namespaced name or ULID (`show_resource(name_or_id)`).
    pub fn show_resource(&self, key: &str) -> Result<Resource, RegistryError> {
        let catalogue = self.catalogue()?;
        self.store.read(|r| {
            let row = find_row(r, key)?;
            let (p, c) = (r.parents_of(row.id)?, r.children_of(row.id)?);
            assemble(&catalogue, row, p, c)
        })
    }

    /// Remove a resource, its links, and the auto-discovered descendants no
    /// other parent keeps; `dry_run` only reports what would go.
    pub fn remove_resource(
        &mut self,
        key: &str,
        dry_run: bool,
    ) -> Result<RemovalReport, RegistryError> {
        let catalogue = self.catalogue()?;
        let plan = |r: &Reader<'_>| -> Result<RemovalReport, RegistryError> {
            let root = find_row(r, key)?;
            let (edges, auto) = r.subgraph_below(root.id)?;
            let pairs: Vec<_> = edges.iter().map(|e| (e.parent, e.child)).collect();
            let going = dag::removal_set(root.id, &pairs, &auto);
            let load = |ids: &[ResourceId]| load_resources(r, &catalogue, ids);
            let unlinked: Vec<ResourceId> = pairs
                .iter()
                .filter(|(p, c)| going.contains(p) && !going.contains(c))
                .filter(|(_, c)| !auto.get(c).copied().unwrap_or(true))
                .map(|(_, c)| *c)
                .collect();
            let mut removed = load(&going)?;
            // Keep the named resource first, then discovery order.
            removed.sort_by_key(|res| going.iter().position(|g| *g == res.resource_id));
            Ok(RemovalReport {
                dry_run,
                removed,
                unlinked: load(&unlinked)?,
            })
        };
        if dry_run {
            return self.store.read(plan);
        }
        self.store.write(|w| {
            let report = plan(w)?;
            let ids: Vec<ResourceId> = report.removed.iter().map(|r| r.resource_id).collect();
            w.delete_resources(&ids)?;
            Ok(report)
        })
    }
}

/// Write a resource, its discovered children and their links.
fn write_prepared(w: &Writer<'_>, p: &Prepared, now: &str) -> Result<(), RegistryError> {
    insert_new(w, &p.row)?;
    for child in &p.children {
        insert_new(w, child)?;
        w.insert_link(p.row.id, child.id, true, now)?;
    }
    Ok(())
}

/// Insert a new row, refusing a name that is taken (checked inside the
/// write transaction, so two processes cannot both take it).
pub(super) fn insert_new(w: &Writer<'_>, row: &ResourceRow) -> Result<(), RegistryError> {
    if let Some(name) = &row.name
        && let Some(existing) = w.resource_by_name(name)?
    {
        return Err(RegistryError::DuplicateName {
            name: name.to_string(),
            id: existing.id.to_string(),
        });
    }
    Ok(w.insert_resource(row)?)
}

/// The row `key` names: a ULID, else a namespaced name.
pub(super) fn find_row(r: &Reader<'_>, key: &str) -> Result<ResourceRow, RegistryError> {
    let found = if let Ok(id) = ResourceId::parse(key) {
        r.resource_by_id(id)?
    } else if let Ok(name) = ResourceName::parse(key) {
        r.resource_by_name(&name)?
    } else {
        None
    };
    found.ok_or_else(|| RegistryError::ResourceNotFound {
        key: key.to_owned(),
    })
}

/// The resources `ids` (in id order), assembled.
pub(super) fn load_resources(
    r: &Reader<'_>,
    catalogue: &Catalogue,
    ids: &[ResourceId],
) -> Result<Vec<Resource>, RegistryError> {
    r.resources_by_ids(ids)?
        .into_iter()
        .map(|row| {
            let (p, c) = (r.parents_of(row.id)?, r.children_of(row.id)?);
            assemble(catalogue, row, p, c)
        })
        .collect()
}

/// A stored row plus its links and derived capabilities.
pub(super) fn assemble(
    catalogue: &Catalogue,
    row: ResourceRow,
    parents: Vec<ResourceId>,
    children: Vec<ResourceId>,
) -> Result<Resource, RegistryError> {
    let ty = catalogue.resolve(&row.type_name)?;
    let strategy = row.sandbox_strategy.unwrap_or(ty.sandbox_strategy.value);
    Ok(Resource {
        resource_id: row.id,
        name: row.name,
        resource_type_name: row.type_name,
        classification: row.kind,
        description: row.description,
        location: row.location,
        sandbox_strategy: row.sandbox_strategy,
        content_hash: row.content_hash,
        parents,
        children,
        properties: row.properties,
        capabilities: ResourceCapabilities::derive(
            ty.capabilities.values(),
            strategy,
            row.read_only,
        ),
        created_at: row.created_at,
        updated_at: row.updated_at,
        auto_discovered: row.auto_discovered,
        read_only: row.read_only,
    })
}

/// A per-resource sandbox override must be a strategy the resource can use.
fn check_strategy(
    ty: &crate::model::ResolvedType,
    label: &str,
    text: &str,
) -> Result<SandboxStrategy, RegistryError> {
    let refuse = |why: String| RegistryError::BadSandboxStrategy {
        label: label.to_owned(),
        type_name: ty.name.clone(),
        strategy: text.to_owned(),
        why,
    };
    let strategy = SandboxStrategy::parse(text).ok_or_else(|| {
        refuse(format!(
            "not a sandbox strategy; use one of {}",
            SandboxStrategy::ALL.map(SandboxStrategy::as_str).join(", ")
        ))
    })?;
    match strategy {
        _ if ty.resource_kind.value == ResourceKind::Virtual
            && strategy != SandboxStrategy::None =>
        {
            Err(refuse(
                "virtual resources have no sandbox (use none)".to_owned(),
            ))
        }
        SandboxStrategy::GitWorktree
            if ty.sandbox_strategy.value != SandboxStrategy::GitWorktree
                && !ty.chain.iter().any(|t| t.as_str() == "git-checkout") =>
        {
            Err(refuse(
                "git_worktree isolates git checkouts (git-checkout and its subtypes)".to_owned(),
            ))
        }
        _ => Ok(strategy),
    }
}
