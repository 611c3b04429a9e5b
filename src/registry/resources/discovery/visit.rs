//! Visiting: the queue of resources to explore, level by level, and what
//! touches the world for each — the filesystem probe that says whether
//! there is anything to look at, the handler's `discover` and
//! `content-hash` calls, the read of what is stored below. Which found
//! child is which stored one is [`match_children`]'s to say; this module
//! only records its answer in the [`Findings`].

use super::matching::{Child, FoundChild, match_children};
use super::{Depth, DiscoveryProgress, Findings, Found, MAX_FOUND};
use crate::model::{HandlerRef, ResourceId};
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError, ResourcesError};
use crate::store::ResourceRow;
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;

/// The root's hash, as the caller of [`Registry::explore`] has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::registry) enum RootHash {
    /// Not asked yet: the root's handler is asked, as for every visited
    /// resource.
    Ask,
    /// The caller has just asked the root's handler: this is its answer
    /// (`None`: the handler has no hash for it), not to be asked again.
    Known(Option<String>),
}

/// One resource waiting to be visited.
struct Visit {
    row: ResourceRow,
    level: u32,
    /// Stored already (its children are matched against the stored ones).
    stored: bool,
    /// Where what was found of it is kept in `Findings`.
    slot: Slot,
    /// The handler whose answer named it (none for the root): a refusal
    /// of it by its own type's handler is that answer's, and names it.
    answered_by: Option<HandlerRef>,
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
    /// (a registration); `root_hash` whether the caller has just asked the
    /// root's handler for its hash.
    pub(in crate::registry) fn explore(
        &self,
        types: &TypeSet,
        root: ResourceRow,
        root_stored: bool,
        root_hash: RootHash,
        depth: Depth,
        mut progress: Option<&mut (dyn FnMut(DiscoveryProgress) -> ControlFlow<()> + '_)>,
    ) -> Result<Findings, RegistryError> {
        let now = self.now();
        let mut findings = Findings::default();
        let root_label = root.label();
        let mut queue = VecDeque::from([Visit {
            row: root,
            level: 0,
            stored: root_stored,
            slot: Slot::Root,
            answered_by: None,
        }]);
        let mut visited = 0;
        while let Some(visit) = queue.pop_front() {
            // Below the starting resource, one with no location on disk
            // (none given, or not there yet) is found but not explored:
            // there is nothing for its handler to look at.
            if visit.level > 0 && !on_disk(visit.row.location.as_deref()) {
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
            let disowned = |e| disowned(e, visit.answered_by.as_ref(), &visit.row);
            let children = if discovers {
                let found = self.call_discover(&handler, &visit.row).map_err(disowned)?;
                self.child_rows(types, &ty, &visit.row, &handler.reference, found, &now)?
            } else {
                Vec::new()
            };
            let hash = match (visit.slot, &root_hash) {
                (Slot::Root, RootHash::Known(known)) => known.clone(),
                _ => self
                    .call_content_hash(&handler, &visit.row)
                    .map_err(disowned)?,
            };
            let first_explored = discovers && visit.row.discovered_at.is_none();
            match visit.slot {
                Slot::Root => {
                    findings.root_explored = discovers;
                    if visit.stored && first_explored {
                        findings.root_first_explored = Some(visit.row.id);
                    }
                    if !visit.stored {
                        findings.root_hash = hash;
                    } else if hash != visit.row.content_hash {
                        findings.root_rehashed = Some((visit.row.id, hash));
                    }
                }
                Slot::Added(at) => {
                    let row = &mut findings.added[at].row;
                    row.discovered_at = discovers.then(|| now.clone());
                    row.content_hash = hash;
                }
                Slot::Kept(at) => {
                    findings.kept[at].first_explored = first_explored;
                    findings.kept[at].content_hash = hash;
                }
            }
            let stored_children = if visit.stored && discovers {
                let id = visit.row.id;
                let all = self.store.read(|r| r.children_rows(id))?;
                let mut ids: Vec<ResourceId> = all.iter().map(|c| c.id).collect();
                ids.sort();
                findings.read.push((id, ids));
                all
            } else {
                Vec::new()
            };
            let level = visit.level + 1;
            let mut found = Vec::with_capacity(children.len());
            for child in children {
                if !findings.types.contains(&child.type_name) {
                    findings.types.push(child.type_name.clone());
                }
                // What the last level finds is not visited: its hash came
                // with the answer, and its children are for a deeper run.
                // Nor is a leaf (its type does not discover) whose hash
                // came with the answer: a visit would learn nothing.
                let visit = depth.allows(level) && !leaf_known(types, &child)?;
                found.push(FoundChild { row: child, visit });
            }
            let matched = match_children(&stored_children, found);
            findings
                .vanished
                .extend(matched.vanished.iter().map(|old| (visit.row.id, *old)));
            let parent_label: Arc<str> = visit.row.label().into();
            let found_by = Arc::new(handler.reference.clone());
            let mut visit_next = |row, stored, slot| {
                queue.push_back(Visit {
                    row,
                    level,
                    stored,
                    slot,
                    answered_by: Some(handler.reference.clone()),
                });
            };
            for (index, child) in matched.children.into_iter().enumerate() {
                match child {
                    Child::Kept(refresh, visit_row) => {
                        if let Some(row) = visit_row {
                            visit_next(row, true, Slot::Kept(findings.kept.len()));
                        }
                        findings.kept.push(refresh);
                    }
                    Child::Added(FoundChild {
                        row,
                        visit: visit_it,
                    }) => {
                        if visit_it {
                            let slot = Slot::Added(findings.added.len());
                            visit_next(row.clone(), false, slot);
                        }
                        findings.added.push(Found {
                            row,
                            parent: visit.row.id,
                            parent_label: parent_label.clone(),
                            handler: Some(found_by.clone()),
                            index,
                        });
                    }
                }
            }
            let found = findings.added.len() + findings.kept.len();
            if found > MAX_FOUND {
                return Err(ResourcesError::DiscoveryTooLarge { limit: MAX_FOUND }.into());
            }
            let heard = progress
                .as_mut()
                .map(|p| p(DiscoveryProgress { visited, found }));
            if heard == Some(ControlFlow::Break(())) {
                return Err(ResourcesError::Cancelled {
                    resource: root_label,
                }
                .into());
            }
        }
        Ok(findings)
    }
}

/// A child's own handler refusing it (its `discover` or `content-hash`
/// answering the handler's error — not a trap, which is that handler's
/// own fault) is a refusal of the answer that named it: a component that
/// says a FIFO is an `fs-directory` is the one to blame, not the fs
/// handler that finds it is not.
fn disowned(
    e: RegistryError,
    answered_by: Option<&HandlerRef>,
    row: &ResourceRow,
) -> RegistryError {
    match (e, answered_by) {
        (RegistryError::Handler(call), Some(handler))
            if matches!(call.kind, crate::plugin::CallErrorKind::Handler(_)) =>
        {
            ResourcesError::ChildDisowned {
                handler: Box::new(handler.clone()),
                child: format!(
                    "{} ({} at {})",
                    row.label(),
                    row.type_name,
                    row.location.as_deref().unwrap_or("no location")
                ),
                source: call,
            }
            .into()
        }
        (e, _) => e,
    }
}

/// Is there anything at `location` for a handler to look at (a symlink
/// counts: the handler sees it as it is)?
fn on_disk(location: Option<&str>) -> bool {
    location.is_some_and(|l| std::fs::symlink_metadata(l).is_ok())
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
