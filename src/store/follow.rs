//! Waking a follower of the log when another process records an event.
//!
//! **PostgreSQL**: every write transaction that recorded events queues
//! `NOTIFY agents_events, '<its newest seq>'` just before its `COMMIT`
//! (`pg::finish_notifying`), which the server delivers on commit — never
//! for a rolled-back one. A follower holds a second connection that has
//! run `LISTEN agents_events` and waits on it. The channel is the
//! database's, shared by every schema in it, so a notification is only a
//! wake-up: the follower then reads `last_event_seq` and the events after
//! what it saw from its own schema, and a stranger's notification costs
//! one index read. If the second connection cannot be made or breaks, the
//! follower polls instead.
//!
//! **SQLite** has no cross-process notification: waiting is sleeping the
//! poll interval, after which the follower reads `last_event_seq` (one
//! index lookup).

use super::{Backend, Store, location};
use postgres::fallible_iterator::FallibleIterator;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// The PostgreSQL channel a committed write's events are announced on.
pub(super) const EVENTS_CHANNEL: &str = "agents_events";

/// What a follower waits on between two looks at the log.
pub struct EventSignal {
    /// The listening connection (PostgreSQL, while it works).
    listen: Option<postgres::Client>,
}

impl std::fmt::Debug for EventSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventSignal")
            .field("listening", &self.listening())
            .finish()
    }
}

impl Store {
    /// A signal for following this store's log: on PostgreSQL a second
    /// connection listening on [`EVENTS_CHANNEL`] (none if it cannot be
    /// made: the follower polls); on SQLite, none.
    pub fn event_signal(&self) -> EventSignal {
        let listen = match &self.backend {
            Backend::Sqlite { .. } => None,
            Backend::Postgres { url, .. } => location::connect(url).ok().and_then(|mut c| {
                c.batch_execute(&format!("LISTEN {EVENTS_CHANNEL}"))
                    .ok()
                    .map(|()| c)
            }),
        };
        EventSignal { listen }
    }
}

impl EventSignal {
    /// Whether a notification can wake the follower (else it polls).
    pub fn listening(&self) -> bool {
        self.listen.is_some()
    }

    /// Wait at most `timeout`: until a notification arrives (true), or
    /// the time is up (false). Without a listening connection, sleep it.
    /// A broken connection is dropped (later waits sleep).
    pub fn wait(&mut self, timeout: Duration) -> bool {
        let Some(client) = &mut self.listen else {
            std::thread::sleep(timeout);
            return false;
        };
        let woke = match client.notifications().timeout_iter(timeout).next() {
            Ok(Some(_)) => Ok(true),
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        };
        match woke {
            Ok(true) => {
                // Those already here: one look at the log answers them all.
                let mut pending = client.notifications();
                let mut iter = pending.iter();
                while let Ok(Some(_)) = iter.next() {}
                true
            }
            Ok(false) => false,
            Err(_) => {
                self.listen = None;
                std::thread::sleep(timeout);
                false
            }
        }
    }
}

/// The seq ranges this process committed, newest last (a few thousand:
/// a follower far behind may take an old one of its own for a stranger's).
static OWN: Mutex<VecDeque<(i64, i64)>> = Mutex::new(VecDeque::new());
const OWN_KEPT: usize = 4096;

/// Whether the event `seq` was written by this process (a transaction
/// of one of its stores, committed) — so `agents mcp` can tell its
/// subscribers of the other processes' changes without telling its own
/// twice.
pub fn written_here(seq: i64) -> bool {
    OWN.lock()
        .map(|own| {
            own.iter()
                .any(|(first, last)| (*first..=*last).contains(&seq))
        })
        .unwrap_or(false)
}

/// A transaction's events marked as this process's before its commit (so
/// no follower in this process can see them unmarked); unmarked again
/// unless [`Own::keep`] says the commit landed.
pub(super) struct Own(Option<(i64, i64)>);

impl Own {
    pub(super) fn mark(range: Option<(i64, i64)>) -> Self {
        if let (Some(range), Ok(mut own)) = (range, OWN.lock()) {
            own.push_back(range);
            while own.len() > OWN_KEPT {
                own.pop_front();
            }
        }
        Self(range)
    }

    pub(super) fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Own {
    fn drop(&mut self) {
        if let (Some(range), Ok(mut own)) = (self.0, OWN.lock()) {
            own.retain(|r| *r != range);
        }
    }
}
