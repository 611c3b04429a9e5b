//! Reading the log: the [`Event`] view (the JSON contract of `agents
//! events -o json`), the [`EventQuery`] that picks events, and how a
//! query becomes the store's select (a resource by its id and, with
//! `below`, its descendants by id and by name at the time — so a child
//! removed since is still found).

use crate::model::{Face, ResourceId, ResourceKey};
use crate::registry::error::EventsError;
use crate::registry::lookup::find_row;
use crate::registry::recording::{EventOp, KINDS};
use crate::registry::{Registry, RegistryError};
use crate::store::{EventRow, EventSelect};
use serde::Serialize;
use std::collections::HashMap;

/// The most events one query answers.
pub const MAX_LIMIT: u32 = 10_000;
/// How many when the query does not say.
pub const DEFAULT_LIMIT: u32 = 1_000;
/// The most descendants `below` follows by id (names cover the rest).
const MAX_BELOW: usize = 50_000;

/// From where a query reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// The events after this number.
    Seq(i64),
    /// The events at or after this time (RFC 3339 UTC, as stored:
    /// `2026-12-01T08:00:00.000Z`).
    Time(String),
}

impl Since {
    /// `42`, `2026-12-01`, or a UTC time `2026-12-01T08:00:00Z` (any
    /// fraction of a second).
    pub fn parse(text: &str) -> Result<Self, EventsError> {
        let bad = || EventsError::BadSince {
            value: text.to_owned(),
        };
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse().map(Since::Seq).map_err(|_| bad());
        }
        let full = if text.len() == 10 {
            format!("{text}T00:00:00Z")
        } else {
            text.to_owned()
        };
        if !crate::effects::is_iso8601(&full) {
            return Err(bad());
        }
        // As stored: exactly three digits of fraction.
        let body = &full[..19];
        let fraction = full[19..].trim_start_matches('.').trim_end_matches('Z');
        let millis: String = fraction.chars().chain("000".chars()).take(3).collect();
        Ok(Since::Time(format!("{body}.{millis}Z")))
    }
}

/// Which events to read. Every filter given must hold.
#[derive(Debug, Clone, Default)]
pub struct EventQuery {
    pub since: Option<Since>,
    /// Only the events about this resource (as subject, or as the other
    /// end: a link's parent, a sandbox's resource).
    pub resource: Option<ResourceKey>,
    /// With `resource`: its descendants' events too (by id, and by name
    /// at the time, so children removed since are found).
    pub below: bool,
    /// Only subjects of this kind (`resource`, `link`, `type`, …).
    pub kind: Option<String>,
    /// Only this actor: a face (`mcp`), a name (`alice`), or both
    /// (`cli:alice`).
    pub actor: Option<String>,
    /// Only this operation (`resource.registered`).
    pub op: Option<String>,
    /// At most this many (default 1000, at most 10000): the oldest ones
    /// after `since`.
    pub limit: Option<u32>,
}

/// One event, as programs read it (`agents events -o json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Event {
    /// Its number: gap-free, in commit order.
    pub seq: i64,
    /// When (RFC 3339 UTC).
    pub at: String,
    pub op: EventOp,
    /// The kind of subject: `resource`, `link`, `type`, `plugin`,
    /// `sandbox`, `trust`, `settings`, `registry`.
    pub kind: String,
    /// The subject's id (a resource's or sandbox's ULID; a type's, a
    /// plugin's or a setting's name; for a link, the child's id).
    pub id: Option<String>,
    /// The subject's name as it was at the time.
    pub name: Option<String>,
    /// The subject's name now, when it still exists under another one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_name: Option<String>,
    /// What changed: fields with `before`/`after`, or the op's facts.
    pub changes: Option<serde_json::Value>,
    /// Who: the OS user, an MCP client's `name/version`, an embedder's
    /// label.
    pub actor: String,
    /// Through which face.
    pub via: Face,
    /// The number of the first event of the same write (the events of
    /// one write share it).
    #[serde(skip)]
    pub txn: i64,
    /// The other resource the change names (a link's parent).
    #[serde(skip)]
    pub related_id: Option<String>,
}

impl Event {
    fn from_row_checked(row: EventRow) -> Result<Self, RegistryError> {
        let op = EventOp::parse(&row.op).ok_or_else(|| crate::store::StoreError::Corrupt {
            what: format!("events[{}]", row.seq),
            reason: format!("unknown op {:?} (written by a newer agents?)", row.op),
        })?;
        Ok(Self {
            seq: row.seq,
            at: row.at,
            op,
            kind: row.kind,
            id: row.subject_id,
            name: row.subject_name,
            current_name: None,
            changes: row.changes,
            actor: row.actor.name,
            via: row.actor.face,
            txn: row.txn,
            related_id: row.related_id,
        })
    }
}

/// The store's select for `query` (the resource looked up in `r`).
pub(super) fn select(
    r: &crate::store::Reader<'_>,
    query: &EventQuery,
) -> Result<EventSelect, RegistryError> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        let max = MAX_LIMIT;
        return Err(EventsError::BadLimit { limit, max }.into());
    }
    let mut select = EventSelect {
        limit,
        ..EventSelect::default()
    };
    match &query.since {
        Some(Since::Seq(n)) => select.after_seq = Some(*n),
        Some(Since::Time(t)) => select.from_at = Some(t.clone()),
        None => {}
    }
    if let Some(op) = &query.op {
        let op = EventOp::parse(op).ok_or_else(|| EventsError::BadOp { value: op.clone() })?;
        select.op = Some(op.as_str().to_owned());
    }
    if let Some(kind) = &query.kind {
        if !KINDS.contains(&kind.as_str()) {
            let value = kind.clone();
            return Err(EventsError::BadKind { value }.into());
        }
        select.kind = Some(kind.clone());
    }
    if let Some(actor) = &query.actor {
        match actor.split_once(':').map(|(f, n)| (Face::parse(f), n)) {
            Some((Some(face), name)) => {
                select.actor_face = Some(face);
                select.actor_name = Some(name.to_owned());
            }
            _ => match Face::parse(actor) {
                Some(face) => select.actor_face = Some(face),
                None => select.actor_name = Some(actor.clone()),
            },
        }
    }
    if let Some(key) = &query.resource {
        subject_filter(r, key, query.below, &mut select)?;
    }
    Ok(select)
}

/// Narrow `select` to `key`'s events (and, `below`, its descendants').
/// A resource that is gone is found by the name it had (`key` a name)
/// or its id.
fn subject_filter(
    r: &crate::store::Reader<'_>,
    key: &ResourceKey,
    below: bool,
    select: &mut EventSelect,
) -> Result<(), RegistryError> {
    let (id, name) = match (find_row(r, key), key) {
        (Ok(row), _) => (Some(row.id), row.name.map(|n| n.to_string())),
        (Err(RegistryError::Resources(_)), ResourceKey::Id(id)) => (Some(*id), None),
        // Gone: its id is the one its last event under this name had.
        (Err(RegistryError::Resources(_)), ResourceKey::Name(name)) => {
            (last_id_named(r, name.as_str())?, Some(name.to_string()))
        }
        (Err(e), _) => return Err(e),
    };
    if let Some(id) = id {
        select.ids.push(id.to_string());
        if below {
            let mut seen = std::collections::HashSet::from([id]);
            let children = r.edges_reachable(&[id])?.into_iter().map(|e| e.child);
            let new = children.filter(|child| seen.insert(*child));
            select
                .ids
                .extend(new.take(MAX_BELOW - 1).map(|child| child.to_string()));
        }
    }
    if let Some(name) = name {
        if below {
            select.prefixes.push(format!("{name}/"));
        }
        select.names.push(name);
    }
    Ok(())
}

/// The work of [`Registry::events`].
pub(super) fn events(reg: &Registry, query: &EventQuery) -> Result<Vec<Event>, RegistryError> {
    reg.store.read(|r| selected(r, &select(r, query)?))
}

/// The events `select` picks, each resource subject named as it is now
/// ([`name_now`]).
pub(super) fn selected(
    r: &crate::store::Reader<'_>,
    select: &EventSelect,
) -> Result<Vec<Event>, RegistryError> {
    let rows = r.events(select)?;
    let mut events = rows
        .into_iter()
        .map(Event::from_row_checked)
        .collect::<Result<Vec<_>, _>>()?;
    name_now(r, &mut events)?;
    Ok(events)
}

/// Fill in `current_name` for resource subjects that exist under another
/// name now (one query for all of them).
fn name_now(r: &crate::store::Reader<'_>, events: &mut [Event]) -> Result<(), RegistryError> {
    let of_resource = |e: &Event| matches!(e.kind.as_str(), "resource" | "link");
    let ids: std::collections::BTreeSet<ResourceId> = events
        .iter()
        .filter(|e| of_resource(e))
        .filter_map(|e| e.id.as_deref().and_then(|id| ResourceId::parse(id).ok()))
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let ids: Vec<ResourceId> = ids.into_iter().collect();
    let now: HashMap<String, String> = r
        .resources_by_ids(&ids)?
        .into_iter()
        .map(|row| (row.id.to_string(), row.label()))
        .collect();
    for event in events.iter_mut().filter(|e| of_resource(e)) {
        if let Some(current) = event.id.as_ref().and_then(|id| now.get(id))
            && event.name.as_ref() != Some(current)
        {
            event.current_name = Some(current.clone());
        }
    }
    Ok(())
}

/// The id of the resource last recorded under `name` (one gone since).
fn last_id_named(
    r: &crate::store::Reader<'_>,
    name: &str,
) -> Result<Option<ResourceId>, RegistryError> {
    let select = EventSelect {
        names: vec![name.to_owned()],
        kind: Some("resource".to_owned()),
        newest_first: true,
        limit: 1,
        ..EventSelect::default()
    };
    Ok(r.events(&select)?
        .into_iter()
        .next()
        .and_then(|e| e.subject_id)
        .and_then(|id| ResourceId::parse(&id).ok()))
}
