//! The SQLite store: the only place with SQL.
//!
//! **One file, many processes.** Several `agents` processes may write the
//! same home at once, so every connection runs in WAL mode with a generous
//! `busy_timeout`, `foreign_keys=ON`, and every write runs in
//! `BEGIN IMMEDIATE` ([`Store::write`]): a writer takes the write lock
//! up front (waiting for it under the busy timeout) instead of failing a
//! lock upgrade half-way, which is what surfaces `database is locked` under
//! deferred transactions.
//!
//! **Schema versions.** `migrations/NNNN_*.sql` are embedded in the binary
//! and applied in order inside one immediate transaction; `PRAGMA
//! user_version` records the last applied one. A database whose version is
//! newer than this binary knows is refused before anything is written to
//! it — it is first opened read-only to look.
//!
//! Reads go through [`Reader`], writes through [`Writer`] (which derefs to a
//! `Reader` so a write can read its own transaction). Neither exists outside
//! a transaction the store opened, so there is no unguarded write path.

mod bulk;
mod columns;
mod environments;
mod links;
mod plugins;
mod resources;
mod sandboxes;
mod types;

pub use bulk::{Counts, LinkRow};
pub use environments::{ContainerState, ContainerStateRow, SettingRow, SettingScope};
pub use links::{Subgraph, TreeEdge, TypedLink};
pub use plugins::PluginRow;
pub use resources::{ResourceInserter, ResourceRow};
pub use sandboxes::{CheckpointRow, SandboxRow, SandboxState};
pub use types::TypeRow;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// The migrations, in order. Their position + 1 is the schema version.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_registry",
        include_str!("../../migrations/0001_registry.sql"),
    ),
    (
        "0002_plugins",
        include_str!("../../migrations/0002_plugins.sql"),
    ),
    (
        "0003_types_generation",
        include_str!("../../migrations/0003_types_generation.sql"),
    ),
    (
        "0004_refresh",
        include_str!("../../migrations/0004_refresh.sql"),
    ),
    (
        "0005_sandboxes",
        include_str!("../../migrations/0005_sandboxes.sql"),
    ),
    (
        "0006_environments",
        include_str!("../../migrations/0006_environments.sql"),
    ),
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Which kind of store this is, as `agents registry info` names it.
pub const BACKEND: &str = "sqlite";

/// How long a connection waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(
        "the registry at {path} has schema version {found}, newer than this agents binary \
         understands ({supported}); it was left untouched — use a newer agents binary"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("cannot open the registry at {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("applying migration {name} failed: {source}")]
    Migration {
        name: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    #[error("registry database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("registry row {what} holds invalid data: {reason}")]
    Corrupt { what: String, reason: String },
    /// An insert met the `UNIQUE` name constraint (another resource, maybe
    /// written by another process a moment ago, has the name).
    #[error("a resource named {name} already exists")]
    NameTaken { name: crate::model::ResourceName },
}

/// One connection to the registry database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// The database file (`None`: in memory).
    path: Option<PathBuf>,
}

impl Store {
    /// Open (creating if needed) the registry file at `path` and bring its
    /// schema up to date. Refuses, untouched, a schema newer than ours.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let open_err = |source| StoreError::Open {
            path: path.to_owned(),
            source,
        };
        if path.exists() {
            let peek = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(open_err)?;
            peek.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
            let found = user_version(&peek).map_err(open_err)?;
            refuse_newer(path, found)?;
        }
        let conn = Connection::open(path).map_err(open_err)?;
        configure(&conn, true).map_err(open_err)?;
        let mut store = Self {
            conn,
            path: Some(path.to_owned()),
        };
        store.migrate(path)?;
        Ok(store)
    }

    /// A private in-memory registry (tests, embedding without a home).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let conn = Connection::open_in_memory()?;
        configure(&conn, false)?;
        let mut store = Self { conn, path: None };
        store.migrate(Path::new(":memory:"))?;
        Ok(store)
    }

    fn migrate(&mut self, path: &Path) -> Result<(), StoreError> {
        if user_version(&self.conn)? == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Re-read under the write lock: another process may have migrated.
        let found = user_version(&tx)?;
        refuse_newer(path, found)?;
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(sql)
                .map_err(|source| StoreError::Migration { name, source })?;
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Run `f` over a consistent snapshot (a deferred read transaction).
    pub fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Reader<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(StoreError::from)?;
        let out = f(&Reader { conn: &tx })?;
        tx.finish().map_err(StoreError::from)?;
        Ok(out)
    }

    /// The database file (`None` for an in-memory store).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Run `f` in `BEGIN IMMEDIATE` like [`Store::write`], then roll back
    /// whatever it did, `Ok` or not: a rehearsal (`--dry-run`) that meets
    /// every check and constraint a real write would, and leaves nothing.
    pub fn rehearse<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(StoreError::from)?;
        record_written_types(&tx).map_err(StoreError::from)?;
        let out = f(&Writer {
            reader: Reader { conn: &tx },
        });
        tx.rollback().map_err(StoreError::from)?;
        out
    }

    /// Run `f` in `BEGIN IMMEDIATE`; commit when it returns `Ok`, roll back
    /// (leaving the registry exactly as it was) when it returns `Err`.
    pub fn write<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&Writer<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(StoreError::from)?;
        // Inside the write lock, not at open: creating the temporary
        // triggers reads the main schema, which a process racing to
        // create a fresh home may hold.
        record_written_types(&tx).map_err(StoreError::from)?;
        let out = f(&Writer {
            reader: Reader { conn: &tx },
        })?;
        tx.commit().map_err(StoreError::from)?;
        Ok(out)
    }
}

/// Read access inside a transaction.
#[derive(Debug)]
pub struct Reader<'c> {
    conn: &'c Connection,
}

/// Write access inside an immediate transaction.
#[derive(Debug)]
pub struct Writer<'c> {
    reader: Reader<'c>,
}

impl<'c> std::ops::Deref for Writer<'c> {
    type Target = Reader<'c>;
    fn deref(&self) -> &Reader<'c> {
        &self.reader
    }
}

impl Reader<'_> {
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        use rusqlite::OptionalExtension;
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM registry_meta WHERE key = ?1",
                [key],
                |row| row.get(0),
            )
            .optional()?)
    }
}

impl Writer<'_> {
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.reader.conn.execute(
            "INSERT INTO registry_meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )?;
        Ok(())
    }

    fn conn(&self) -> &Connection {
        self.reader.conn
    }
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

fn refuse_newer(path: &Path, found: i64) -> Result<(), StoreError> {
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// Record, per connection, the types of the resources a transaction
/// inserts, deletes or changes the properties of (temporary triggers on
/// a temporary table: nothing in the registry file), created if missing
/// at the start of every write transaction. Identities are reconciled
/// only for those types; see `registry::equivalence`. The table is
/// transactional like everything else: a rolled-back write leaves no
/// entry (and, if it created them, no table and triggers either).
fn record_written_types(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS written_types (type_name TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TRIGGER IF NOT EXISTS written_insert AFTER INSERT ON main.resources
         BEGIN INSERT OR IGNORE INTO written_types VALUES (NEW.type_name); END;
         CREATE TEMP TRIGGER IF NOT EXISTS written_delete AFTER DELETE ON main.resources
         BEGIN INSERT OR IGNORE INTO written_types VALUES (OLD.type_name); END;
         CREATE TEMP TRIGGER IF NOT EXISTS written_update
         AFTER UPDATE OF properties_json, type_name ON main.resources
         BEGIN INSERT OR IGNORE INTO written_types VALUES (NEW.type_name), (OLD.type_name); END;",
    )
}

fn configure(conn: &Connection, file: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    if file {
        // Switching to WAL needs a moment of exclusivity; under the busy
        // timeout it waits for other processes like any write.
        // (A filesystem without shared memory answers another mode; the
        // registry still works, with less concurrency.)
        let _mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Serialize a value to the JSON text a `*_json` column holds.
fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| unreachable!("model values serialize: {e}"))
}

#[cfg(test)]
mod tests;
