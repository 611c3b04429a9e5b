//! Writing events (the event log, `registry::events`): shared by every
//! concern that writes, so it lives at the registry's top — a concern
//! records through it and never uses `events`, which reads the log.
//!
//! A [`Recorder`] is taken from the [`Registry`] before a
//! write transaction (it holds the actor and the time, so the closure
//! that writes borrows nothing else of the registry) and called inside
//! it, once per change, next to the statement that makes the change.
//! Every `record` is one `INSERT` (the transaction's first also reads the
//! last seq once; one in [`retention::EVERY`] applies the retention
//! setting).

pub(crate) mod retention;

pub use super::event_op::{EventOp, KINDS};
use crate::model::{Actor, ResourceId};
use crate::registry::Registry;
use crate::store::{NewEvent, ResourceRow, StoreError, Writer};
use serde_json::{Value, json};
use std::time::SystemTime;

/// The most names a `changes` list carries (the count says the rest).
pub(crate) const MAX_LISTED: usize = 20;

/// Who is writing, and when: what every event of one write shares.
#[derive(Debug, Clone)]
pub(crate) struct Recorder {
    actor: Actor,
    now: SystemTime,
    at: String,
}

impl Registry {
    /// The recorder for the next write transaction.
    pub(crate) fn recorder(&self) -> Recorder {
        let now = self.clock.now();
        Recorder {
            actor: self.actor.clone(),
            now,
            at: crate::effects::iso8601(now),
        }
    }
}

/// What an event is about, beyond its op.
#[derive(Debug, Default)]
pub(crate) struct Subject<'a> {
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub related: Option<&'a str>,
}

impl<'a> Subject<'a> {
    /// The subject `id`, named `name`, and the other resource it names.
    fn new(id: &'a str, name: &'a str, related: Option<&'a str>) -> Self {
        Self {
            id: Some(id),
            name: Some(name),
            related,
        }
    }
}

impl Recorder {
    /// Record `op` about `subject` with `changes`.
    pub(crate) fn record(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        subject: Subject<'_>,
        changes: Option<Value>,
    ) -> Result<(), StoreError> {
        let seq = w.record(&NewEvent {
            at: &self.at,
            op: op.as_str(),
            kind: op.kind(),
            subject_id: subject.id,
            subject_name: subject.name,
            related_id: subject.related,
            changes: changes.as_ref(),
            actor: &self.actor,
        })?;
        if seq % retention::EVERY == 0 {
            retention::apply(w, self.now)?;
        }
        Ok(())
    }

    /// Record `op` about the resource `row`.
    pub(crate) fn resource(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        row: &ResourceRow,
        changes: Option<Value>,
    ) -> Result<(), StoreError> {
        let (id, name) = (row.id.to_string(), row.label());
        self.record(w, op, Subject::new(&id, &name, None), changes)
    }

    /// Record a link made or undone: the subject is the child, the
    /// related resource the parent, both named in `changes`.
    pub(crate) fn link(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        parent: &ResourceRow,
        child: &ResourceRow,
    ) -> Result<(), StoreError> {
        let (child_id, parent_id) = (child.id.to_string(), parent.id.to_string());
        let child_name = child.label();
        self.record(
            w,
            op,
            Subject::new(&child_id, &child_name, Some(&parent_id)),
            Some(json!({
                "parent": {"id": parent_id, "name": parent.label()},
                "child": {"id": child_id, "name": child_name},
            })),
        )
    }

    /// Record `op` about something named by text only (a type, a plugin,
    /// a setting), with `related` the resource it concerns, if any.
    pub(crate) fn named(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        name: &str,
        related: Option<ResourceId>,
        changes: Option<Value>,
    ) -> Result<(), StoreError> {
        let related = related.map(|id| id.to_string());
        self.record(w, op, Subject::new(name, name, related.as_deref()), changes)
    }

    /// Record `op` about a sandbox of the resource `resource` (named
    /// `label`).
    pub(crate) fn sandbox(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        sandbox: crate::model::SandboxId,
        (resource, label): (ResourceId, &str),
        changes: Option<Value>,
    ) -> Result<(), StoreError> {
        let (id, related) = (sandbox.to_string(), resource.to_string());
        self.record(w, op, Subject::new(&id, label, Some(&related)), changes)
    }

    /// Record a discovery or refresh of `row` — when it changed anything.
    pub(crate) fn explored(
        &self,
        w: &Writer<'_>,
        op: EventOp,
        row: &ResourceRow,
        e: Explored,
    ) -> Result<(), StoreError> {
        let mut changes = serde_json::Map::new();
        if e.added.1 > 0 {
            changes.insert("added".into(), listed(e.added.0, e.added.1));
        }
        if e.gone.1 > 0 {
            changes.insert("gone".into(), listed(e.gone.0, e.gone.1));
        }
        if e.updated > 0 {
            changes.insert("updated".into(), json!({"count": e.updated}));
        }
        if e.properties_changed {
            changes.insert("properties".into(), json!({"changed": true}));
        }
        if let Some((before, after)) = e.hash {
            changes.insert(
                "content_hash".into(),
                json!({"before": before, "after": after}),
            );
        }
        if let Some(reason) = e.unstale {
            changes.insert("stale".into(), json!({"before": reason, "after": null}));
        }
        if changes.is_empty() {
            return Ok(());
        }
        self.resource(w, op, row, Some(Value::Object(changes)))
    }
}

/// `{"count": n, "names": [first MAX_LISTED]}` for a list of names.
pub(crate) fn listed<I: IntoIterator<Item = String>>(names: I, count: usize) -> Value {
    let names: Vec<String> = names.into_iter().take(MAX_LISTED).collect();
    json!({"count": count, "names": names})
}

/// `{"field": {"before": a, "after": b}}` for each field that differs.
pub(crate) fn diff(fields: &[(&str, Value, Value)]) -> Option<Value> {
    let changed: serde_json::Map<String, Value> = fields
        .iter()
        .filter(|(_, before, after)| before != after)
        .map(|(name, before, after)| {
            (
                (*name).to_owned(),
                json!({"before": before, "after": after}),
            )
        })
        .collect();
    (!changed.is_empty()).then_some(Value::Object(changed))
}

/// The top-level fields of two serialized documents that differ, as
/// [`diff`] gives them (`None`: the same).
pub(crate) fn diff_documents<T: serde::Serialize>(before: &T, after: &T) -> Option<Value> {
    let (Ok(Value::Object(before)), Ok(Value::Object(after))) =
        (serde_json::to_value(before), serde_json::to_value(after))
    else {
        return None;
    };
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let fields: Vec<(&str, Value, Value)> = keys
        .into_iter()
        .map(|k| {
            let get = |m: &serde_json::Map<String, Value>| m.get(k).cloned().unwrap_or(Value::Null);
            (k.as_str(), get(&before), get(&after))
        })
        .collect();
    diff(&fields)
}

/// What a discovery or refresh changed below (and of) one resource.
#[derive(Debug, Default)]
pub(crate) struct Explored {
    /// The names of the resources added, and how many.
    pub added: (Vec<String>, usize),
    /// The names of the resources that went, and how many.
    pub gone: (Vec<String>, usize),
    /// How many stored descendants were updated.
    pub updated: usize,
    pub properties_changed: bool,
    /// The content hash before and after, when it changed.
    pub hash: Option<(Option<String>, Option<String>)>,
    /// The stale reason cleared, if any.
    pub unstale: Option<String>,
}
