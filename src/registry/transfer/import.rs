//! `agents registry import`: a [`RegistryDocument`] into this registry,
//! all or nothing.
//!
//! **One write transaction.** Inside one [`Store::write`](crate::store::Store::write)
//! (a rehearsal that is rolled back for `--dry-run`), the import first
//! sorts every item of the document ([`plan`]) — identical to what is
//! here (left alone: importing a document twice is a no-op), new, or a
//! conflict — and refuses with *every* conflict, missing plugin file and
//! missing type at once. Then it writes, checking each new item by the
//! rules its own verb applies: a type as `type add` checks it (it and its
//! subtypes resolve, the types it names exist, its handler is real), the
//! links by the DAG rules as `link_child` admits one
//! (`dag::admit_links`: the answer admitting them one by one would give,
//! with one cycle check for the whole document — linear in the document
//! and the graph below it, where a reachability walk per link was
//! quadratic on a chain), a setting as `project context set` does. The ids, timestamps
//! and flags are the document's, so export → import round-trips exactly.
//! Virtual identities are then reconciled like after any write.
//!
//! **Plugin files.** A component the document carries is verified against
//! its sha256 when the document is read, and written into the plugin
//! store (content-addressed, sealed) at the end of the transaction, just
//! before it commits. If the commit fails, the files written are removed
//! again unless a row names them; a leftover could only ever be loaded
//! for a row with that exact sha256, so it is harmless either way.

mod plan;
mod report;

pub use report::{ImportOptions, ImportReport, Tally};

use crate::dag;
use crate::model::{ResourceId, ResourceKey, TypeSpec};
use crate::registry::document::{RegistryDocument, invalid};
use crate::registry::environments::{check_scope, environment_of, not_an_environment};
use crate::registry::links::StoredLinks;
use crate::registry::recording::{EventOp, Recorder, Subject};
use crate::registry::resources::equivalence;
use crate::registry::sandboxes::strategy::check_strategy;
use crate::registry::{Registry, RegistryError, TransferError, types};
use crate::store::{EventRow, StoreError, Writer};
use crate::typespec;
use plan::Plan;
use std::cell::RefCell;
use std::collections::HashMap;

/// The work of [`Registry::import_document`].
pub(crate) fn import_document(
    reg: &mut Registry,
    document: &RegistryDocument,
    options: ImportOptions,
) -> Result<ImportReport, RegistryError> {
    let dry_run = options.dry_run;
    document.check()?;
    for location in document
        .resources
        .iter()
        .filter_map(|r| r.location.as_ref())
    {
        reg.check_in_roots(std::path::Path::new(location), "import")?;
    }
    let specs = parse_specs(document)?;
    let components = document
        .plugins
        .iter()
        .map(|p| p.component())
        .collect::<Result<Vec<_>, _>>()?;
    let catalogue = crate::builtin::fingerprint();
    let now = reg.now();
    let written: RefCell<Vec<String>> = RefCell::default();
    let (cache, plugins) = (&reg.types, &reg.plugins);
    let (ids, clock) = (&reg.ids, &reg.clock);
    let agent = Some(&reg.actor).filter(|a| a.face.is_agent());
    let rec = reg.recorder();
    let import = |w: &Writer<'_>| {
        let current = cache.get(w)?;
        let mut plan = plan::plan(w, &current, document, &specs, &components, plugins)?;
        write_rows(w, &plan, agent)?;
        // Every new plugin's bytes go in the registry as well (from the
        // document, else this machine's verified copy).
        for (entry, bytes) in &plan.plugins {
            match bytes {
                Some(bytes) => w.put_plugin_component(&entry.row.sha256, bytes)?,
                None if w.has_plugin_component(&entry.row.sha256)? => {}
                None => {
                    let files = plugins.files("cannot import plugins")?;
                    let bytes = files.read(&entry.row.sha256);
                    let bytes = bytes.map_err(RegistryError::plugin_load(&entry.row.module))?;
                    w.put_plugin_component(&entry.row.sha256, &bytes)?;
                }
            }
        }
        check_and_link(w, &plan, document, agent)?;
        write_settings(w, &plan)?;
        equivalence::reconcile(w, &plan.next, &|| ids.next_id(clock.now()), &now)?;
        if !dry_run {
            for (entry, bytes) in &plan.plugins {
                let (Some(bytes), Some(files)) = (bytes, plugins.files.as_ref()) else {
                    continue;
                };
                let fresh = !files.path_of(&entry.row.sha256).is_ok_and(|p| p.exists());
                files
                    .import(bytes)
                    .map_err(RegistryError::plugin_load(&entry.row.module))?;
                if fresh {
                    written.borrow_mut().push(entry.row.sha256.clone());
                }
            }
        }
        if !plan.report.is_no_op() {
            append_events(w, &document.events)?;
            record_import(w, &rec, &plan.report)?;
        }
        plan.report.dry_run = dry_run;
        plan.report.same_builtin_catalogue =
            document.header.builtin_catalogue.as_deref() == Some(catalogue.as_str());
        Ok(plan.report)
    };
    let result = if dry_run {
        reg.store.rehearse(import)
    } else {
        reg.store.write(import)
    };
    if result.is_err() {
        for sha256 in written.into_inner() {
            reg.forget_file_if_unused(&sha256);
        }
    }
    result
}

/// Every type's spec, read as `type add` reads a file; a refusal names
/// the type and its place in the document.
fn parse_specs(document: &RegistryDocument) -> Result<Vec<TypeSpec>, RegistryError> {
    document
        .types
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let refuse = |source| refused(format!("type {} (types[{i}])", entry.name), source);
            let spec = typespec::parse_type_file(&entry.spec, &format!("types[{i}].spec"))
                .map_err(|e| refuse(e.into()))?;
            if spec.name != entry.name {
                let reason = format!("its spec is named {}, not {}", spec.name, entry.name);
                return Err(refuse(invalid(format!("types[{i}]"), reason).into()));
            }
            Ok(spec)
        })
        .collect()
}

/// The import's refusal of `item`, for `source` (the refusal its own verb
/// would give).
fn refused(item: String, source: RegistryError) -> RegistryError {
    TransferError::ImportRefused {
        item,
        source: Box::new(source),
    }
    .into()
}

/// Write the new plugins' rows, types (each checked as `type add` checks
/// it) and resources, in that order (each names the one before).
/// `agent`: the importing agent, recorded as the provenance of every row
/// and hand-made link instead of what the document says (an agent's
/// document cannot claim a person made what it carries).
fn write_rows(
    w: &Writer<'_>,
    plan: &Plan<'_>,
    agent: Option<&crate::model::Actor>,
) -> Result<(), RegistryError> {
    for (entry, _) in &plan.plugins {
        w.upsert_plugin(&entry.row)?;
        w.set_plugin_provenance(&entry.row.module, entry.provenance.as_ref())?;
    }
    for row in &plan.types {
        let refuse = |source| refused(format!("type {}", row.spec.name), source);
        types::check_type(&plan.next, &row.spec).map_err(refuse)?;
        let resolved = plan.next.resolve(&row.spec.name).map_err(refuse)?;
        types::check_handler(w, &plan.next, &resolved).map_err(refuse)?;
        w.insert_type_row(row)?;
    }
    let mut inserter = w.resource_inserter()?;
    for row in &plan.resources {
        if let Some(strategy) = row.sandbox_strategy {
            let ty = plan.next.resolve(&row.type_name)?;
            check_strategy(&ty, row.name.as_ref(), strategy.as_str())
                .map_err(|source| refused(format!("resource {}", row.label()), source))?;
        }
        match agent {
            Some(agent) => inserter.insert(&crate::store::ResourceRow {
                registered_by: Some(agent.clone()),
                ..row.clone()
            })?,
            None => inserter.insert(row)?,
        }
    }
    Ok(())
}

/// Insert the new links, admitted together by the DAG rules
/// (`dag::admit_links`: what `link_child` would answer for each, one by
/// one, with one cycle check for the whole document against the links
/// below its links' children), then written.
fn check_and_link(
    w: &Writer<'_>,
    plan: &Plan<'_>,
    document: &RegistryDocument,
    agent: Option<&crate::model::Actor>,
) -> Result<(), RegistryError> {
    let labels = plan::labels(document);
    let pairs: Vec<(ResourceId, ResourceId)> =
        plan.links.iter().map(|l| (l.parent, l.child)).collect();
    let mut children: Vec<ResourceId> = pairs.iter().map(|(_, c)| *c).collect();
    children.sort();
    children.dedup();
    let below: Vec<(ResourceId, ResourceId)> = w
        .edges_reachable(&children)?
        .into_iter()
        .map(|e| (e.parent, e.child))
        .collect();
    // The cycle rule is `admit_links`' own; each end's type is read once.
    let mut facts = StoredLinks {
        w,
        types: &plan.next,
        type_names: HashMap::new(),
    };
    if let Err((i, refusal)) = dag::admit_links(&pairs, &below, &mut facts)? {
        let (parent, child) = pairs[i];
        let source =
            crate::registry::link_refused(refusal, labels[&parent].clone(), labels[&child].clone());
        return Err(refused("the document's links".to_owned(), source));
    }
    for entry in &plan.links {
        let mut row = (*entry).clone();
        // Every link an agent imports is the agent's, discovery's flag or
        // not: a document cannot claim the files put it there.
        if let Some(agent) = agent {
            row.linked_by = Some(agent.clone());
        }
        w.insert_link_row(&row)?;
    }
    Ok(())
}

/// Write the new settings, each naming a plan name that is valid and an
/// execution environment (or the host).
fn write_settings(w: &Writer<'_>, plan: &Plan<'_>) -> Result<(), RegistryError> {
    for row in &plan.settings {
        let refuse = |source| refused(format!("the {} environment setting", row.scope), source);
        check_scope(&row.scope).map_err(refuse)?;
        if let Some(id) = row.resource {
            let (env, is_env) =
                environment_of(w, &plan.next, &ResourceKey::Id(id)).map_err(refuse)?;
            if !is_env {
                return Err(refuse(not_an_environment(&env)));
            }
        }
        w.put_setting(row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;

/// The event of an import that added anything: what it added, by section
/// (an import that found everything already here records nothing).
fn record_import(w: &Writer<'_>, rec: &Recorder, report: &ImportReport) -> Result<(), StoreError> {
    let changes: serde_json::Map<String, serde_json::Value> = report
        .tallies()
        .into_iter()
        .map(|(k, t)| (k.to_owned(), serde_json::json!({"added": t.added})))
        .collect();
    let op = EventOp::RegistryImported;
    rec.record(w, op, Subject::default(), Some(changes.into()))
}

/// Append the document's events to the log under new numbers, after the
/// last one here, keeping their order and which were one write.
fn append_events(w: &Writer<'_>, events: &[EventRow]) -> Result<(), RegistryError> {
    let base = w.last_event_seq()?;
    let Some(first) = events.first() else {
        return Ok(());
    };
    let shift = base + 1 - first.seq;
    for e in events {
        // A write whose first event was not exported starts here.
        let txn = (e.txn + shift).max(base + 1);
        w.insert_event_row(&EventRow {
            seq: e.seq + shift,
            txn,
            ..e.clone()
        })?;
    }
    Ok(())
}
