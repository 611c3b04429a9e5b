//! The registry's schema versions: which migrations this binary knows, how
//! they are applied, and the refusal of a database newer than it.
//!
//! **Schema versions.** `migrations/<backend>/NNNN_*.sql` (the same
//! numbering for both) are embedded in the binary and applied in order
//! inside one transaction; SQLite's `PRAGMA user_version`, or the
//! `agents_schema_migrations` table on PostgreSQL, records the last
//! applied one. A database whose version is newer than this binary knows
//! is refused before anything is written to it. On PostgreSQL the
//! migration runs under an advisory lock, so two processes meeting an
//! empty database at once migrate it once.

use super::db::Tx;
use super::sqlite::user_version;
use super::{Backend, Store, StoreError, readable_names, skeletons};
use rusqlite::TransactionBehavior;

/// The migrations of one backend, in order; their position + 1 is the
/// schema version.
pub(super) type Migrations = &'static [(&'static str, &'static str)];

/// One list of migration names makes both backends' lists, each name a
/// file under `migrations/sqlite/` and `migrations/postgres/`, so the two
/// cannot number a migration differently (a test checks that every file
/// there is listed).
macro_rules! migrations {
    ($($name:literal),* $(,)?) => {
        pub(super) const SQLITE_MIGRATIONS: Migrations =
            &[$(($name, include_str!(concat!("../../migrations/sqlite/", $name, ".sql")))),*];
        pub(super) const POSTGRES_MIGRATIONS: Migrations =
            &[$(($name, include_str!(concat!("../../migrations/postgres/", $name, ".sql")))),*];
    };
}

migrations!(
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
pub(super) fn data_step(name: &str) -> Option<fn(Tx<'_>) -> Result<(), StoreError>> {
    match name {
        "0009_readable_names" => Some(readable_names::migrate),
        "0010_provenance" => Some(skeletons::migrate),
        _ => None,
    }
}

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = SQLITE_MIGRATIONS.len() as i64;
impl Store {
    pub(super) fn migrate_sqlite(&mut self) -> Result<(), StoreError> {
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
}

pub(super) fn refuse_newer(location: &str, found: i64) -> Result<(), StoreError> {
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            location: location.to_owned(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}
