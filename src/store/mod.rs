//! The store: the only place with SQL, over two backends — the embedded
//! SQLite file in the home (the default) and a shared PostgreSQL server
//! (`--registry postgres://…`). Nothing above this module knows which it
//! talks to: the statements are written once (`db`) and the
//! transactions below give both the same guarantees.
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
//! **Schema versions.** `migrations/<backend>/NNNN_*.sql` (the same
//! numbering for both) are embedded in the binary and applied in order
//! inside one transaction; SQLite's `PRAGMA user_version`, or the
//! `agents_schema_migrations` table on PostgreSQL, records the last
//! applied one. A database whose version is newer than this binary knows
//! is refused before anything is written to it. On PostgreSQL the
//! migration runs under an advisory lock, so two processes meeting an
//! empty database at once migrate it once.
//!
//! Reads go through [`Reader`], writes through [`Writer`] (which derefs to a
//! `Reader` so a write can read its own transaction). Neither exists outside
//! a transaction the store opened, so there is no unguarded write path.

mod bulk;
use db::columns;
mod db;
mod environments;
mod equivalence;
mod events;
mod follow;
mod links;
mod location;
mod machines;
mod pg;
mod plugins;
mod readable_names;
mod resources;
mod sandboxes;
mod skeletons;
mod sqlite;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
mod trust;
mod types;

pub use bulk::{Counts, LinkRow};
pub use environments::{ContainerStateRow, SettingRow};
pub use events::{EventRow, EventSelect, MAX_CHANGES_BYTES, NewEvent};
pub use follow::{EventSignal, written_here};
pub use location::RegistryLocation;
pub use plugins::{PluginOrigin, PluginRow, ProvenanceRow};
pub use resources::{ResourceInserter, ResourceRow};
pub use sandboxes::{CheckpointRow, SandboxRow};
pub use trust::TrustRow;
pub use types::{TypeOrigin, TypeRow};

use db::{PgConn, Tx, args};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use sqlite::{configure, record_written_types, user_version};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// The migrations of one backend, in order; their position + 1 is the
/// schema version. Both lists have the same names (a test checks it).
type Migrations = &'static [(&'static str, &'static str)];

macro_rules! migrations {
    ($dir:literal: $($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../migrations/", $dir, "/", $name, ".sql")))),*]
    };
}

const SQLITE_MIGRATIONS: Migrations = migrations!("sqlite":
    "0001_registry",
    "0002_plugins",
    "0003_types_generation",
    "0004_refresh",
    "0005_sandboxes",
    "0006_environments",
    "0007_shared",
    "0008_trust",
    "0009_readable_names",
    "0010_provenance",
    "0011_plugin_provenance",
    "0012_events",
);

const POSTGRES_MIGRATIONS: Migrations = migrations!("postgres":
    "0001_registry",
    "0002_plugins",
    "0003_types_generation",
    "0004_refresh",
    "0005_sandboxes",
    "0006_environments",
    "0007_shared",
    "0008_trust",
    "0009_readable_names",
    "0010_provenance",
    "0011_plugin_provenance",
    "0012_events",
);

/// The step in Rust a migration has after its SQL, if any (same for both
/// backends; run in the migration's transaction).
fn data_step(name: &str) -> Option<fn(Tx<'_>) -> Result<(), StoreError>> {
    match name {
        "0009_readable_names" => Some(readable_names::migrate),
        "0010_provenance" => Some(skeletons::migrate),
        _ => None,
    }
}

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = SQLITE_MIGRATIONS.len() as i64;

/// How long a connection waits for another process's lock before giving up.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(
        "the registry at {location} has schema version {found}, newer than this agents binary \
         understands ({supported}); it was left untouched — use a newer agents binary"
    )]
    TooNew {
        location: String,
        found: i64,
        supported: i64,
    },
    #[error("cannot open the registry at {location}: {source}")]
    Open {
        location: String,
        #[source]
        source: Box<StoreError>,
    },
    #[error("applying migration {name} failed: {source}")]
    Migration {
        name: &'static str,
        #[source]
        source: Box<StoreError>,
    },
    #[error("refusing to open the registry file {}: {why}", path.display())]
    NotPrivate { path: PathBuf, why: String },
    #[error("cannot create the registry file {}: {source}", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0:?} is not a registry location: {1}")]
    BadLocation(String, String),
    #[error("registry database error: {0}")]
    Sqlite(rusqlite::Error),
    /// SQLite ran out of disk space (or quota) opening or writing the
    /// registry file: the transaction, if any, was rolled back.
    #[error(
        "the disk holding the registry is full: {what}; nothing was written — free some space \
         and run the command again"
    )]
    DiskFull { what: &'static str },
    #[error("registry server error: {}", db::postgres_message(.0))]
    Postgres(#[from] postgres::Error),
    #[error("cannot set up TLS for the registry server: {0}")]
    Tls(#[from] native_tls::Error),
    #[error("registry row {what} holds invalid data: {reason}")]
    Corrupt { what: String, reason: String },
    /// An insert met the `UNIQUE` name constraint (another resource, maybe
    /// written by another process a moment ago, has the name).
    #[error("a resource named {name} already exists")]
    NameTaken { name: crate::model::ResourceName },
}

impl From<rusqlite::Error> for StoreError {
    /// A full disk is said plainly (SQLite's own words are `database or
    /// disk is full`, or a bare `disk I/O error` when it cannot grow the
    /// `-shm` index); every other SQLite error is passed on as it is.
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi;
        let what = match e.sqlite_error() {
            Some(f) if f.code == ffi::ErrorCode::DiskFull => {
                "SQLite could not write the database or its log"
            }
            Some(f) if f.extended_code == ffi::SQLITE_IOERR_SHMSIZE => {
                "SQLite could not grow the shared-memory index beside the database (its -shm file)"
            }
            _ => return Self::Sqlite(e),
        };
        Self::DiskFull { what }
    }
}

/// One connection to the registry database.
#[derive(Debug)]
pub struct Store {
    backend: Backend,
    /// The machine new resources with a location are recorded on (`None`:
    /// not recorded; see [`Store::record_machine`]).
    machine: Option<String>,
}

#[derive(Debug)]
enum Backend {
    Sqlite {
        conn: Connection,
        /// The database file (`None`: in memory).
        path: Option<PathBuf>,
    },
    Postgres {
        conn: Box<PgConn>,
        /// The server, database and schema, without a password.
        shown: String,
        /// The location as given: a follower's second connection
        /// (`follow`) listens with it.
        url: String,
    },
}

impl Store {
    /// Open (creating if needed) the registry at `location` and bring its
    /// schema up to date. Refuses, untouched, a schema newer than ours.
    pub fn connect(location: &RegistryLocation) -> Result<Self, StoreError> {
        match location {
            RegistryLocation::Sqlite(path) => Self::open(path),
            RegistryLocation::Postgres(url) => Self::open_postgres(url),
        }
    }

    /// Open (creating if needed) the registry file at `path` and bring its
    /// schema up to date. Refuses, untouched, a schema newer than ours, and
    /// a file (or log, or directory) that is not private to this user; a
    /// new file is made 0600 (see `sqlite::prepare_file`).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let open_err = |source: rusqlite::Error| StoreError::Open {
            location: path.display().to_string(),
            source: Box::new(source.into()),
        };
        sqlite::prepare_file(path)?;
        if path.metadata().is_ok_and(|m| m.len() > 0) {
            let peek = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
                .map_err(open_err)?;
            peek.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
            let found = user_version(&peek).map_err(open_err)?;
            refuse_newer(&path.display().to_string(), found)?;
        }
        let conn = Connection::open(path).map_err(open_err)?;
        configure(&conn, true).map_err(open_err)?;
        let mut store = Self {
            backend: Backend::Sqlite {
                conn,
                path: Some(path.to_owned()),
            },
            machine: None,
        };
        store.migrate_sqlite()?;
        Ok(store)
    }

    /// A private in-memory registry (tests, embedding without a home).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let conn = Connection::open_in_memory()?;
        configure(&conn, false)?;
        let mut store = Self {
            backend: Backend::Sqlite { conn, path: None },
            machine: None,
        };
        store.migrate_sqlite()?;
        Ok(store)
    }

    /// Connect to the PostgreSQL registry at `url` (TLS as its `sslmode`
    /// asks) and bring its schema up to date.
    pub fn open_postgres(url: &str) -> Result<Self, StoreError> {
        let (conn, shown) = pg::open(url)?;
        Ok(Self {
            backend: Backend::Postgres {
                conn: Box::new(conn),
                shown,
                url: url.to_owned(),
            },
            machine: None,
        })
    }

    fn migrate_sqlite(&mut self) -> Result<(), StoreError> {
        let Backend::Sqlite { conn, path } = &mut self.backend else {
            unreachable!("called on SQLite stores only")
        };
        if user_version(conn)? == SCHEMA_VERSION {
            return Ok(());
        }
        let shown = path
            .as_deref()
            .map_or(":memory:".into(), |p| p.display().to_string());
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Re-read under the write lock: another process may have migrated.
        let found = user_version(&tx)?;
        refuse_newer(&shown, found)?;
        for (index, (name, sql)) in SQLITE_MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(sql)
                .map_err(|source| StoreError::Migration {
                    name,
                    source: Box::new(source.into()),
                })?;
            if let Some(step) = data_step(name) {
                step(Tx::Sqlite(&tx)).map_err(|source| StoreError::Migration {
                    name,
                    source: Box::new(source),
                })?;
            }
            tx.pragma_update(None, "user_version", index as i64 + 1)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Record `machine` on every resource with a location inserted from
    /// now on (a registry shared by several machines).
    pub fn record_machine(&mut self, machine: Option<String>) {
        self.machine = machine;
    }

    /// Which backend this is, as `agents registry info` names it.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite { .. } => "sqlite",
            Backend::Postgres { .. } => "postgres",
        }
    }

    /// Where the registry is, for people: the file, or the server,
    /// database and schema (never a password).
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::Sqlite { path: Some(p), .. } => p.display().to_string(),
            Backend::Sqlite { path: None, .. } => ":memory:".into(),
            Backend::Postgres { shown, .. } => shown.clone(),
        }
    }

    /// The database file (`None` for an in-memory or server store).
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Sqlite { path, .. } => path.as_deref(),
            Backend::Postgres { .. } => None,
        }
    }

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
    tx: Tx<'c>,
}

/// Write access inside a write transaction.
#[derive(Debug)]
pub struct Writer<'c> {
    reader: Reader<'c>,
    /// What new resources with a location record as their machine.
    machine: Option<&'c str>,
    /// Where this transaction's events are (`None`: no event yet; see
    /// `events`).
    events: std::cell::RefCell<Option<events::Cursor>>,
}

impl<'c> std::ops::Deref for Writer<'c> {
    type Target = Reader<'c>;
    fn deref(&self) -> &Reader<'c> {
        &self.reader
    }
}

impl Reader<'_> {
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.tx.row(
            "SELECT value FROM registry_meta WHERE key = ?1",
            args![key],
            "registry_meta",
            usize::MAX,
            |c| c.get(0),
        )
    }
}

impl Writer<'_> {
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO registry_meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            args![key, value],
        )?;
        Ok(())
    }

    pub fn delete_meta(&self, key: &str) -> Result<(), StoreError> {
        self.tx
            .execute("DELETE FROM registry_meta WHERE key = ?1", args![key])?;
        Ok(())
    }
}

/// The schema version the database records, on either backend.
fn schema_version(tx: Tx<'_>) -> Result<i64, StoreError> {
    match tx {
        Tx::Sqlite(conn) => Ok(user_version(conn)?),
        Tx::Postgres(pg) => pg::version(pg, false),
    }
}

fn refuse_newer(location: &str, found: i64) -> Result<(), StoreError> {
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            location: location.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// Serialize a value to the JSON text a `*_json` column holds.
fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| unreachable!("model values serialize: {e}"))
}

#[cfg(test)]
impl Store {
    /// Run `sql` outside the store's statements (tests that corrupt rows).
    fn execute_raw(&self, sql: &str) {
        match &self.backend {
            Backend::Sqlite { conn, .. } => conn.execute_batch(sql).unwrap(),
            Backend::Postgres { conn, .. } => conn.batch(sql).unwrap(),
        }
    }
}

#[cfg(test)]
mod tests;
