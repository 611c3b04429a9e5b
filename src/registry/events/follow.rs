//! Following the log live: an [`EventFollower`] hands back each batch of
//! events that lands, from any process writing the same registry.
//!
//! Between two looks it waits on the store's signal (`store::follow`):
//! PostgreSQL's `LISTEN agents_events`, woken by the `NOTIFY` each
//! committing write sends; on SQLite (or when listening fails) a sleep of
//! the poll interval. A look is one index read (`last_event_seq`); only
//! when that moved does it read the events after the last one seen, with
//! the query's filters. The follower holds no borrow of the registry, so
//! an embedder can keep both.

use super::query::{DEFAULT_LIMIT, Event, EventQuery, Since};
use crate::registry::{Registry, RegistryError};
use crate::store::EventSignal;
use std::time::{Duration, Instant};

/// The longest a follower polling SQLite sleeps between two looks.
pub const MAX_POLL: Duration = Duration::from_millis(200);
/// The longest a listening follower waits for a notification before it
/// looks anyway (a notification lost with a connection costs this much).
const LISTEN_LOOK: Duration = Duration::from_secs(1);

/// A live view of the log (see the module docs).
#[derive(Debug)]
pub struct EventFollower {
    query: EventQuery,
    /// The last seq looked past: every matching event up to it has been
    /// handed back.
    last: i64,
    poll: Duration,
    signal: EventSignal,
    /// Leave out the events this process wrote.
    others_only: bool,
}

impl Registry {
    /// Follow the events `query` picks. Its `since` says where from: a
    /// number (the events after it), a time (those at or after it), or
    /// none (only those that land from now on). `poll` is how long a
    /// follower on SQLite sleeps between looks (at most [`MAX_POLL`]);
    /// on PostgreSQL a notification wakes it at once. `query.limit` is
    /// the most one batch holds.
    pub fn follow_events(
        &self,
        query: EventQuery,
        poll: Duration,
    ) -> Result<EventFollower, RegistryError> {
        let last = match &query.since {
            Some(Since::Seq(n)) => *n,
            None => self.last_event_seq()?,
            Some(Since::Time(_)) => {
                // Every event at or after the time, whatever its filters
                // say: the first one's number is where to start.
                let first = self.events(&EventQuery {
                    since: query.since.clone(),
                    limit: Some(1),
                    ..EventQuery::default()
                })?;
                match first.first() {
                    Some(e) => e.seq - 1,
                    None => self.last_event_seq()?,
                }
            }
        };
        Ok(EventFollower {
            query,
            last,
            poll: poll.min(MAX_POLL),
            signal: self.store.event_signal(),
            others_only: false,
        })
    }
}

impl EventFollower {
    /// Hand back only the events other processes wrote (for a follower
    /// that hears of its own changes as it makes them; one that needs
    /// both asks [`Self::written_here`] per event).
    pub fn others_only(mut self) -> Self {
        self.others_only = true;
        self
    }

    /// Whether this process wrote `event` (a committed transaction of one
    /// of its stores): `agents mcp` tells its own resource changes as its
    /// tools make them, but a list's change whoever made it, so it
    /// follows every event and asks this per purpose. Judged as
    /// [`Self::others_only`] judges.
    pub fn written_here(&self, event: &Event) -> bool {
        crate::store::written_here(event.seq)
    }

    /// The last event number looked past.
    pub fn last_seq(&self) -> i64 {
        self.last
    }

    /// Whether a PostgreSQL notification wakes this follower (else it
    /// polls).
    pub fn listening(&self) -> bool {
        self.signal.listening()
    }

    /// The next events that match, oldest first: those already there at
    /// once, else waiting for some at most `wait` (then none: empty).
    /// `registry` is the one this follower was made from.
    pub fn next_batch(
        &mut self,
        registry: &Registry,
        wait: Duration,
    ) -> Result<Vec<Event>, RegistryError> {
        let deadline = Instant::now() + wait;
        loop {
            let batch = self.look(registry)?;
            if !batch.is_empty() {
                return Ok(batch);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(batch);
            }
            let most = if self.signal.listening() {
                LISTEN_LOOK
            } else {
                self.poll
            };
            self.signal.wait(left.min(most));
        }
    }

    /// One look: the matching events after `last`, if the log moved.
    fn look(&mut self, registry: &Registry) -> Result<Vec<Event>, RegistryError> {
        let newest = registry.last_event_seq()?;
        if newest <= self.last {
            return Ok(Vec::new());
        }
        let limit = self.query.limit.unwrap_or(DEFAULT_LIMIT);
        let query = EventQuery {
            since: Some(Since::Seq(self.last)),
            limit: Some(limit),
            ..self.query.clone()
        };
        let mut batch = registry.events(&query)?;
        let seen = batch.last().map_or(self.last, |e| e.seq);
        // A full batch may have more behind it: go on from its last.
        // Otherwise every match up to `newest` (and any later one the
        // read already saw) is handed back.
        self.last = if batch.len() as u64 >= u64::from(limit) {
            seen
        } else {
            seen.max(newest)
        };
        if self.others_only {
            batch.retain(|e| !crate::store::written_here(e.seq));
        }
        Ok(batch)
    }
}
