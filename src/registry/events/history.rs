//! `agents resource history NAME`: one resource's life, newest first.
//! One query reads its events and its descendants' (by id and by name at
//! the time); each of its own events becomes an entry, and the
//! descendants' events the same write made (the same `txn`) fold under
//! it — a registration and the children it discovered, a removal and
//! what went with it. A descendant's change in a write of its own is an
//! entry of its own.

use super::query::{self, Event, EventQuery};
use crate::model::ResourceKey;
use crate::registry::{Registry, RegistryError};
use serde::Serialize;
use std::collections::HashMap;

/// One operation in a resource's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HistoryEntry {
    #[serde(flatten)]
    pub event: Event,
    /// The descendants' changes the same write made, in seq order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Event>,
}

/// The work of [`Registry::resource_history`].
pub(super) fn history(
    reg: &Registry,
    key: &ResourceKey,
    limit: Option<u32>,
) -> Result<Vec<HistoryEntry>, RegistryError> {
    reg.store.read(|r| {
        let q = EventQuery {
            resource: Some(key.clone()),
            below: true,
            limit: Some(query::MAX_LIMIT),
            ..EventQuery::default()
        };
        let mut select = query::select(r, &q)?;
        select.newest_first = true;
        let own_ids: Vec<String> = select.ids.first().cloned().into_iter().collect();
        let own_names = select.names.clone();
        let events = query::selected(r, &select)?;
        let is_own = |e: &Event| {
            e.id.as_ref().is_some_and(|id| own_ids.contains(id))
                || e.related_id.as_ref().is_some_and(|id| own_ids.contains(id))
                || e.name.as_ref().is_some_and(|n| own_names.contains(n))
        };
        // Newest first; an own event takes the descendants' events of its
        // write, which may come before or after it in seq order.
        let mut entries: Vec<HistoryEntry> = Vec::new();
        let mut own_txn: HashMap<i64, usize> = HashMap::new();
        let (own, others): (Vec<Event>, Vec<Event>) = events.into_iter().partition(is_own);
        let entry = |event| HistoryEntry {
            event,
            children: Vec::new(),
        };
        for event in own {
            own_txn.entry(event.txn).or_insert(entries.len());
            entries.push(entry(event));
        }
        // (Every own entry is in place: the loose ones go after them.)
        for event in others {
            match own_txn.get(&event.txn) {
                Some(&i) => entries[i].children.push(event),
                None => entries.push(entry(event)),
            }
        }
        entries.sort_by_key(|e| std::cmp::Reverse(e.event.seq));
        for entry in &mut entries {
            entry.children.sort_by_key(|e| e.seq);
        }
        entries.truncate(limit.unwrap_or(query::DEFAULT_LIMIT) as usize);
        Ok(entries)
    })
}
