//! From keys to rows to resources: the one home of how a key names a
//! stored row and how a row becomes the [`Resource`] the API hands out
//! (its links and the capabilities derived from its type); and of what
//! removing resources takes along (`going`). Shared by every concern
//! that acts on a resource, so none of them reads rows through another.

pub(in crate::registry) mod at_path;
pub(in crate::registry) mod going;

use crate::model::{Resource, ResourceCapabilities, ResourceId, ResourceKey};
use crate::registry::ResourcesError;
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::{Reader, ResourceRow};

impl Registry {
    /// [`Registry::check_location_in_roots`] for the resource `key` names.
    pub(in crate::registry) fn check_key_in_roots(
        &self,
        key: &ResourceKey,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        if self.roots.is_none() {
            return Ok(());
        }
        let row = self.store.read(|r| find_row(r, key))?;
        self.check_location_in_roots(row.location.as_deref(), action)
    }

    /// The resource `key` names, with its links and equivalents (what
    /// `show_resource` answers).
    pub(in crate::registry) fn resource(
        &self,
        key: &ResourceKey,
    ) -> Result<Resource, RegistryError> {
        self.store
            .read(|r| load_one(r, &*self.types.get(r)?, find_row(r, key)?))
    }
}

/// The row `key` names.
pub(crate) fn find_row(r: &Reader<'_>, key: &ResourceKey) -> Result<ResourceRow, RegistryError> {
    let found = match key {
        ResourceKey::Id(id) => r.resource_by_id(*id)?,
        ResourceKey::Name(name) => r.resource_by_name(name)?,
        ResourceKey::Location { path, type_name } => {
            return at_path::row_at(r, path, type_name.as_ref());
        }
    };
    found.ok_or_else(|| {
        RegistryError::Resources(ResourcesError::ResourceNotFound { key: key.clone() })
    })
}

/// The rows `keys` name, in their order; none named: every resource
/// someone registered (what `refresh` and `watch` act on).
pub(crate) fn rows_named(
    r: &Reader<'_>,
    keys: &[ResourceKey],
) -> Result<Vec<ResourceRow>, RegistryError> {
    if keys.is_empty() {
        return Ok(r.registered_resources()?);
    }
    keys.iter().map(|k| find_row(r, k)).collect()
}

/// `row` with its links, assembled.
pub(crate) fn load_one(
    r: &Reader<'_>,
    types: &TypeSet,
    row: ResourceRow,
) -> Result<Resource, RegistryError> {
    let (p, c) = (r.parents_of(row.id)?, r.children_of(row.id)?);
    let equivalents = r.equivalents(row.id)?;
    let mut resource = assemble(types, row, p, c)?;
    resource.equivalents = equivalents;
    Ok(resource)
}

/// The resources `ids` (in id order), assembled.
pub(crate) fn load_resources(
    r: &Reader<'_>,
    types: &TypeSet,
    ids: &[ResourceId],
) -> Result<Vec<Resource>, RegistryError> {
    assemble_rows(r, types, r.resources_by_ids(ids)?)
}

/// `rows`, each with its links, assembled (in the order given).
pub(in crate::registry) fn assemble_rows(
    r: &Reader<'_>,
    types: &TypeSet,
    rows: Vec<ResourceRow>,
) -> Result<Vec<Resource>, RegistryError> {
    let ids: Vec<_> = rows.iter().map(|row| row.id).collect();
    let (mut children, mut parents) = r.links_of(&ids)?;
    rows.into_iter()
        .map(|row| {
            let (p, c) = (
                parents.remove(&row.id).unwrap_or_default(),
                children.remove(&row.id).unwrap_or_default(),
            );
            assemble(types, row, p, c)
        })
        .collect()
}

/// A stored row plus its links and derived capabilities.
pub(crate) fn assemble(
    types: &TypeSet,
    row: ResourceRow,
    parents: Vec<ResourceId>,
    children: Vec<ResourceId>,
) -> Result<Resource, RegistryError> {
    let ty = types.resolve(&row.type_name)?;
    let strategy = row.sandbox_strategy.unwrap_or(ty.sandbox_strategy());
    Ok(Resource {
        resource_id: row.id,
        name: row.name,
        resource_type_name: row.type_name,
        kind: row.kind,
        description: row.description,
        location: row.location,
        sandbox_strategy: row.sandbox_strategy,
        content_hash: row.content_hash,
        parents,
        children,
        properties: row.properties,
        capabilities: ResourceCapabilities::derive(ty.type_capabilities(), strategy, row.read_only),
        created_at: row.created_at,
        updated_at: row.updated_at,
        auto_discovered: row.auto_discovered,
        read_only: row.read_only,
        stale: row.stale,
        equivalents: Vec::new(),
        registered_by: row.registered_by,
    })
}
