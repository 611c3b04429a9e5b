//! The PostgreSQL side of the store: connecting and migrating (under an
//! advisory lock, so processes meeting an empty schema migrate it once),
//! and the write transaction's lock. The statements themselves are the
//! shared ones in [`super::db`].

use super::db::{PgConn, Tx, args};
use super::schema::{POSTGRES_MIGRATIONS, data_step, refuse_newer};
use super::{SCHEMA_VERSION, StoreError, location};

/// The advisory-lock class of write transactions on PostgreSQL (the
/// second key is the schema's hash): `agnt`.
pub(super) const WRITE_LOCK: i32 = 0x6167_6e74;
/// The advisory-lock class of migrations on PostgreSQL: `agmg`.
pub(super) const MIGRATION_LOCK: i32 = 0x6167_6d67;

/// Connect to the registry at `url` and bring its schema up to date:
/// the connection and the location as messages show it (no password).
pub(super) fn open(url: &str) -> Result<(PgConn, String), StoreError> {
    let shown = location::redacted(url);
    let open_err = |source: StoreError| StoreError::Open {
        location: shown.clone(),
        source: Box::new(source),
    };
    let client = location::connect(url).map_err(open_err)?;
    let conn = PgConn::new(client);
    let found = version(&conn, false).map_err(open_err)?;
    refuse_newer(&shown, found)?;
    if found < SCHEMA_VERSION {
        migrate(&conn, &shown)?;
    }
    Ok((conn, shown))
}

/// Begin a write transaction: `BEGIN` and the schema's write lock in one
/// round trip (rolled back if the lock was not taken).
pub(super) fn begin_write(conn: &PgConn) -> Result<(), StoreError> {
    let locked = conn.batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK}, hashtext(current_schema()))"
    ));
    if locked.is_err() {
        let _ = finish(conn, false);
    }
    locked
}

/// Commit or roll back the transaction open on `conn`.
pub(super) fn finish(conn: &PgConn, commit: bool) -> Result<(), StoreError> {
    conn.batch(if commit { "COMMIT" } else { "ROLLBACK" })
}

/// Commit or roll back like [`finish`]; a commit of a transaction that
/// recorded events (`last_seq`, its newest) first queues `NOTIFY
/// agents_events` with that number, which PostgreSQL delivers to the
/// listeners (`super::follow`) when, and only if, the commit lands. One
/// round trip either way.
pub(super) fn finish_notifying(
    conn: &PgConn,
    commit: bool,
    last_seq: Option<i64>,
) -> Result<(), StoreError> {
    match last_seq {
        Some(seq) if commit => conn.batch(&format!(
            "SELECT pg_notify('{}', '{seq}'); COMMIT",
            super::follow::EVENTS_CHANNEL
        )),
        _ => finish(conn, commit),
    }
}

/// The version the migrations table records (0: none, or no table yet).
///
/// `fresh` asks the catalog itself, in this statement's snapshot: under
/// the migration lock, where another process may have just created the
/// table. Elsewhere `to_regclass` does (the name looked up as a statement
/// would, far cheaper than a catalog scan on a new connection's cold
/// cache) — but it answers from this connection's cached "no such table"
/// until the connection processes catalog invalidations, which taking an
/// advisory lock does not do: a process that looked before it waited for
/// the lock would apply every migration again ("relation … already
/// exists").
pub(super) fn version(conn: &PgConn, fresh: bool) -> Result<i64, StoreError> {
    let tx = Tx::Postgres(conn);
    let exists: bool = if fresh {
        tx.value(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class \
             WHERE relname = 'agents_schema_migrations' \
               AND relnamespace = CAST(current_schema() AS regnamespace))",
            args![],
        )?
    } else {
        tx.value(
            "SELECT to_regclass('agents_schema_migrations') IS NOT NULL",
            args![],
        )?
    };
    if !exists {
        return Ok(0);
    }
    tx.value(
        "SELECT COALESCE(MAX(version), 0) FROM agents_schema_migrations",
        args![],
    )
}

/// Apply what is missing, in one transaction under the migration lock
/// (re-reading the version under it: another process may have migrated).
pub(super) fn migrate(conn: &PgConn, shown: &str) -> Result<(), StoreError> {
    conn.batch("BEGIN")?;
    let result = apply_migrations(conn, shown);
    finish(conn, result.is_ok())?;
    result
}

/// [`migrate`] inside the caller's transaction: the lock, the
/// version read afresh, the missing migrations.
pub(super) fn apply_migrations(conn: &PgConn, shown: &str) -> Result<(), StoreError> {
    let tx = Tx::Postgres(conn);
    tx.execute(
        "SELECT pg_advisory_xact_lock(CAST(?1 AS INTEGER), hashtext(current_schema()))",
        args![i64::from(MIGRATION_LOCK)],
    )?;
    let found = version(conn, true)?;
    refuse_newer(shown, found)?;
    tx.batch(
        "CREATE TABLE IF NOT EXISTS agents_schema_migrations (
             version     BIGINT PRIMARY KEY,
             name        TEXT NOT NULL,
             applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
         )",
    )?;
    for (index, (name, sql)) in POSTGRES_MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.batch(sql).map_err(|source| StoreError::Migration {
            name,
            source: Box::new(source),
        })?;
        if let Some(step) = data_step(name) {
            step(tx).map_err(|source| StoreError::Migration {
                name,
                source: Box::new(source),
            })?;
        }
        tx.execute(
            "INSERT INTO agents_schema_migrations (version, name) VALUES (?1, ?2)",
            args![index as i64 + 1, *name],
        )?;
    }
    Ok(())
}
