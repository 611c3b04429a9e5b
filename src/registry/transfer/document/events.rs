//! The document's optional `events` section (`registry export
//! --with-events`): the log as it was, each event with its number, time,
//! op, subject, changes and actor. Checked like every section: known ops,
//! real UTC times, numbers rising, the store's bounds. An import appends
//! them to the target's log under new numbers (their order, times and
//! actors kept), so two registries' logs never collide.

use super::DocumentError;
use crate::model::Actor;
use crate::registry::recording::EventOp;
use crate::store::{EventRow, MAX_CHANGES_BYTES};
use serde::{Deserialize, Serialize};

/// The longest subject name or id an event keeps (the column's bound).
const MAX_SUBJECT: usize = 1024;
const MAX_NAME: usize = 4096;

/// One event of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventEntry {
    pub seq: i64,
    /// The seq of the first event of its write.
    pub txn: i64,
    pub at: String,
    pub op: EventOp,
    pub kind: String,
    pub id: Option<String>,
    pub name: Option<String>,
    /// The other resource it names (a link's parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_id: Option<String>,
    pub changes: Option<serde_json::Value>,
    pub actor: Actor,
}

impl From<EventRow> for EventEntry {
    fn from(row: EventRow) -> Self {
        Self {
            seq: row.seq,
            txn: row.txn,
            at: row.at,
            op: EventOp::parse(&row.op).unwrap_or(EventOp::RegistryImported),
            kind: row.kind,
            id: row.subject_id,
            name: row.subject_name,
            related_id: row.related_id,
            changes: row.changes,
            actor: row.actor,
        }
    }
}

impl EventEntry {
    /// The row to insert, numbered `seq` in a write whose first is `txn`.
    pub(crate) fn row(&self, seq: i64, txn: i64) -> EventRow {
        EventRow {
            seq,
            txn,
            at: self.at.clone(),
            op: self.op.as_str().to_owned(),
            kind: self.kind.clone(),
            subject_id: self.id.clone(),
            subject_name: self.name.clone(),
            related_id: self.related_id.clone(),
            changes: self.changes.clone(),
            actor: self.actor.clone(),
        }
    }
}

/// Check the section: each event within the store's bounds, numbers
/// rising, each write's first number its own or an earlier one.
pub(super) fn check(events: &[EventEntry]) -> Result<(), DocumentError> {
    let mut last = 0;
    for (i, e) in events.iter().enumerate() {
        let bad = |reason: String| DocumentError::Invalid {
            item: format!("events[{i}] (seq {})", e.seq),
            reason,
        };
        if e.seq <= last {
            return Err(bad(format!("its seq is not above the one before ({last})")));
        }
        if e.txn < 1 || e.txn > e.seq {
            return Err(bad(format!(
                "its txn {} is not between 1 and its seq",
                e.txn
            )));
        }
        last = e.seq;
        if !crate::effects::is_iso8601(&e.at) || e.at.len() > 64 {
            return Err(bad(format!("{:?} is not a UTC time", e.at)));
        }
        if e.kind != e.op.kind() {
            return Err(bad(format!(
                "kind {:?} is not the kind of {}",
                e.kind, e.op
            )));
        }
        let long = |v: &Option<String>, max: usize| v.as_ref().is_some_and(|s| s.len() > max);
        if long(&e.id, MAX_SUBJECT) || long(&e.related_id, MAX_SUBJECT) || long(&e.name, MAX_NAME) {
            return Err(bad("a subject id or name is too long".into()));
        }
        if e.actor.name.chars().count() > Actor::MAX_NAME
            || e.actor.name.chars().any(char::is_control)
        {
            return Err(bad(
                "the actor's name is too long or holds control characters".into(),
            ));
        }
        if let Some(c) = &e.changes
            && serde_json::to_string(c).map_or(usize::MAX, |t| t.len()) > MAX_CHANGES_BYTES
        {
            return Err(bad(format!(
                "its changes are longer than {MAX_CHANGES_BYTES} bytes"
            )));
        }
    }
    Ok(())
}
