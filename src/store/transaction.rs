//! The transactions the store runs every read and write in, and the
//! guarantees they give on both backends.
//!
//! **One file, many processes (SQLite).** Several `agents` processes may write the
//! same home at once, so every connection runs in WAL mode with a generous
//! `busy_timeout`, `foreign_keys=ON`, and every write runs in
//! `BEGIN IMMEDIATE` ([`Store::write`]): a writer takes the write lock
//! up front (waiting for it under the busy timeout) instead of failing a
//! lock upgrade half-way, which is what surfaces `database is locked` under
//! deferred transactions.
//!
//! **One server, many machines (PostgreSQL).** Every write transaction
//! takes one transaction-scoped advisory lock first
//! (`pg_advisory_xact_lock`), the same single-writer discipline SQLite's
//! `BEGIN IMMEDIATE` gives: a check and the write it guards (the cycle
//! check and the link, a free name and the insert, a type replacement and
//! the resources it must still fit) can never interleave with another
//! writer's, so PostgreSQL's write skew — two processes linking A → B and
//! B → A, each passing its cycle check — cannot happen, and no write ever
//! fails with a serialization error to retry. Reads take no lock: each
//! runs in one `REPEATABLE READ READ ONLY` snapshot. The lock is keyed by
//! the schema, so registries in different schemas of one database do not
//! wait for each other.
//!
//! Reads go through [`Reader`], writes through [`Writer`] (which derefs to a
//! `Reader` so a write can read its own transaction). Neither exists outside
//! a transaction the store opened, so there is no unguarded write path.

use super::db::Tx;
use super::sqlite::record_written_types;
use super::{Backend, Store, StoreError, events, follow, pg};
use rusqlite::TransactionBehavior;

impl Store {
    /// Run `f` over a consistent snapshot (a read transaction).
    pub fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match &self.backend {
            Backend::Sqlite { conn, .. } => {
                let tx = conn.unchecked_transaction().map_err(StoreError::from)?;
                let out = f(&Reader {
                    tx: Tx::Sqlite(&tx),
                })?;
                tx.finish().map_err(StoreError::from)?;
                Ok(out)
            }
            Backend::Postgres { conn, .. } => {
                conn.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
                let out = f(&Reader {
                    tx: Tx::Postgres(conn),
                });
                pg::finish(conn, out.is_ok())?;
                out
            }
        }
    }

    /// Run `f` in a write transaction like [`Store::write`], then roll
    /// back whatever it did, `Ok` or not: a rehearsal (`--dry-run`) that
    /// meets every check and constraint a real write would, and leaves
    /// nothing.
    pub fn rehearse<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.transaction(false, f)
    }

    /// Run `f` in a write transaction (SQLite: `BEGIN IMMEDIATE`;
    /// PostgreSQL: the write lock first); commit when it returns `Ok`,
    /// roll back (leaving the registry exactly as it was) when it returns
    /// `Err`.
    pub fn write<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.transaction(true, f)
    }

    fn transaction<T, E: From<StoreError>>(
        &mut self,
        commit: bool,
        f: impl FnOnce(&Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let machine = self.machine.as_deref();
        match &mut self.backend {
            Backend::Sqlite { conn, .. } => {
                let tx = conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(StoreError::from)?;
                // Inside the write lock, not at open: creating the temporary
                // triggers reads the main schema, which a process racing to
                // create a fresh home may hold.
                record_written_types(&tx).map_err(StoreError::from)?;
                let writer = Writer {
                    reader: Reader {
                        tx: Tx::Sqlite(&tx),
                    },
                    machine,
                    events: Default::default(),
                };
                let out = f(&writer);
                let recorded = writer.recorded();
                drop(writer);
                if commit && out.is_ok() {
                    let own = follow::Own::mark(recorded);
                    tx.commit().map_err(StoreError::from)?;
                    own.keep();
                } else {
                    // `finish`, not `rollback`: SQLite may have rolled the
                    // whole transaction back itself (a full disk while it
                    // spilled pages to the log), and then there is nothing
                    // left to roll back — the error that did it (`out`) is
                    // the one to report, not "no transaction is active".
                    tx.finish().map_err(StoreError::from)?;
                }
                out
            }
            Backend::Postgres { conn, .. } => {
                pg::begin_write(conn)?;
                let writer = Writer {
                    reader: Reader {
                        tx: Tx::Postgres(conn),
                    },
                    machine,
                    events: Default::default(),
                };
                let out = f(&writer);
                // A write that recorded events wakes the followers
                // (`follow`) as it commits.
                let recorded = writer.recorded();
                let commit = commit && out.is_ok();
                let own = follow::Own::mark(recorded.filter(|_| commit));
                pg::finish_notifying(conn, commit, recorded.map(|(_, last)| last))?;
                own.keep();
                out
            }
        }
    }
}

/// Read access inside a transaction.
#[derive(Debug)]
pub struct Reader<'c> {
    pub(super) tx: Tx<'c>,
}

/// Write access inside a write transaction.
#[derive(Debug)]
pub struct Writer<'c> {
    pub(super) reader: Reader<'c>,
    /// What new resources with a location record as their machine.
    pub(super) machine: Option<&'c str>,
    /// Where this transaction's events are (`None`: no event yet; see
    /// `events`).
    pub(super) events: std::cell::RefCell<Option<events::Cursor>>,
}

impl<'c> std::ops::Deref for Writer<'c> {
    type Target = Reader<'c>;
    fn deref(&self) -> &Reader<'c> {
        &self.reader
    }
}
