//! Writing what an exploration found, in the caller's transaction —
//! after checking that nothing it explored changed in between (else the
//! caller explores again).

use super::{Findings, Found};
use crate::dag::AdmittedLink;
use crate::model::{HandlerRef, PropertyMap, Resource, ResourceId, TypeName};
use crate::registry::link_refused as refused;
use crate::registry::lookup::going::what_goes;
use crate::registry::recording::Recorder;
use crate::registry::resources::equivalence;
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError, ResourcesError, TypesError};
use crate::store::Writer;
use crate::store::{ResourceInserter, ResourceRow, StoreError};
use std::collections::HashSet;
use std::sync::Arc;

/// How many times a discovery or a refresh of one resource explores
/// again when other processes keep changing what it explored.
const ATTEMPTS: usize = 5;

/// Run `attempt` again while other processes keep changing what it
/// explored ([`ResourcesError::ChangedMeanwhile`]), [`ATTEMPTS`] times in
/// all; `what` names it in the log.
pub(in crate::registry) fn explore_again<T>(
    what: &str,
    mut attempt: impl FnMut() -> Result<T, RegistryError>,
) -> Result<T, RegistryError> {
    for _ in 1..ATTEMPTS {
        match attempt() {
            Err(RegistryError::Resources(ResourcesError::ChangedMeanwhile { .. })) => {
                log::info!("what {what} explored changed meanwhile; exploring again");
            }
            other => return other,
        }
    }
    attempt()
}

/// Refuse with [`ResourcesError::ChangedMeanwhile`] when a resource
/// `findings` explored is gone or has other children than it had then:
/// another process wrote there in between (say, the same discovery run
/// twice at once), so what was found is no longer what to write. The
/// caller explores again.
fn check_unchanged(w: &Writer<'_>, findings: &Findings) -> Result<(), RegistryError> {
    if findings.read.is_empty() {
        return Ok(());
    }
    let ids: Vec<ResourceId> = findings.read.iter().map(|(id, _)| *id).collect();
    let now = w.children_of_each(&ids)?;
    let Some((id, _)) = findings
        .read
        .iter()
        .find(|(id, then)| now.get(id) != Some(then))
    else {
        return Ok(());
    };
    let resource = w
        .resource_by_id(*id)?
        .map_or_else(|| id.to_string(), |row| row.label());
    Err(ResourcesError::ChangedMeanwhile {
        resource,
        attempts: ATTEMPTS,
    }
    .into())
}

/// What a write of findings brings up to date on the explored resource
/// itself (discovery and refresh; a registration writes its new row).
pub(in crate::registry) struct RootUpdate<'a> {
    pub id: ResourceId,
    /// Its properties and content hash as the handler answers them now,
    /// when they changed.
    pub changed: Option<(&'a PropertyMap, Option<&'a str>)>,
    /// Clear its stale mark (a refresh).
    pub clear_stale: bool,
}

/// The one write of what an exploration found — registration,
/// discovery and both refresh paths — in the caller's transaction:
/// refused when a type in `relied_on` resolves differently in `current`
/// than in `then` (the set the findings were checked against; `what`
/// names the operation in the refusal), then [`apply`], then `root`
/// brought up to date. Answers the resources that went. The caller
/// reconciles identities once all its writes are done.
#[allow(clippy::too_many_arguments)]
pub(in crate::registry) fn write_findings<'a>(
    w: &Writer<'_>,
    current: &Arc<TypeSet>,
    then: &Arc<TypeSet>,
    relied_on: impl IntoIterator<Item = &'a TypeName>,
    what: impl FnOnce() -> String,
    findings: &Findings,
    root: Option<RootUpdate<'_>>,
    now: &str,
) -> Result<Vec<Resource>, RegistryError> {
    check_types_unchanged_for(current, then, relied_on, what)?;
    let removed = if findings.writes_nothing() {
        Vec::new()
    } else {
        apply(w, then, findings, now)?
    };
    if let Some(root) = root {
        if let Some((properties, hash)) = root.changed {
            w.update_resource_findings(root.id, properties, hash, now)?;
        }
        if root.clear_stale {
            w.set_stale(root.id, None, now)?;
        }
    }
    Ok(removed)
}

impl Registry {
    /// One transaction writing what an exploration of a stored resource
    /// found (discovery and refresh): [`write_findings`], the identities
    /// reconciled, then `finish` — the event, what to answer — with the
    /// resources that went.
    pub(in crate::registry) fn write_exploration<'a, T>(
        &mut self,
        types: &Arc<TypeSet>,
        relied_on: impl IntoIterator<Item = &'a TypeName>,
        what: impl FnOnce() -> String,
        findings: &Findings,
        root: RootUpdate<'_>,
        finish: impl FnOnce(&Writer<'_>, &Recorder, Vec<Resource>) -> Result<T, RegistryError>,
    ) -> Result<T, RegistryError> {
        let now = self.now();
        let rec = self.recorder();
        let cache = &self.types;
        let (ids, clock) = (&self.ids, &self.clock);
        self.store.write(|w| {
            let current = cache.get(w)?;
            let removed = write_findings(
                w,
                &current,
                types,
                relied_on,
                what,
                findings,
                Some(root),
                &now,
            )?;
            equivalence::reconcile(w, types, &|| ids.next_id(clock.now()), &now)?;
            finish(w, &rec, removed)
        })
    }
}

/// Write `findings` in the caller's transaction: vanished links first
/// (and what only they kept), then new rows and their links, then what
/// changed of the rest — after checking that what was explored is still
/// as it was read. Answers the resources that went.
fn apply(
    w: &Writer<'_>,
    types: &Arc<TypeSet>,
    findings: &Findings,
    now: &str,
) -> Result<Vec<Resource>, RegistryError> {
    check_unchanged(w, findings)?;
    let mut orphans: Vec<ResourceId> = Vec::new();
    let mut seen = HashSet::new();
    for (parent, child) in &findings.vanished {
        w.delete_link(*parent, *child)?;
        if !w.is_kept(*child)? && seen.insert(*child) {
            orphans.push(*child);
        }
    }
    let (removed, _) = what_goes(w, types, &orphans)?;
    // A vanished child someone has a sandbox of is not dropped behind
    // their back: the whole rediscovery is refused, naming it.
    let stranded = crate::registry::lookup::going::sandboxes_on(w, &removed)?;
    if let Some(first) = stranded.first() {
        let holder = w.sandbox(*first)?.map(|s| s.resource);
        let resource = removed
            .iter()
            .find(|r| Some(r.resource_id) == holder)
            .map_or_else(|| removed[0].label(), Resource::label);
        return Err(RegistryError::HasSandboxes {
            resource,
            sandboxes: stranded,
        });
    }
    // Nor one whose container the engine still holds (a `.devcontainer/`
    // deleted while its container runs): it would be orphaned.
    let held = crate::registry::lookup::going::containers_on(w, &removed)?;
    if let Some((first, _)) = held.first() {
        return Err(RegistryError::HasContainers {
            resource: first.label(),
            containers: held.into_iter().map(|(_, text)| text).collect(),
        });
    }
    let gone: Vec<ResourceId> = removed.iter().map(|r| r.resource_id).collect();
    w.delete_resources(&gone)?;
    let mut inserter = w.resource_inserter()?;
    for found in &findings.added {
        insert_child(w, &mut inserter, found, now)?;
    }
    // What was found again is written only where it changed: a
    // rediscovery of an unchanged tree reads, and writes nothing.
    for kept in findings.kept.iter().filter(|k| k.changed()) {
        if kept.first_explored {
            w.mark_discovered(kept.id, now)?;
        }
        if kept.properties_changed {
            w.update_resource_findings(
                kept.id,
                &kept.properties,
                kept.content_hash.as_deref(),
                now,
            )?;
        } else if kept.content_hash != kept.stored_hash {
            w.update_resource_hash(kept.id, kept.content_hash.as_deref(), now)?;
        }
    }
    if let Some((id, hash)) = &findings.root_rehashed {
        w.update_resource_hash(*id, hash.as_deref(), now)?;
    }
    if let Some(id) = findings.root_first_explored {
        w.mark_discovered(id, now)?;
    }
    Ok(removed)
}

/// Refuse when one of `relied_on` resolves differently in `current` than
/// in `then`, the set a check was made against.
pub(in crate::registry) fn check_types_unchanged_for<'a>(
    current: &Arc<TypeSet>,
    then: &Arc<TypeSet>,
    relied_on: impl IntoIterator<Item = &'a TypeName>,
    what: impl FnOnce() -> String,
) -> Result<(), RegistryError> {
    if Arc::ptr_eq(current, then) {
        return Ok(());
    }
    for type_name in relied_on {
        let both = (current.resolve(type_name), then.resolve(type_name));
        if !matches!(both, (Ok(now), Ok(before)) if now == before) {
            return Err(RegistryError::Types(TypesError::TypesChanged {
                what: what(),
                type_name: type_name.clone(),
            }));
        }
    }
    Ok(())
}

/// Insert a discovered child and its link; a name that is taken is the
/// handler's collision, refused naming it (the user picked no name).
pub(in crate::registry) fn insert_child(
    w: &Writer<'_>,
    inserter: &mut ResourceInserter<'_>,
    found: &Found,
    now: &str,
) -> Result<(), RegistryError> {
    match (insert_new(w, inserter, &found.row), &found.handler) {
        (
            Err(RegistryError::Resources(ResourcesError::DuplicateName { name, id })),
            Some(handler),
        ) => Err(RegistryError::Resources(
            ResourcesError::DiscoveredNameTaken {
                handler: Box::new(HandlerRef::clone(handler)),
                index: found.index,
                parent: found.parent_label.to_string(),
                name,
                id,
            },
        )),
        (other, _) => other,
    }?;
    let link = AdmittedLink::new_child(found.parent, found.row.id)
        .map_err(|r| refused(r, found.parent_label.to_string(), found.row.label()))?;
    w.insert_link(link, true, now, None)?;
    Ok(())
}

/// Insert a new row; a taken name is refused naming the resource that
/// has it (the constraint decides, inside the write transaction, so two
/// processes cannot both take it).
pub(in crate::registry) fn insert_new(
    w: &Writer<'_>,
    inserter: &mut ResourceInserter<'_>,
    row: &ResourceRow,
) -> Result<(), RegistryError> {
    match inserter.insert(row) {
        Err(StoreError::NameTaken { name }) => match w.resource_by_name(&name)? {
            Some(holder) => Err(RegistryError::Resources(ResourcesError::DuplicateName {
                name,
                id: holder.id,
            })),
            None => Err(StoreError::NameTaken { name }.into()),
        },
        other => Ok(other?),
    }
}
