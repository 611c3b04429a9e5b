//! The document's optional `events` section (`registry export
//! --with-events`): the log as it was, each event with its number, time,
//! op, subject, changes and actor. Checked like every section: known ops,
//! real UTC times, numbers rising, the store's bounds. An import appends
//! them to the target's log under new numbers (their order, times and
//! actors kept), so two registries' logs never collide.

use super::{DocumentError, invalid};
use crate::model::Actor;
use crate::registry::event_op::EventOp;
use crate::store::{EventRow, MAX_CHANGES_BYTES};

/// The longest subject name or id an event keeps (the column's bound).
const MAX_SUBJECT: usize = 1024;
const MAX_NAME: usize = 4096;

/// Check the section: each event within the store's bounds, numbers
/// rising, each write's first number its own or an earlier one.
pub(super) fn check(events: &[EventRow]) -> Result<(), DocumentError> {
    let mut last = 0;
    for (i, e) in events.iter().enumerate() {
        let bad = |reason: String| invalid(format!("events[{i}] (seq {})", e.seq), reason);
        // An op this binary knows (serde's refusal lists them).
        let op: EventOp =
            serde_json::from_value(e.op.as_str().into()).map_err(|error| bad(error.to_string()))?;
        if e.seq <= last {
            return Err(bad(format!("its seq is not above the one before ({last})")));
        }
        if !(1..=e.seq).contains(&e.txn) {
            let txn = e.txn;
            return Err(bad(format!("its txn {txn} is not between 1 and its seq")));
        }
        last = e.seq;
        if !crate::effects::is_iso8601(&e.at) || e.at.len() > 64 {
            return Err(bad(format!("{:?} is not a UTC time", e.at)));
        }
        if e.kind != op.kind() {
            return Err(bad(format!("kind {:?} is not the kind of {op}", e.kind)));
        }
        let long = |v: &Option<String>, max: usize| v.as_ref().is_some_and(|s| s.len() > max);
        if long(&e.subject_id, MAX_SUBJECT)
            || long(&e.related_id, MAX_SUBJECT)
            || long(&e.subject_name, MAX_NAME)
        {
            return Err(bad("a subject id or name is too long".into()));
        }
        if e.actor.name.chars().count() > Actor::MAX_NAME
            || e.actor.name.chars().any(char::is_control)
        {
            let reason = "the actor's name is too long or holds control characters";
            return Err(bad(reason.to_owned()));
        }
        if let Some(c) = &e.changes
            && serde_json::to_string(c).map_or(usize::MAX, |t| t.len()) > MAX_CHANGES_BYTES
        {
            let max = MAX_CHANGES_BYTES;
            return Err(bad(format!("its changes are longer than {max} bytes")));
        }
    }
    Ok(())
}
