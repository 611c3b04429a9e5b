//! The event log: every change to the registry, recorded in
//! the transaction that makes it, with who made it and through which
//! face — and the operations that read it back.
//!
//! **Recording** is every concern's work: each write takes a `Recorder`
//! (`registry::recording`, shared at the registry's top) before its transaction and records one event per change
//! inside it, so a refusal, a dry run or a crash leaves neither the change
//! nor its event. **Reading**: [`Registry::events`] (a query; cheap to
//! poll with `since: Seq(last)`), [`Registry::last_event_seq`] (one index
//! lookup), [`Registry::resource_history`] (one resource's life, with its
//! children's changes folded under the operation that made them).
//! **Keeping**: `retention` (the `events.keep` setting, applied on write,
//! and [`Registry::prune_events`]).
//!
//! The store's part (the sequence and the SQL) is `store::events`.

mod follow;
mod history;
mod query;

pub use crate::registry::error::EventsError;
pub use crate::registry::recording::retention::Keep;
pub use crate::registry::recording::{EventOp, KINDS};
pub use follow::{EventFollower, MAX_POLL};
pub use history::HistoryEntry;
pub use query::{Event, EventQuery, MAX_LIMIT, Since};

use crate::registry::recording::{EventOp as Op, diff, retention};

#[cfg(test)]
mod tests;

use super::{Registry, RegistryError};

impl Registry {
    /// The events `query` asks for, oldest first (`since` an event
    /// number: those after it — poll with the last one seen).
    pub fn events(&self, query: &EventQuery) -> Result<Vec<Event>, RegistryError> {
        query::events(self, query)
    }

    /// The number of the newest event (0: none yet). One index lookup:
    /// a follower polls it.
    pub fn last_event_seq(&self) -> Result<i64, RegistryError> {
        Ok(self.store.read(|r| r.last_event_seq())?)
    }

    /// One resource's life, newest first: each operation on it, with the
    /// changes to its descendants the same write made folded under it.
    pub fn resource_history(
        &self,
        key: &crate::model::ResourceKey,
        limit: Option<u32>,
    ) -> Result<Vec<HistoryEntry>, RegistryError> {
        history::history(self, key, limit)
    }

    /// Delete the events before `before` (a number: those below it; a
    /// time: those older). Numbers are never handed out again. How many
    /// went.
    pub fn prune_events(&mut self, before: &Since) -> Result<u64, RegistryError> {
        let (seq, at) = match before {
            Since::Seq(n) => (Some(*n), None),
            Since::Time(t) => (None, Some(t.as_str())),
        };
        Ok(self.store.write(|w| w.prune_events(seq, at))?)
    }

    /// The registry setting `key` (`events.keep`), as stored.
    pub fn registry_setting(&self, key: &str) -> Result<Option<String>, RegistryError> {
        check_setting(key)?;
        Ok(self.store.read(retention::read)?.map(|k| k.to_string()))
    }

    /// Set (or, with `None`, clear) the registry setting `key`; the
    /// value is checked first (`events.keep`: `90d` or `10000`). The
    /// change is an event (`settings.changed`) and applies retention at
    /// once.
    pub fn set_registry_setting(
        &mut self,
        key: &str,
        value: Option<&str>,
    ) -> Result<Option<String>, RegistryError> {
        check_setting(key)?;
        let keep = value.map(Keep::parse).transpose()?;
        let rec = self.recorder();
        let now = self.clock.now();
        self.store.write(|w| {
            let before = retention::read(w)?.map(|k| k.to_string());
            let after = keep.map(|k| k.to_string());
            match &after {
                Some(v) => w.set_meta(retention::KEEP_KEY, v)?,
                None => w.delete_meta(retention::KEEP_KEY)?,
            }
            if let Some(changes) = diff(&[(key, before.clone().into(), after.clone().into())]) {
                rec.named(w, Op::SettingsChanged, key, None, Some(changes))?;
            }
            retention::apply(w, now)?;
            Ok::<_, RegistryError>(after)
        })
    }
}

fn check_setting(key: &str) -> Result<(), EventsError> {
    let key = key.to_owned();
    (key == retention::KEEP_KEY)
        .then_some(())
        .ok_or(EventsError::UnknownSetting { key })
}
