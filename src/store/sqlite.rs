//! The SQLite side of the store: the registry file's own privacy (made
//! 0600, refused when others could write it), how a connection is
//! configured (WAL, a persistent log, foreign keys), the schema version it
//! records, and the per-connection record of written types.

use super::{BUSY_TIMEOUT, StoreError};
use rusqlite::Connection;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// What someone who may write the registry file could do.
const RISK: &str = "they could change the rows the host acts on (which directories a sandbox \
     destroy deletes, which plugins run)";

/// Before SQLite opens `path`: refuse it, its `-wal` and `-shm`, or the
/// directory holding them, if another user could write them (see
/// [`crate::private_dir`]); make a missing file 0600 — whatever the umask,
/// and SQLite creates the log and its index with the main file's mode —
/// and a file that others may read (made before this rule) 0600, saying
/// so in a warning.
pub(super) fn prepare_file(path: &Path) -> Result<(), StoreError> {
    let refuse = |path: &Path, why| StoreError::NotPrivate {
        path: path.to_owned(),
        why,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if let Ok(meta) = std::fs::metadata(dir)
        && let Some(exposed) = crate::private_dir::exposed_parent(&meta)
    {
        return Err(refuse(dir, exposed.explain(dir, RISK)));
    }
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path);
    match created {
        Ok(file) => {
            // The umask may have taken bits away; 0600 exactly.
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|source| StoreError::Create {
                    path: path.to_owned(),
                    source,
                })?;
            return Ok(());
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(source) => {
            return Err(StoreError::Create {
                path: path.to_owned(),
                source,
            });
        }
    }
    for file in [path.to_owned(), beside(path, "-wal"), beside(path, "-shm")] {
        let Ok(meta) = std::fs::metadata(&file) else {
            continue;
        };
        if let Some(exposed) = crate::private_dir::exposed(&meta) {
            return Err(refuse(&file, exposed.explain(&file, RISK)));
        }
        match crate::private_dir::tighten_readable(&file, &meta) {
            Ok(Some(mode)) => log::warn!(
                target: "registry",
                "{} was readable by other users (mode {mode:04o}); it is private now (0600)",
                file.display()
            ),
            Ok(None) => {}
            Err(e) => log::warn!(
                target: "registry",
                "{} is readable by other users and could not be made private: {e}",
                file.display()
            ),
        }
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name (`registry.db-wal`).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

pub(super) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Record, per connection, the types of the resources a transaction
/// inserts, deletes or changes the properties of (a temporary table:
/// nothing in the registry file; temporary triggers for deletes and
/// changes, created if missing at the start of every write transaction;
/// inserts are noted by what makes them, [`super::ResourceInserter`],
/// once per type and batch: a per-row trigger cost 15–30% of a big
/// registration's inserts). Identities are reconciled only for those
/// types; see `registry::equivalence`. The table is
/// transactional like everything else: a rolled-back write leaves no
/// entry (and, if it created them, no table and triggers either).
/// (PostgreSQL: permanent triggers note into a table keyed by the
/// connection's server process; see `migrations/postgres/0001_registry.sql`.)
pub(super) fn record_written_types(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS written_types (type_name TEXT PRIMARY KEY) WITHOUT ROWID;
         CREATE TEMP TRIGGER IF NOT EXISTS written_delete AFTER DELETE ON main.resources
         BEGIN INSERT OR IGNORE INTO written_types VALUES (OLD.type_name); END;
         CREATE TEMP TRIGGER IF NOT EXISTS written_update
         AFTER UPDATE OF properties_json, type_name ON main.resources
         BEGIN INSERT OR IGNORE INTO written_types VALUES (NEW.type_name), (OLD.type_name); END;",
    )
}

pub(super) fn configure(conn: &Connection, file: bool) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    if file {
        // Switching to WAL needs a moment of exclusivity; under the busy
        // timeout it waits for other processes like any write.
        // (A filesystem without shared memory answers another mode; the
        // registry still works, with less concurrency.)
        let _mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // A persistent log: the last connection to close empties it (any
        // size limit makes SQLite truncate it to zero then) instead of
        // deleting it, and keeps its shared-memory index (`-shm`), so the
        // next command needs no new disk space to open and read the
        // registry. On a full disk, reading still works and a write is
        // refused as `DiskFull`; without this every command failed to open.
        persist_wal(conn)?;
        conn.pragma_update(None, "journal_size_limit", WAL_LIMIT)?;
        // A page cache that holds a big registration's transaction: with
        // SQLite's default (2 MiB) the ~4,300 rows of a git/git-sized
        // checkout overflow it and SQLite spills dirty pages to the log
        // mid-transaction, writing many of them twice. A ceiling, not an
        // allocation: the cache grows only to the pages a connection
        // touches.
        conn.pragma_update(None, "cache_size", CACHE_KIB)?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// The size the write-ahead log is cut back to when a checkpoint resets
/// it (it is emptied when the last connection closes).
const WAL_LIMIT: i64 = 4 << 20;

/// The page cache's ceiling per connection, in SQLite's spelling (a
/// negative `cache_size` is KiB): 64 MiB.
const CACHE_KIB: i64 = -(64 << 10);

/// Set `SQLITE_FCNTL_PERSIST_WAL` on `conn`'s main database (rusqlite has
/// no safe call for file controls).
#[allow(unsafe_code)]
fn persist_wal(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::ffi;
    let mut on: std::os::raw::c_int = 1;
    // SAFETY: `conn.handle()` is the open connection `conn` owns, used on
    // this thread only for the length of the call; "main" is a
    // NUL-terminated name; SQLITE_FCNTL_PERSIST_WAL reads and writes one
    // `int` through the pointer, which points at `on`, alive across the
    // call.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_PERSIST_WAL,
            (&raw mut on).cast(),
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
    }
    Ok(())
}
