//! Discovery after registration (`agents resource discover`): run the
//! handler's `discover` again and bring the stored children in line with
//! what it found — the home of the discovery engine.
//!
//! A stored auto-discovered child is *the same* as a found one when type,
//! name and location agree; it keeps its id and row (its properties and
//! hash are refreshed). Children no longer found go first — unlinked,
//! and removed with what only they kept (`removal::what_goes`) — so a
//! child that kept its name but moved is re-added under that name. New
//! children are then inserted; one whose name belongs to a resource that
//! is not a child found here is refused naming the handler. One
//! transaction; nothing is written if any part is refused.

use super::lookup::{find_row, load_one, load_resources};
use super::register::{check_types_unchanged_for, insert_child};
use super::removal::what_goes;
use super::{Registry, RegistryError};
use crate::model::{Resource, ResourceId, ResourceKey};
use crate::store::ResourceRow;
use serde::Serialize;

/// What `agents resource discover` changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscoveryReport {
    pub resource: Resource,
    /// Children found for the first time.
    pub added: Vec<Resource>,
    /// Discovered children no longer found (and the discovered resources
    /// only they kept).
    pub removed: Vec<Resource>,
    /// Children found again (their properties and hashes refreshed).
    pub kept: usize,
}

impl Registry {
    /// Re-run discovery for a resource: add children found for the first
    /// time, drop discovered children no longer found (with what only they
    /// kept), refresh the rest and the resource's content hash.
    pub fn discover(&mut self, key: &ResourceKey) -> Result<DiscoveryReport, RegistryError> {
        let (types, row) = self
            .store
            .read(|r| Ok::<_, RegistryError>((self.types.get(r)?, find_row(r, key)?)))?;
        let ty = types.resolve(&row.type_name)?;
        let handler = self.require_handler(&ty, &row, "discover")?;
        let now = self.now();
        let found = self.call_discover(&handler, &row)?;
        let found = self.child_rows(&types, &ty, &row, &handler, found, &now)?;
        let hash = self.call_content_hash(&handler, &row)?;
        let parent_id = row.id;
        let cache = &self.types;
        self.store.write(|w| {
            let current_types = cache.get(w)?;
            let relied_on =
                std::iter::once(&row.type_name).chain(found.iter().map(|c| &c.type_name));
            check_types_unchanged_for(&current_types, &types, relied_on, || {
                format!("the rediscovery of {}", row.label())
            })?;
            let stored: Vec<ResourceRow> = w
                .resources_by_ids(&w.children_of(parent_id)?)?
                .into_iter()
                .filter(|c| c.auto_discovered)
                .collect();
            let same = |a: &ResourceRow, b: &ResourceRow| {
                a.type_name == b.type_name && a.name == b.name && a.location == b.location
            };
            // Vanished children first, so their names are free again.
            let mut orphans: Vec<ResourceId> = Vec::new();
            for old in stored.iter().filter(|c| !found.iter().any(|f| same(c, f))) {
                w.delete_link(parent_id, old.id)?;
                if w.parents_of(old.id)?.is_empty() {
                    orphans.push(old.id);
                }
            }
            let (removed, _) = what_goes(w, &types, &orphans)?;
            let gone: Vec<ResourceId> = removed.iter().map(|r| r.resource_id).collect();
            w.delete_resources(&gone)?;
            let (mut added, mut kept) = (Vec::new(), 0);
            let mut inserter = w.resource_inserter()?;
            for (index, child) in found.iter().enumerate() {
                match stored.iter().find(|c| same(c, child)) {
                    Some(existing) => {
                        kept += 1;
                        w.update_resource_findings(
                            existing.id,
                            &child.properties,
                            child.content_hash.as_deref(),
                            &now,
                        )?;
                    }
                    None => {
                        insert_child(
                            w,
                            &mut inserter,
                            &handler.reference,
                            index,
                            &row,
                            child,
                            &now,
                        )?;
                        added.push(child.id);
                    }
                }
            }
            w.update_resource_findings(parent_id, &row.properties, hash.as_deref(), &now)?;
            let fresh = find_row(w, &ResourceKey::Id(parent_id))?;
            Ok(DiscoveryReport {
                resource: load_one(w, &types, fresh)?,
                added: load_resources(w, &types, &added)?,
                removed,
                kept,
            })
        })
    }
}
