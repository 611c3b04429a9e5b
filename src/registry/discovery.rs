//! The discovery engine: visiting a resource and what lies below it,
//! level by level, calling each visited resource's handler (`discover`,
//! then `content-hash`), and bringing the stored children in line with
//! what was found — for registration and for `agents resource discover`.
//!
//! **Explore, then write.** [`Registry::explore`] makes every handler call
//! and checks every answer before anything is written; [`apply`] writes
//! what it found in the caller's one transaction. A stored auto-discovered
//! child is *the same* as a found one when type, name and location agree:
//! it keeps its id and row (properties and hash refreshed). Children no
//! longer found go first — unlinked, and removed with what only they kept
//! (`removal::what_goes`) — so a child that kept its name but moved is
//! re-added under that name; new children are then inserted, and a name
//! that is taken is the handler's collision.
//!
//! A resource found below the starting one is explored only when its
//! location exists on disk (a child named where nothing is yet, or with no
//! location at all, is recorded, not visited).
//!
//! **How deep.** Registration explores [`REGISTRATION_DEPTH`] levels: the
//! resource's children and theirs (a checkout's repository and files, the
//! repository's branches, tags, remotes, stashes and submodules). Deeper
//! levels — a branch's commit, a commit's tree, a directory's
//! subdirectories below the second level — are explored on demand
//! (`agents resource discover NAME --depth N` or `--recursive`).

use super::lookup::{find_row, load_one, load_resources};
use super::register::{check_types_unchanged_for, insert_child};
use super::removal::what_goes;
use super::type_set::TypeSet;
use super::{Registry, RegistryError};
use crate::model::{HandlerRef, PropertyMap, Resource, ResourceId, ResourceKey};
use crate::store::{ResourceRow, Writer};
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;

/// How many levels registration explores below the new resource.
pub const REGISTRATION_DEPTH: u32 = 2;

/// The most resources one discovery may find (a guard against a tree no
/// one meant to register whole).
pub const MAX_FOUND: usize = 1_000_000;

/// How far a discovery goes below the resource it starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// This many levels (1: the resource's children).
    Levels(u32),
    /// Until nothing discovers anything more.
    All,
}

impl Depth {
    fn allows(self, level: u32) -> bool {
        match self {
            Self::Levels(n) => level < n,
            Self::All => true,
        }
    }
}

/// How far a long discovery has come (for a caller that shows progress).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoveryProgress {
    /// Resources whose handler was asked so far.
    pub visited: usize,
    /// Resources found so far.
    pub found: usize,
}

/// What `agents resource discover` changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscoveryReport {
    pub resource: Resource,
    /// Resources found for the first time (at every level explored).
    pub added: Vec<Resource>,
    /// Discovered resources no longer found (and what only they kept).
    pub removed: Vec<Resource>,
    /// Resources found again (their properties and hashes refreshed).
    pub kept: usize,
}

/// A new resource an exploration found.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub row: ResourceRow,
    /// The resource it was found below.
    pub parent: ResourceId,
    pub parent_label: String,
    /// The handler that found it, and where in its answer.
    pub handler: HandlerRef,
    pub index: usize,
}

/// What an exploration found, before anything is written.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// New resources, parents before children.
    pub added: Vec<Found>,
    /// Stored resources found again: (id, fresh properties, fresh hash).
    pub kept: Vec<(ResourceId, PropertyMap, Option<String>)>,
    /// Links from a visited resource to a stored child no longer found.
    pub vanished: Vec<(ResourceId, ResourceId)>,
    /// Stored resources visited, with their fresh content hash.
    pub hashes: Vec<(ResourceId, Option<String>)>,
    /// The new root's hash, when the root is not stored yet.
    pub root_hash: Option<String>,
    /// Every type a child was checked against (re-checked at the write).
    pub types: Vec<crate::model::TypeName>,
}

/// One resource waiting to be visited.
struct Visit {
    row: ResourceRow,
    level: u32,
    /// Stored already (its children are matched against the stored ones).
    stored: bool,
    /// Where its row is in `Findings::added`, if it is new.
    added_at: Option<usize>,
}

impl Registry {
    /// Visit `root` and what lies below it, `depth` levels: every handler
    /// call, every check, nothing written. `root_stored` says whether the
    /// root is in the registry already (a rediscovery) or about to be
    /// (a registration).
    pub(super) fn explore(
        &self,
        types: &TypeSet,
        root: ResourceRow,
        root_stored: bool,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress),
    ) -> Result<Findings, RegistryError> {
        let now = self.now();
        let mut findings = Findings::default();
        let mut queue = VecDeque::from([Visit {
            row: root,
            level: 0,
            stored: root_stored,
            added_at: None,
        }]);
        let mut visited = 0;
        while let Some(visit) = queue.pop_front() {
            // Below the starting resource, one with no location on disk
            // (none given, or not there yet) is found but not explored:
            // there is nothing for its handler to look at.
            if visit.level > 0
                && visit
                    .row
                    .location
                    .as_deref()
                    .is_none_or(|l| std::fs::symlink_metadata(l).is_err())
            {
                continue;
            }
            let ty = types.resolve(&visit.row.type_name)?;
            let Some(handler) = self.handler_for(&ty)? else {
                continue;
            };
            visited += 1;
            // A resource whose type does not discover is visited for its
            // hash only: its stored children are neither compared nor
            // touched.
            let discovers = ty.discovery().is_none_or(|a| a.enabled) && depth.allows(visit.level);
            let children = if discovers {
                let found = self.call_discover(&handler, &visit.row)?;
                self.child_rows(types, &ty, &visit.row, &handler, found, &now)?
            } else {
                Vec::new()
            };
            let hash = self.call_content_hash(&handler, &visit.row)?;
            match (visit.level, visit.stored, visit.added_at) {
                (0, false, _) => findings.root_hash = hash,
                (_, true, _) => findings.hashes.push((visit.row.id, hash)),
                (_, false, Some(at)) => findings.added[at].row.content_hash = hash,
                (_, false, None) => {}
            }
            let stored_children = if visit.stored && discovers {
                let id = visit.row.id;
                self.store.read(|r| {
                    Ok::<_, RegistryError>(
                        r.resources_by_ids(&r.children_of(id)?)?
                            .into_iter()
                            .filter(|c| c.auto_discovered)
                            .collect::<Vec<_>>(),
                    )
                })?
            } else {
                Vec::new()
            };
            let same = |a: &ResourceRow, b: &ResourceRow| {
                a.type_name == b.type_name && a.name == b.name && a.location == b.location
            };
            for old in stored_children
                .iter()
                .filter(|c| !children.iter().any(|f| same(c, f)))
            {
                findings.vanished.push((visit.row.id, old.id));
            }
            for (index, child) in children.into_iter().enumerate() {
                if !findings.types.contains(&child.type_name) {
                    findings.types.push(child.type_name.clone());
                }
                let next = match stored_children.iter().find(|c| same(c, &child)) {
                    Some(existing) => {
                        findings.kept.push((
                            existing.id,
                            child.properties.clone(),
                            child.content_hash.clone(),
                        ));
                        Visit {
                            row: ResourceRow {
                                properties: child.properties,
                                content_hash: child.content_hash,
                                ..existing.clone()
                            },
                            level: visit.level + 1,
                            stored: true,
                            added_at: None,
                        }
                    }
                    None => {
                        findings.added.push(Found {
                            row: child.clone(),
                            parent: visit.row.id,
                            parent_label: visit.row.label(),
                            handler: handler.reference.clone(),
                            index,
                        });
                        Visit {
                            row: child,
                            level: visit.level + 1,
                            stored: false,
                            added_at: Some(findings.added.len() - 1),
                        }
                    }
                };
                // What the last level finds is not visited: its hash came
                // with the answer, and its children are for a deeper run.
                if depth.allows(next.level) {
                    queue.push_back(next);
                }
            }
            let found = findings.added.len() + findings.kept.len();
            if found > MAX_FOUND {
                return Err(RegistryError::DiscoveryTooLarge { limit: MAX_FOUND });
            }
            progress(DiscoveryProgress { visited, found });
        }
        Ok(findings)
    }

    /// Run discovery again below a resource, `depth` levels (1: its
    /// children): add what is found for the first time, drop discovered
    /// resources no longer found (with what only they kept), refresh the
    /// rest and the hashes of everything visited. One transaction.
    pub fn discover(&mut self, key: &ResourceKey) -> Result<DiscoveryReport, RegistryError> {
        self.discover_with(key, Depth::Levels(1), &mut |_| {})
    }

    /// [`Registry::discover`] to `depth`, telling `progress` how far it came.
    pub fn discover_with(
        &mut self,
        key: &ResourceKey,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress),
    ) -> Result<DiscoveryReport, RegistryError> {
        let (types, row) = self
            .store
            .read(|r| Ok::<_, RegistryError>((self.types.get(r)?, find_row(r, key)?)))?;
        let ty = types.resolve(&row.type_name)?;
        self.require_handler(&ty, &row, "discover")?;
        let root_id = row.id;
        let label = row.label();
        let findings = self.explore(&types, row, true, depth, progress)?;
        let now = self.now();
        let cache = &self.types;
        self.store.write(|w| {
            let current = cache.get(w)?;
            check_types_unchanged_for(&current, &types, &findings.types, || {
                format!("the rediscovery of {label}")
            })?;
            let applied = apply(w, &types, &findings, &now)?;
            let fresh = find_row(w, &ResourceKey::Id(root_id))?;
            Ok(DiscoveryReport {
                resource: load_one(w, &types, fresh)?,
                added: load_resources(w, &types, &applied.added)?,
                removed: applied.removed,
                kept: findings.kept.len(),
            })
        })
    }
}

/// What [`apply`] did.
pub(super) struct Applied {
    pub added: Vec<ResourceId>,
    pub removed: Vec<Resource>,
}

/// Write `findings` in the caller's transaction: vanished links first (and
/// what only they kept), then new rows and their links, then refreshed
/// properties and hashes.
pub(super) fn apply(
    w: &Writer<'_>,
    types: &Arc<TypeSet>,
    findings: &Findings,
    now: &str,
) -> Result<Applied, RegistryError> {
    let mut orphans: Vec<ResourceId> = Vec::new();
    for (parent, child) in &findings.vanished {
        w.delete_link(*parent, *child)?;
        if w.parents_of(*child)?.is_empty() && !orphans.contains(child) {
            orphans.push(*child);
        }
    }
    let (removed, _) = what_goes(w, types, &orphans)?;
    let gone: Vec<ResourceId> = removed.iter().map(|r| r.resource_id).collect();
    w.delete_resources(&gone)?;
    let mut inserter = w.resource_inserter()?;
    for found in &findings.added {
        insert_child(w, &mut inserter, found, now)?;
    }
    for (id, properties, hash) in &findings.kept {
        w.update_resource_findings(*id, properties, hash.as_deref(), now)?;
    }
    for (id, hash) in &findings.hashes {
        w.update_resource_hash(*id, hash.as_deref(), now)?;
    }
    Ok(Applied {
        added: findings.added.iter().map(|f| f.row.id).collect(),
        removed,
    })
}
