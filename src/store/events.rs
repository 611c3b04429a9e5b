//! `events` rows: the log of changes. The store's part is the
//! sequence and the SQL; what an event says (its op, its subject, its
//! changes) is `registry::events`'s.
//!
//! **The sequence.** An event's `seq` is taken inside the write
//! transaction that makes the change: the first event of a transaction
//! reads `max(seq)` (and `registry_meta`'s `events.last_seq`, the
//! high-water mark pruning leaves) once, and the transaction's later
//! events count on from it in memory. The write lock (SQLite's
//! `BEGIN IMMEDIATE`, PostgreSQL's advisory lock) serialises writers on
//! both backends, so numbers are gap-free and in commit order; a rolled
//! back transaction takes its numbers with it. Every event of one
//! transaction records the first one's `seq` as its `txn`.
//!
//! **Cheap to poll.** `seq` is the primary key, so "what is after N" and
//! "the last seq" are index lookups; a subject's events are found through
//! `events_subject` / `events_related` / `events_name`, a time through
//! `events_at`.

use super::columns::Columns;
use super::db::{Arg, Dialect, args};
use super::{Reader, StoreError, Writer};
use crate::model::{Actor, Face};

/// The `registry_meta` key holding the highest seq ever handed out once
/// pruning has removed rows (absent: `max(seq)` is it).
pub(super) const LAST_SEQ_KEY: &str = "events.last_seq";

/// The longest `changes` JSON kept (the column's own bound is twice
/// this); a longer one is replaced by a note saying how long it was.
pub const MAX_CHANGES_BYTES: usize = 8192;

/// Where a write transaction's events are: the seq the last one took,
/// the first one's, and the time none may be before (see `record`).
#[derive(Debug)]
pub(super) struct Cursor {
    last: i64,
    txn: i64,
    floor: String,
}

/// An event to record (the seq is the store's to give).
#[derive(Debug, Clone)]
pub struct NewEvent<'a> {
    /// RFC 3339 UTC, fixed width (`effects::iso8601`).
    pub at: &'a str,
    pub op: &'a str,
    pub kind: &'a str,
    pub subject_id: Option<&'a str>,
    pub subject_name: Option<&'a str>,
    pub related_id: Option<&'a str>,
    pub changes: Option<&'a serde_json::Value>,
    pub actor: &'a Actor,
}

/// One stored event. It is also an item of a registry document's
/// `events` section (`registry::transfer::document`), under the names
/// there (`id`, `name`), so what an export reads is what an import
/// appends.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRow {
    pub seq: i64,
    /// The seq of the first event of the same transaction.
    pub txn: i64,
    pub at: String,
    pub op: String,
    pub kind: String,
    #[serde(rename = "id")]
    pub subject_id: Option<String>,
    #[serde(rename = "name")]
    pub subject_name: Option<String>,
    /// The other resource it names (a link's parent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_id: Option<String>,
    pub changes: Option<serde_json::Value>,
    pub actor: Actor,
}

/// Which events to read. Every filter given must hold.
#[derive(Debug, Clone, Default)]
pub struct EventSelect {
    /// Only events with a seq above this.
    pub after_seq: Option<i64>,
    /// Only events at or after this time (RFC 3339 UTC text).
    pub from_at: Option<String>,
    /// Only events whose subject or related id is one of these, or whose
    /// subject name (at the time) is `names`' or under one of `prefixes`.
    pub ids: Vec<String>,
    pub names: Vec<String>,
    /// `"local/x/"`: names below it.
    pub prefixes: Vec<String>,
    pub kind: Option<String>,
    pub op: Option<String>,
    pub actor_face: Option<Face>,
    pub actor_name: Option<String>,
    /// Only the events of these transactions (`txn`).
    pub txns: Vec<i64>,
    /// Newest first (else oldest first).
    pub newest_first: bool,
    pub limit: u32,
}

const COLUMNS: &str = "seq, txn, at, op, kind, subject_id, subject_name, related_id, \
                       changes_json, actor_name, actor_face";

fn decode(c: &Columns<'_>) -> Result<EventRow, StoreError> {
    let face = c.parsed(10, |t| Face::parse(t).ok_or("not a face"))?;
    Ok(EventRow {
        seq: c.get(0)?,
        txn: c.get(1)?,
        at: c.get(2)?,
        op: c.get(3)?,
        kind: c.get(4)?,
        subject_id: c.get(5)?,
        subject_name: c.get(6)?,
        related_id: c.get(7)?,
        changes: c.json_opt(8)?,
        actor: Actor {
            face,
            name: c.get(9)?,
        },
    })
}

/// `changes` as stored: the JSON text, or a note when it is too long.
fn changes_text(changes: Option<&serde_json::Value>) -> Option<String> {
    let text = super::to_json(changes?);
    if text.len() <= MAX_CHANGES_BYTES {
        return Some(text);
    }
    Some(super::to_json(&serde_json::json!({
        "truncated": true,
        "bytes": text.len(),
    })))
}

impl Reader<'_> {
    /// The highest seq handed out so far (0: none): the newest event's,
    /// or the high-water mark pruning left, whichever is higher.
    pub fn last_event_seq(&self) -> Result<i64, StoreError> {
        let max: Option<i64> = self.tx.value("SELECT MAX(seq) FROM events", args![])?;
        let mark = self
            .meta(LAST_SEQ_KEY)?
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        Ok(max.unwrap_or(0).max(mark))
    }

    /// The events `select` picks, in seq order (or newest first).
    pub fn events(&self, select: &EventSelect) -> Result<Vec<EventRow>, StoreError> {
        let mut sql = format!("SELECT {COLUMNS} FROM events WHERE 1 = 1");
        let mut values: Vec<Arg<'static>> = Vec::new();
        fn bind(values: &mut Vec<Arg<'static>>, v: Arg<'static>) -> usize {
            values.push(v);
            values.len()
        }
        if let Some(after) = select.after_seq {
            let n = bind(&mut values, Arg::Int(after));
            sql.push_str(&format!(" AND seq > ?{n}"));
        }
        if let Some(at) = &select.from_at {
            // The second test is implied by the first; it lets the
            // planner start at the first such event (through `events_at`)
            // instead of reading the log from its start in seq order.
            let n = bind(&mut values, Arg::Text(at.clone().into()));
            sql.push_str(&format!(
                " AND at >= ?{n} AND seq >= (SELECT MIN(seq) FROM events WHERE at >= ?{n})"
            ));
        }
        let text = |n: usize| self.tx.text_arg(n);
        let mut subject = Vec::new();
        if !select.ids.is_empty() {
            let n = bind(&mut values, Arg::Text(super::to_json(&select.ids).into()));
            let set = self.tx.json_set(n);
            subject.push(format!("subject_id IN ({set})"));
            subject.push(format!("related_id IN ({set})"));
        }
        for name in &select.names {
            let n = bind(&mut values, Arg::Text(name.clone().into()));
            subject.push(format!("subject_name = {}", text(n)));
        }
        for prefix in &select.prefixes {
            // Names below `prefix` (which ends in `/`): from it up to the
            // next string after every one starting with it (`/` + 1 = `0`).
            let mut upper = prefix.clone();
            upper.pop();
            upper.push('0');
            let lo = bind(&mut values, Arg::Text(prefix.clone().into()));
            let hi = bind(&mut values, Arg::Text(upper.into()));
            subject.push(format!(
                "(subject_name >= {} AND subject_name < {})",
                text(lo),
                text(hi)
            ));
        }
        if !subject.is_empty() {
            sql.push_str(&format!(" AND ({})", subject.join(" OR ")));
        }
        for (column, value) in [("kind", &select.kind), ("op", &select.op)] {
            if let Some(value) = value {
                let n = bind(&mut values, Arg::Text(value.clone().into()));
                sql.push_str(&format!(" AND {column} = ?{n}"));
            }
        }
        if let Some(face) = select.actor_face {
            let n = bind(&mut values, Arg::Text(face.as_str().into()));
            sql.push_str(&format!(" AND actor_face = ?{n}"));
        }
        if let Some(name) = &select.actor_name {
            let n = bind(&mut values, Arg::Text(name.clone().into()));
            sql.push_str(&format!(" AND actor_name = ?{n}"));
        }
        if !select.txns.is_empty() {
            let n = bind(&mut values, Arg::Text(super::to_json(&select.txns).into()));
            let set = match self.tx.dialect() {
                Dialect::Sqlite => format!("SELECT value FROM json_each(?{n})"),
                Dialect::Postgres => format!(
                    "SELECT CAST(value AS BIGINT) FROM \
                     json_array_elements_text(CAST(?{n} AS json)) AS j(value)"
                ),
            };
            sql.push_str(&format!(" AND txn IN ({set})"));
        }
        let order = if select.newest_first { "DESC" } else { "ASC" };
        let n = bind(&mut values, Arg::Int(i64::from(select.limit)));
        sql.push_str(&format!(" ORDER BY seq {order} LIMIT ?{n}"));
        self.tx.rows(&sql, &values, "events", 0, decode)
    }
}

impl Writer<'_> {
    /// Record `event` in this transaction; its seq.
    pub fn record(&self, event: &NewEvent<'_>) -> Result<i64, StoreError> {
        let mut guard = self.events.borrow_mut();
        let next = match guard.take() {
            Some(mut cursor) => {
                cursor.last += 1;
                cursor
            }
            None => {
                let last = self.last_event_seq()? + 1;
                let floor: Option<String> = self.tx.row(
                    "SELECT at FROM events ORDER BY seq DESC LIMIT 1",
                    args![],
                    "events",
                    usize::MAX,
                    |c| c.get(0),
                )?;
                Cursor {
                    last,
                    txn: last,
                    floor: floor.unwrap_or_default(),
                }
            }
        };
        let cursor = guard.insert(next);
        // Never before the event ahead of it: a write that waited for the
        // lock is stamped no earlier than the one that held it.
        if event.at > cursor.floor.as_str() {
            cursor.floor = event.at.to_owned();
        }
        let (seq, txn, at) = (cursor.last, cursor.txn, cursor.floor.as_str());
        self.tx.execute(
            &format!(
                "INSERT INTO events ({COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ),
            args![
                seq,
                txn,
                at,
                event.op,
                event.kind,
                event.subject_id,
                event.subject_name,
                event.related_id,
                changes_text(event.changes),
                event.actor.name.as_str(),
                event.actor.face.as_str(),
            ],
        )?;
        Ok(seq)
    }

    /// Insert an event kept elsewhere (an import `--with-events`) with
    /// its own seq and txn, as it was.
    pub fn insert_event_row(&self, row: &EventRow) -> Result<(), StoreError> {
        let changes = row.changes.as_ref().map(super::to_json);
        self.tx.execute(
            &format!(
                "INSERT INTO events ({COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ),
            args![
                row.seq,
                row.txn,
                row.at.as_str(),
                row.op.as_str(),
                row.kind.as_str(),
                &row.subject_id,
                &row.subject_name,
                &row.related_id,
                changes,
                row.actor.name.as_str(),
                row.actor.face.as_str(),
            ],
        )?;
        Ok(())
    }

    /// Delete the events before `before_seq` and/or before `before_at`
    /// (both given: either removes), keeping the high-water mark so no
    /// number is handed out twice; how many went.
    pub fn prune_events(
        &self,
        before_seq: Option<i64>,
        before_at: Option<&str>,
    ) -> Result<u64, StoreError> {
        if before_seq.is_none() && before_at.is_none() {
            return Ok(0);
        }
        let last = self.last_event_seq()?;
        self.set_meta(LAST_SEQ_KEY, &last.to_string())?;
        let mut removed = 0;
        if let Some(seq) = before_seq {
            removed += self
                .tx
                .execute("DELETE FROM events WHERE seq < ?1", args![seq])?;
        }
        if let Some(at) = before_at {
            removed += self
                .tx
                .execute("DELETE FROM events WHERE at < ?1", args![at])?;
        }
        Ok(removed)
    }
}

impl Writer<'_> {
    /// The first and the newest seq this transaction recorded (`None`:
    /// no event): its commit announces the newest to followers and marks
    /// both as this process's (`store::follow`).
    pub(super) fn recorded(&self) -> Option<(i64, i64)> {
        self.events.borrow().as_ref().map(|c| (c.txn, c.last))
    }
}
