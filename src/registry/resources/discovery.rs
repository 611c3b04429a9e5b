//! The discovery engine: visiting a resource and what lies below it,
//! level by level, calling each visited resource's handler (`discover`,
//! then `content-hash`), and bringing the stored children in line with
//! what was found — for registration and for `agents resource discover`.
//!
//! **Explore, then write.** Exploring ([`visit`]) makes every handler call
//! and checks every answer before anything is written; which found child
//! is which stored one is a pure decision apart from it
//! ([`matching::match_children`]); [`apply`] writes what was found in the
//! caller's one transaction. A stored auto-discovered child is *the same*
//! as a found one when type, name and location agree: it keeps its id and
//! row (properties and hash refreshed). Children no
//! longer found go first — unlinked, and removed with what only they kept
//! (`lookup::going::what_goes`) — so a child that kept its name but moved is
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

use crate::model::{HandlerRef, PropertyMap, ResolvedType, Resource, ResourceId, ResourceKey};
use crate::registry::args;
use crate::registry::lookup::{assemble, find_row, load_one};
use crate::registry::plugins::handlers::Handler;
use crate::registry::recording::{EventOp, Explored, MAX_LISTED};
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::ResourceRow;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::Arc;

/// How many levels registration explores below the new resource.
pub const REGISTRATION_DEPTH: u32 = 2;

/// The most resources one discovery may find (a guard against a tree no
/// one meant to register whole).
pub const MAX_FOUND: usize = 1_000_000;

/// How far a discovery goes below the resource it starts from (default:
/// its children, `Levels(1)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// This many levels (1: the resource's children).
    Levels(u32),
    /// Until nothing discovers anything more.
    All,
}

impl Default for Depth {
    fn default() -> Self {
        Self::Levels(1)
    }
}

impl Depth {
    fn allows(self, level: u32) -> bool {
        match self {
            Self::Levels(n) => level < n,
            Self::All => true,
        }
    }
}

/// How [`Registry::discover`] runs.
#[derive(Default)]
pub struct DiscoverOptions<'a> {
    /// How far below the resource (default: its children,
    /// `Depth::Levels(1)`).
    pub depth: Depth,
    /// Told how far it came after each handler call; answering `Break`
    /// stops it, nothing written (default: none).
    pub progress: Option<&'a mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>>,
}

impl std::fmt::Debug for DiscoverOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscoverOptions")
            .field("depth", &self.depth)
            .field("progress", &self.progress.as_ref().map(|_| "…"))
            .finish()
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
pub(crate) struct Found {
    pub row: ResourceRow,
    /// The resource it was found below.
    pub parent: ResourceId,
    pub parent_label: Arc<str>,
    /// The handler that found it, and where in its answer (none: a
    /// local-mode placeholder, which the rules made); shared by the
    /// children of one answer.
    pub handler: Option<Arc<HandlerRef>>,
    pub index: usize,
}

/// What an exploration found, before anything is written.
#[derive(Debug, Default)]
pub(crate) struct Findings {
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

impl Findings {
    /// Nothing to check or write: no child added, kept or gone, nothing
    /// read below a stored resource, the root's hash and exploration as
    /// stored (a registration whose handler found nothing).
    fn writes_nothing(&self) -> bool {
        self.added.is_empty()
            && self.kept.is_empty()
            && self.vanished.is_empty()
            && self.read.is_empty()
            && self.root_rehashed.is_none()
            && self.root_first_explored.is_none()
    }

    /// The event's account of what was added below the explored resource
    /// and what `removed` took; the rest of it is the caller's.
    pub(crate) fn explored(&self, removed: &[Resource]) -> Explored {
        let labels = self.added.iter().map(|f| f.row.label());
        Explored {
            added: (labels.take(MAX_LISTED).collect(), self.added.len()),
            gone: (
                removed
                    .iter()
                    .map(Resource::label)
                    .take(MAX_LISTED)
                    .collect(),
                removed.len(),
            ),
            ..Explored::default()
        }
    }
}

/// A stored resource found again: its fresh properties and hash, and
/// whether they differ from the stored ones (only a change is written).
#[derive(Debug)]
pub(crate) struct Refresh {
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

/// The work of [`Registry::discover`].
pub(crate) fn discover(
    reg: &mut Registry,
    key: &ResourceKey,
    depth: Depth,
    mut progress: Option<&mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>>,
) -> Result<DiscoveryReport, RegistryError> {
    reg.check_key_in_roots(key, "discovery")?;
    let _git = reg.git_snapshot();
    explore_again("the discovery", || {
        discover_once(reg, key, depth, progress.as_deref_mut())
    })
}

fn discover_once(
    reg: &mut Registry,
    key: &ResourceKey,
    depth: Depth,
    progress: Option<&mut (dyn FnMut(DiscoveryProgress) -> ControlFlow<()> + '_)>,
) -> Result<DiscoveryReport, RegistryError> {
    let (types, row) = reg
        .store
        .read(|r| Ok::<_, RegistryError>((reg.types.get(r)?, find_row(r, key)?)))?;
    let ty = types.resolve(&row.type_name)?;
    let root_id = row.id;
    let label = row.label();
    let (row, properties_changed, findings) = match reg.handler_for(&ty)? {
        // Local mode: no handler, but rules — their placeholders as
        // the rules are now.
        None if ty.has_discovery_rules() => {
            let findings = reg.placeholder_findings(&types, &ty, &row)?;
            (row, false, findings)
        }
        None => {
            return Err(crate::registry::plugins::handlers::no_handler(
                &ty, &row, "discover",
            ));
        }
        Some(handler) => {
            // The resource's own properties, fresh (validate again for
            // one someone registered), before what is below it.
            let properties = reg.fresh_properties(&handler, &ty, &row)?;
            let properties_changed = properties != row.properties;
            let row = ResourceRow { properties, ..row };
            let findings =
                reg.explore(&types, row.clone(), true, RootHash::Ask, depth, progress)?;
            (row, properties_changed, findings)
        }
    };
    let hash = match &findings.root_rehashed {
        Some((_, hash)) => hash.as_deref(),
        None => row.content_hash.as_deref(),
    };
    let root = RootUpdate {
        id: root_id,
        changed: properties_changed.then_some((&row.properties, hash)),
        clear_stale: false,
    };
    let (kept, updated) = (
        findings.kept.len(),
        findings.kept.iter().filter(|k| k.changed()).count(),
    );
    let (resource, removed) = reg.write_exploration(
        &types,
        &findings.types,
        || format!("the rediscovery of {label}"),
        &findings,
        root,
        |w, rec, removed| {
            let explored = Explored {
                updated,
                properties_changed,
                hash: findings
                    .root_rehashed
                    .as_ref()
                    .map(|(_, after)| (row.content_hash.clone(), after.clone())),
                ..findings.explored(&removed)
            };
            rec.explored(w, EventOp::ResourceDiscovered, &row, explored)?;
            let fresh = find_row(w, &ResourceKey::Id(root_id))?;
            Ok((load_one(w, &types, fresh)?, removed))
        },
    )?;
    // Assembled once the write is done, from the findings themselves
    // (moved, not copied): a wide tree's rows are held once, not twice.
    Ok(DiscoveryReport {
        resource,
        added: added_resources(&types, findings.added)?,
        removed,
        kept,
        updated,
    })
}

/// The resources an exploration added, as written: each row with its one
/// link (to the resource it was found below) and the links of what was
/// found below it — assembled from the findings, not read back.
fn added_resources(types: &TypeSet, found: Vec<Found>) -> Result<Vec<Resource>, RegistryError> {
    let mut below: HashMap<ResourceId, Vec<ResourceId>> = HashMap::new();
    for found in &found {
        below.entry(found.parent).or_default().push(found.row.id);
    }
    let mut added = found
        .into_iter()
        .map(|found| {
            let mut children = below.remove(&found.row.id).unwrap_or_default();
            children.sort();
            assemble(types, found.row, vec![found.parent], children)
        })
        .collect::<Result<Vec<_>, _>>()?;
    added.sort_by_key(|r| r.resource_id);
    Ok(added)
}

impl Registry {
    /// What `row`'s properties are now: for a resource someone registered,
    /// its stored arguments validated again and the handler's answer
    /// merged over them (as at registration); a discovered resource's come
    /// from its parent's answer and are kept.
    pub(crate) fn fresh_properties(
        &self,
        handler: &Handler,
        ty: &ResolvedType,
        row: &ResourceRow,
    ) -> Result<PropertyMap, RegistryError> {
        if row.auto_discovered {
            return Ok(row.properties.clone());
        }
        let arg_names: HashSet<&str> = ty.args().map(|a| a.name.as_str()).collect();
        let args_only = ResourceRow {
            properties: row
                .properties
                .iter()
                .filter(|(k, _)| arg_names.contains(k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            ..row.clone()
        };
        let mut properties = args_only.properties.clone();
        for (key, value) in self.call_validate(handler, &args_only)? {
            if key != args::LOCATION_ARG {
                properties.insert(key, Value::String(value));
            }
        }
        Ok(properties)
    }
}

mod apply;
mod matching;
mod placeholders;
mod visit;
pub(in crate::registry) use apply::{RootUpdate, explore_again, insert_new, write_findings};
pub(in crate::registry) use matching::identity;
pub(in crate::registry) use visit::RootHash;
