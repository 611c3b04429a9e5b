//! Change detection: bringing stored resources in line with what is on
//! disk now (`agents resource refresh`, and `watch`, which refreshes what
//! a notification touched).
//!
//! **Changed** means the handler's `content-hash` differs from the stored
//! one. An unchanged resource costs that one call and is not written; its
//! explored children are then checked the same way (a change deeper down
//! shows in the hash of the resource it happened in, not necessarily in
//! its parents'). A changed resource is brought up to date in one
//! transaction of its own: `validate` again with its stored arguments
//! (for a resource someone registered: fresh properties), the new hash,
//! and one level of rediscovery — new children added, vanished ones
//! removed with what only they kept, the others updated where they
//! changed. Children whose properties or hash changed in that answer are
//! checked next even if their own hash reads the same (their stored hash
//! was just updated by the answer).
//!
//! **Only what was explored.** A resource whose handler never listed its
//! children (`discovered_at` is empty: it was found at the edge of a
//! registration or discovery) is updated by its parent's answer but not
//! explored itself, so a refresh never goes deeper than someone asked.
//! Leaf resources (types that do not discover) are covered by their
//! parent's hash and answer.
//!
//! **Stale, not deleted.** A resource whose location vanished, that no
//! longer validates, or whose handler fails is marked stale with the
//! reason and otherwise left as it was (children and links kept): the
//! user can fix the cause and refresh again (the mark goes), or remove it.
//! One resource's failure does not stop the others.

use crate::model::{ResolvedType, ResourceId, ResourceKey};
use crate::registry::ResourcesError;
use crate::registry::lookup::rows_named;
use crate::registry::recording::{EventOp, Explored};
use crate::registry::resources::discovery::{Depth, Findings, RootHash, RootUpdate, explore_again};
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::ResourceRow;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::ControlFlow;
use std::sync::Arc;

/// How [`Registry::refresh`] runs.
#[derive(Default)]
pub struct RefreshOptions<'a> {
    /// Told how far it came after each resource; answering `Break` stops
    /// it before the next, what it refreshed staying (default: none).
    pub progress: Option<&'a mut dyn FnMut(RefreshProgress) -> ControlFlow<()>>,
}

impl std::fmt::Debug for RefreshOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefreshOptions")
            .field("progress", &self.progress.as_ref().map(|_| "…"))
            .finish()
    }
}

/// How far a refresh has come (for a caller that shows progress).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshProgress {
    /// Resources whose hash was checked so far.
    pub checked: usize,
    /// Of those, how many had changed.
    pub changed: usize,
}

/// One resource a refresh brought up to date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangedResource {
    pub resource_id: ResourceId,
    pub resource: String,
    /// Its properties changed (`validate` answered differently).
    pub properties_changed: bool,
    /// Children found for the first time.
    pub added: Vec<String>,
    /// Discovered resources no longer found (and what only they kept).
    pub removed: Vec<String>,
    /// Children found again whose properties or hash changed.
    pub updated: usize,
}

/// One resource a refresh could not bring up to date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StaleResource {
    pub resource_id: ResourceId,
    pub resource: String,
    pub reason: String,
}

/// What `agents resource refresh` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefreshReport {
    /// Resources whose hash was checked.
    pub checked: usize,
    /// Of those, unchanged (nothing written).
    pub unchanged: usize,
    /// Brought up to date.
    pub changed: Vec<ChangedResource>,
    /// Marked stale, with why.
    pub stale: Vec<StaleResource>,
}

impl RefreshReport {
    /// Whether the refresh wrote anything.
    pub fn wrote(&self) -> bool {
        !self.changed.is_empty() || !self.stale.is_empty()
    }
}

/// What became of one resource.
enum Outcome {
    /// Its type has no handler (or another process removed it
    /// meanwhile): nothing to check.
    NoHandler,
    Unchanged,
    /// Written; children whose answer changed are forced.
    Changed(ChangedResource, HashSet<ResourceId>),
    Stale(StaleResource),
    /// Stale already, for the same reason: nothing written.
    StillStale,
}

impl Registry {
    /// Check one resource and, if it changed, bring it up to date in one
    /// transaction. Only the store's own failures are errors; anything
    /// about the resource (its location, its handler) makes it stale.
    /// When another process changed what it explored before it could write,
    /// the resource is read and checked again (a race is not staleness).
    fn refresh_one(
        &mut self,
        types: &Arc<TypeSet>,
        mut row: ResourceRow,
        forced: bool,
    ) -> Result<Outcome, RegistryError> {
        let id = row.id;
        let mut again = false;
        let checked = explore_again(&format!("the refresh of {}", row.label()), || {
            if std::mem::replace(&mut again, true) {
                match self.store.read(|r| r.resource_by_id(id))? {
                    Some(now) => row = now,
                    None => return Ok(Outcome::NoHandler),
                }
            }
            self.check_and_update(types, &row, forced)
        });
        let reason = match checked {
            Ok(outcome) => return Ok(outcome),
            Err(
                e @ (RegistryError::Store(_)
                | RegistryError::Resources(ResourcesError::ChangedMeanwhile { .. })),
            ) => return Err(e),
            Err(why) => why.to_string(),
        };
        if row.stale.as_deref() == Some(reason.as_str()) {
            return Ok(Outcome::StillStale);
        }
        let now = self.now();
        let rec = self.recorder();
        self.store.write(|w| {
            w.set_stale(row.id, Some(&reason), &now)?;
            let changes = serde_json::json!({
                "stale": {"before": row.stale, "after": reason},
            });
            rec.resource(w, EventOp::ResourceRefreshed, &row, Some(changes))
        })?;
        log::info!("{} is stale: {reason}", row.label());
        Ok(Outcome::Stale(StaleResource {
            resource_id: row.id,
            resource: row.label(),
            reason,
        }))
    }

    fn check_and_update(
        &mut self,
        types: &Arc<TypeSet>,
        row: &ResourceRow,
        forced: bool,
    ) -> Result<Outcome, RegistryError> {
        let ty = types.resolve(&row.type_name)?;
        let Some(handler) = self.handler_for(&ty)? else {
            return if ty.has_discovery_rules() {
                self.refresh_placeholders(types, &ty, row)
            } else {
                Ok(Outcome::NoHandler)
            };
        };
        if let Some(location) = &row.location
            && std::fs::symlink_metadata(location).is_err()
        {
            return Err(RegistryError::Resources(ResourcesError::LocationVanished {
                resource: row.label(),
                location: location.clone(),
            }));
        }
        let hash = self.call_content_hash(&handler, row)?;
        if hash == row.content_hash && !forced && row.stale.is_none() {
            return Ok(Outcome::Unchanged);
        }
        // Changed: fresh properties for a resource someone registered
        // (its stored arguments, validated again), then one level of
        // rediscovery where its handler listed children before.
        let properties = self.fresh_properties(&handler, &ty, row)?;
        let properties_changed = properties != row.properties;
        let fresh = ResourceRow {
            properties: properties.clone(),
            content_hash: hash.clone(),
            ..row.clone()
        };
        let discovers = ty.discovery().is_none_or(|a| a.enabled);
        let findings = if row.discovered_at.is_some() && discovers {
            // The hash was just asked for: not again.
            let hash = RootHash::Known(fresh.content_hash.clone());
            self.explore(types, fresh, true, hash, Depth::Levels(1), None)?
        } else {
            Findings::default()
        };
        let root = RootUpdate {
            id: row.id,
            changed: (properties_changed || hash != row.content_hash)
                .then_some((&properties, hash.as_deref())),
            clear_stale: row.stale.is_some(),
        };
        let hash = (hash != row.content_hash).then(|| (row.content_hash.clone(), hash.clone()));
        self.write_refresh(types, row, &findings, root, properties_changed, hash)
    }

    /// Refresh a resource in local mode (no handler, rules): its
    /// placeholders brought in line with the rules as they are now.
    fn refresh_placeholders(
        &mut self,
        types: &Arc<TypeSet>,
        ty: &ResolvedType,
        row: &ResourceRow,
    ) -> Result<Outcome, RegistryError> {
        let findings = self.placeholder_findings(types, ty, row)?;
        if findings.added.is_empty() && findings.vanished.is_empty() {
            return Ok(Outcome::Unchanged);
        }
        let root = RootUpdate {
            id: row.id,
            changed: None,
            clear_stale: false,
        };
        self.write_refresh(types, row, &findings, root, false, None)
    }

    /// Write what a refresh of `row` found, `root` bringing `row` itself
    /// up to date (its properties, its `hash` before and after when it
    /// changed, its stale mark cleared), and record it: one transaction.
    fn write_refresh(
        &mut self,
        types: &Arc<TypeSet>,
        row: &ResourceRow,
        findings: &Findings,
        root: RootUpdate<'_>,
        properties_changed: bool,
        hash: Option<(Option<String>, Option<String>)>,
    ) -> Result<Outcome, RegistryError> {
        let changed = findings.kept.iter().filter(|k| k.answer_changed());
        // Children whose answer changed are checked next, forced.
        let forced: HashSet<ResourceId> = changed.clone().map(|k| k.id).collect();
        let updated = changed.count();
        let unstale = row.stale.clone().filter(|_| root.clear_stale);
        let label = row.label();
        let removed = self.write_exploration(
            types,
            std::iter::once(&row.type_name).chain(&findings.types),
            || format!("the refresh of {label}"),
            findings,
            root,
            |w, rec, removed| {
                let explored = Explored {
                    updated,
                    properties_changed,
                    hash,
                    unstale,
                    ..findings.explored(&removed)
                };
                rec.explored(w, EventOp::ResourceRefreshed, row, explored)?;
                Ok(removed)
            },
        )?;
        Ok(Outcome::Changed(
            ChangedResource {
                resource_id: row.id,
                resource: label,
                properties_changed,
                added: findings.added.iter().map(|f| f.row.label()).collect(),
                removed: removed.iter().map(|r| r.label()).collect(),
                updated,
            },
            forced,
        ))
    }
}

/// `rows` ordered so that a resource comes after those of `rows` above
/// it (its ancestors through `parents`); otherwise in the given order.
fn parents_first(
    mut rows: Vec<ResourceRow>,
    parents: &BTreeMap<ResourceId, Vec<ResourceId>>,
) -> Vec<ResourceRow> {
    let wanted: HashSet<ResourceId> = rows.iter().map(|r| r.id).collect();
    // How many of the wanted resources lie above each one, on the longest
    // path: computed parents first with an explicit stack (a chain of
    // links may be deeper than the call stack).
    let mut above: HashMap<ResourceId, usize> = HashMap::new();
    for row in &rows {
        let mut stack = vec![(row.id, false)];
        while let Some((id, expanded)) = stack.pop() {
            if above.contains_key(&id) {
                continue;
            }
            let ps = parents.get(&id).map(Vec::as_slice).unwrap_or_default();
            if expanded {
                let d = ps
                    .iter()
                    .map(|p| above.get(p).copied().unwrap_or(0) + usize::from(wanted.contains(p)))
                    .max()
                    .unwrap_or(0);
                above.insert(id, d);
            } else {
                stack.push((id, true));
                stack.extend(
                    ps.iter()
                        .filter(|p| !above.contains_key(p))
                        .map(|p| (*p, false)),
                );
            }
        }
    }
    rows.sort_by_key(|r| above.get(&r.id).copied().unwrap_or(0));
    rows
}

/// The work of [`Registry::refresh`].
pub(crate) fn refresh(
    reg: &mut Registry,
    keys: &[ResourceKey],
    mut progress: Option<&mut dyn FnMut(RefreshProgress) -> ControlFlow<()>>,
) -> Result<RefreshReport, RegistryError> {
    let _git = reg.git_snapshot();
    let roots = reg.store.read(|r| {
        let rows = rows_named(r, keys)?;
        let (_, parents) = r.all_links()?;
        Ok::<_, RegistryError>(parents_first(rows, &parents))
    })?;
    // Only this machine's locations are checked: a named resource on
    // another machine is refused, and "everything" means everything
    // here (another machine's resources are that machine's to refresh);
    // with roots, everything inside them.
    let roots: Vec<ResourceRow> = if keys.is_empty() {
        let here = |row: &ResourceRow| reg.check_machine(row, "refresh").is_ok();
        roots
            .into_iter()
            .filter(|row| here(row) && reg.row_in_roots(row))
            .collect()
    } else {
        for row in &roots {
            reg.check_machine(row, "refresh")?;
            reg.check_location_in_roots(row.location.as_deref(), "refresh")?;
        }
        roots
    };
    let mut report = RefreshReport::default();
    let mut queue: VecDeque<(ResourceId, bool)> =
        roots.into_iter().map(|row| (row.id, false)).collect();
    let mut seen = HashSet::new();
    while let Some((id, forced)) = queue.pop_front() {
        if !seen.insert(id) {
            continue;
        }
        // Read afresh: a parent's rediscovery may have changed or
        // removed it since it was queued.
        let Some(row) = reg.store.read(|r| r.resource_by_id(id))? else {
            continue;
        };
        let types = reg.store.read(|r| reg.types.get(r))?;
        let outcome = reg.refresh_one(&types, row, forced)?;
        if !matches!(outcome, Outcome::NoHandler) {
            report.checked += 1;
        }
        let forced_below = match outcome {
            Outcome::NoHandler => HashSet::new(),
            Outcome::Unchanged => {
                report.unchanged += 1;
                HashSet::new()
            }
            Outcome::Changed(changed, forced) => {
                report.changed.push(changed);
                forced
            }
            Outcome::Stale(stale) => {
                report.stale.push(stale);
                // Its children are left as they are.
                continue;
            }
            Outcome::StillStale => continue,
        };
        let heard = progress.as_mut().map(|p| {
            p(RefreshProgress {
                checked: report.checked,
                changed: report.changed.len(),
            })
        });
        if heard == Some(ControlFlow::Break(())) {
            return Err(ResourcesError::RefreshCancelled {
                checked: report.checked,
                changed: report.changed.len(),
            }
            .into());
        }
        // Then what was explored below it (what was not is covered by
        // this resource's hash and answer).
        for child in reg.store.read(|r| r.explored_children(id))? {
            queue.push_back((child, forced_below.contains(&child)));
        }
    }
    Ok(report)
}
