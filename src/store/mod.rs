//! The store: the only place with SQL, over two backends — the embedded
//! SQLite file in the home (the default) and a shared PostgreSQL server
//! (`--registry postgres://…`). Nothing above this module knows which it
//! talks to: the statements are written once (`db`) and the
//! transactions (`transaction.rs`) give both the same guarantees.
//!
//! The store's rooms: the transactions every read and write runs in, and
//! the single-writer discipline they keep on both backends
//! (`transaction.rs`); the schema's versions and their migrations
//! (`schema.rs`); waking a follower of the event log when another process
//! commits (`follow.rs`); and one room per kind of row.

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
mod schema;
mod skeletons;
mod sqlite;
#[cfg(any(test, feature = "test-support"))]
pub mod testing;
mod transaction;
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
pub use schema::SCHEMA_VERSION;
pub use transaction::{Reader, Writer};
pub use trust::TrustRow;
pub use types::{TypeOrigin, TypeRow};

use db::{PgConn, args};
use rusqlite::{Connection, OpenFlags};
use schema::refuse_newer;
use sqlite::{configure, user_version};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

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
