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

use super::lookup::{assemble, find_row, load_one};
use super::register::check_types_unchanged_for;
use super::type_set::TypeSet;
use super::{Registry, RegistryError};
use crate::model::{
    HandlerRef, PropertyMap, Resource, ResourceId, ResourceKey, ResourceName, TypeName,
};
use crate::store::ResourceRow;
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};
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
    /// Resources found again.
    pub kept: usize,
    /// Of those, how many had changed (new properties or hash, written).
    pub updated: usize,
}

/// A new resource an exploration found.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub row: ResourceRow,
    /// The resource it was found below.
    pub parent: ResourceId,
    pub parent_label: Arc<str>,
    /// The handler that found it, and where in its answer (none: a
    /// local-mode placeholder, which the rules made).
    pub handler: Option<HandlerRef>,
    pub index: usize,
}

/// What an exploration found, before anything is written.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// New resources, parents before children.
    pub added: Vec<Found>,
    /// Stored resources found again, with what was found of them now.
    pub kept: Vec<Refresh>,
    /// Links from a visited resource to a stored child no longer found.
    pub vanished: Vec<(ResourceId, ResourceId)>,
    /// The stored root's fresh hash, when it changed.
    pub root_rehashed: Option<(ResourceId, Option<String>)>,
    /// The new root's hash, when the root is not stored yet.
    pub root_hash: Option<String>,
    /// Whether the root's handler listed its children.
    pub root_explored: bool,
    /// The stored root, when its handler listed its children for the
    /// first time (its `discovered_at` is to be written).
    pub root_first_explored: Option<ResourceId>,
    /// Every type a child was checked against (re-checked at the write).
    pub types: Vec<crate::model::TypeName>,
    /// The children each stored resource had when it was explored, in id
    /// order: what `added`, `kept` and `vanished` were decided against
    /// (re-checked at the write).
    pub read: Vec<(ResourceId, Vec<ResourceId>)>,
}

/// A stored resource found again: its fresh properties and hash, and
/// whether they differ from the stored ones (only a change is written).
#[derive(Debug)]
pub(super) struct Refresh {
    pub id: ResourceId,
    pub properties: PropertyMap,
    pub content_hash: Option<String>,
    pub properties_changed: bool,
    pub stored_hash: Option<String>,
    /// Its handler listed its children now, for the first time (so
    /// `discovered_at` is to be written).
    pub first_explored: bool,
}

impl Refresh {
    /// What its parent's answer says of it differs from what is stored.
    pub fn answer_changed(&self) -> bool {
        self.properties_changed || self.content_hash != self.stored_hash
    }

    fn changed(&self) -> bool {
        self.properties_changed || self.content_hash != self.stored_hash || self.first_explored
    }
}

/// One resource waiting to be visited.
struct Visit {
    row: ResourceRow,
    level: u32,
    /// Stored already (its children are matched against the stored ones).
    stored: bool,
    /// Where what was found of it is kept in `Findings`.
    slot: Slot,
}

#[derive(Clone, Copy)]
enum Slot {
    /// The resource discovery started from.
    Root,
    /// `Findings::added[i]`.
    Added(usize),
    /// `Findings::kept[i]`.
    Kept(usize),
}

impl Registry {
    /// Visit `root` and what lies below it, `depth` levels: every handler
    /// call, every check, nothing written. `root_stored` says whether the
    /// root is in the registry already (a rediscovery) or about to be
    /// (a registration); `root_hash`, when the caller has just asked the
    /// root's handler for its hash, saves asking again.
    pub(super) fn explore(
        &self,
        types: &TypeSet,
        root: ResourceRow,
        root_stored: bool,
        root_hash: Option<Option<String>>,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress),
    ) -> Result<Findings, RegistryError> {
        let now = self.now();
        let mut findings = Findings::default();
        let mut queue = VecDeque::from([Visit {
            row: root,
            level: 0,
            stored: root_stored,
            slot: Slot::Root,
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
                self.child_rows(types, &ty, &visit.row, &handler.reference, found, &now)?
            } else {
                Vec::new()
            };
            let hash = match (visit.slot, &root_hash) {
                (Slot::Root, Some(known)) => known.clone(),
                _ => self.call_content_hash(&handler, &visit.row)?,
            };
            if discovers {
                match visit.slot {
                    Slot::Root => {
                        findings.root_explored = true;
                        if visit.stored && visit.row.discovered_at.is_none() {
                            findings.root_first_explored = Some(visit.row.id);
                        }
                    }
                    Slot::Added(at) => findings.added[at].row.discovered_at = Some(now.clone()),
                    Slot::Kept(at) => {
                        findings.kept[at].first_explored = visit.row.discovered_at.is_none()
                    }
                }
            }
            match visit.slot {
                Slot::Root if !visit.stored => findings.root_hash = hash,
                Slot::Root => {
                    if hash != visit.row.content_hash {
                        findings.root_rehashed = Some((visit.row.id, hash));
                    }
                }
                Slot::Added(at) => findings.added[at].row.content_hash = hash,
                Slot::Kept(at) => findings.kept[at].content_hash = hash,
            }
            let stored_children = if visit.stored && discovers {
                let id = visit.row.id;
                let all = self.store.read(|r| r.children_rows(id))?;
                let mut ids: Vec<ResourceId> = all.iter().map(|c| c.id).collect();
                ids.sort();
                findings.read.push((id, ids));
                all.into_iter()
                    .filter(|c| c.auto_discovered)
                    .collect::<Vec<_>>()
            } else {
                Vec::new()
            };
            // A child is the same resource as a stored one when type, name
            // and location agree.
            let by_identity: HashMap<Identity<'_>, &ResourceRow> =
                stored_children.iter().map(|c| (identity(c), c)).collect();
            let found_now: HashSet<Identity<'_>> = children.iter().map(identity).collect();
            for old in stored_children
                .iter()
                .filter(|c| !found_now.contains(&identity(c)))
            {
                findings.vanished.push((visit.row.id, old.id));
            }
            drop(found_now);
            let parent_label: Arc<str> = visit.row.label().into();
            for (index, child) in children.into_iter().enumerate() {
                if !findings.types.contains(&child.type_name) {
                    findings.types.push(child.type_name.clone());
                }
                let level = visit.level + 1;
                // What the last level finds is not visited: its hash came
                // with the answer, and its children are for a deeper run.
                // Nor is a leaf (its type does not discover) whose hash
                // came with the answer: a visit would learn nothing.
                let visit_it = depth.allows(level) && !leaf_known(types, &child)?;
                match by_identity.get(&identity(&child)).copied() {
                    Some(existing) => {
                        let properties_changed = existing.properties != child.properties;
                        let stored_hash = existing.content_hash.clone();
                        // Not visited and no hash in the answer: what was
                        // learnt of it before still holds (a child below
                        // the explored depth keeps its hash).
                        let content_hash = match child.content_hash {
                            None if !visit_it => stored_hash.clone(),
                            hash => hash,
                        };
                        if visit_it {
                            queue.push_back(Visit {
                                row: ResourceRow {
                                    properties: child.properties.clone(),
                                    content_hash: content_hash.clone(),
                                    ..existing.clone()
                                },
                                level,
                                stored: true,
                                slot: Slot::Kept(findings.kept.len()),
                            });
                        }
                        findings.kept.push(Refresh {
                            id: existing.id,
                            properties: child.properties,
                            content_hash,
                            properties_changed,
                            stored_hash,
                            first_explored: false,
                        });
                    }
                    None => {
                        if visit_it {
                            queue.push_back(Visit {
                                row: child.clone(),
                                level,
                                stored: false,
                                slot: Slot::Added(findings.added.len()),
                            });
                        }
                        findings.added.push(Found {
                            row: child,
                            parent: visit.row.id,
                            parent_label: parent_label.clone(),
                            handler: Some(handler.reference.clone()),
                            index,
                        });
                    }
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
    /// When another process changes what it explored before it could write
    /// (the same discovery run twice at once), it explores again.
    pub fn discover_with(
        &mut self,
        key: &ResourceKey,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress),
    ) -> Result<DiscoveryReport, RegistryError> {
        let _git = self.git_snapshot();
        let mut attempt = 1;
        loop {
            match self.discover_once(key, depth, progress) {
                Err(RegistryError::ChangedMeanwhile { .. }) if attempt < ATTEMPTS => {
                    log::info!("what the discovery explored changed meanwhile; exploring again");
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    fn discover_once(
        &mut self,
        key: &ResourceKey,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress),
    ) -> Result<DiscoveryReport, RegistryError> {
        let (types, row) = self
            .store
            .read(|r| Ok::<_, RegistryError>((self.types.get(r)?, find_row(r, key)?)))?;
        let ty = types.resolve(&row.type_name)?;
        let root_id = row.id;
        let label = row.label();
        let (row, properties_changed, findings) = match self.handler_for(&ty)? {
            // Local mode: no handler, but rules — their placeholders as
            // the rules are now.
            None if super::register::has_rules(&ty) => {
                let findings = self.placeholder_findings(&types, &ty, &row)?;
                (row, false, findings)
            }
            None => return Err(super::handlers::no_handler(&ty, &row, "discover")),
            Some(handler) => {
                // The resource's own properties, fresh (validate again for
                // one someone registered), before what is below it.
                let properties = self.fresh_properties(&handler, &ty, &row)?;
                let properties_changed = properties != row.properties;
                let row = ResourceRow { properties, ..row };
                let findings = self.explore(&types, row.clone(), true, None, depth, progress)?;
                (row, properties_changed, findings)
            }
        };
        let now = self.now();
        let cache = &self.types;
        let (ids, clock) = (&self.ids, &self.clock);
        self.store.write(|w| {
            let current = cache.get(w)?;
            check_types_unchanged_for(&current, &types, &findings.types, || {
                format!("the rediscovery of {label}")
            })?;
            let removed = apply(w, &types, &findings, &now)?;
            super::equivalence::reconcile(w, &types, &|| ids.next_id(clock.now()), &now)?;
            if properties_changed {
                let hash = match &findings.root_rehashed {
                    Some((_, hash)) => hash.as_deref(),
                    None => row.content_hash.as_deref(),
                };
                w.update_resource_findings(root_id, &row.properties, hash, &now)?;
            }
            let fresh = find_row(w, &ResourceKey::Id(root_id))?;
            Ok(DiscoveryReport {
                resource: load_one(w, &types, fresh)?,
                added: added_resources(&types, &findings)?,
                removed,
                kept: findings.kept.len(),
                updated: findings.kept.iter().filter(|k| k.changed()).count(),
            })
        })
    }
}

/// The resources an exploration added, as written: each row with its one
/// link (to the resource it was found below) and the links of what was
/// found below it — assembled from the findings, not read back.
fn added_resources(types: &TypeSet, findings: &Findings) -> Result<Vec<Resource>, RegistryError> {
    let mut below: HashMap<ResourceId, Vec<ResourceId>> = HashMap::new();
    for found in &findings.added {
        below.entry(found.parent).or_default().push(found.row.id);
    }
    let mut added = findings
        .added
        .iter()
        .map(|found| {
            let mut children = below.remove(&found.row.id).unwrap_or_default();
            children.sort();
            assemble(types, found.row.clone(), vec![found.parent], children)
        })
        .collect::<Result<Vec<_>, _>>()?;
    added.sort_by_key(|r| r.resource_id);
    Ok(added)
}

/// What makes a discovered child the same resource as a stored one.
type Identity<'a> = (&'a TypeName, Option<&'a ResourceName>, Option<&'a str>);

pub(super) fn identity(row: &ResourceRow) -> Identity<'_> {
    (&row.type_name, row.name.as_ref(), row.location.as_deref())
}

/// A found resource whose type does not discover and whose hash came with
/// its parent's answer: visiting it would call its handler for a hash
/// already known and for children its type does not have.
fn leaf_known(types: &TypeSet, row: &ResourceRow) -> Result<bool, RegistryError> {
    Ok(row.content_hash.is_some()
        && types
            .resolve(&row.type_name)?
            .discovery()
            .is_some_and(|a| !a.enabled))
}

mod apply;
pub(super) use apply::{ATTEMPTS, apply};
