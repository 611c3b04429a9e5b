//! Opening a store: a new SQLite file is migrated in WAL mode and a full
//! disk is said plainly; both backends have the same migrations, a
//! PostgreSQL schema met by many at once is migrated once, a schema newer
//! than the binary is refused and left untouched, and a server's password
//! is never shown.

use super::super::db::Tx;
use super::super::schema::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use super::*;

#[test]
fn a_new_file_is_migrated_to_the_current_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = Store::open(&path).unwrap();
    let Backend::Sqlite { conn, .. } = &store.backend else {
        unreachable!()
    };
    assert_eq!(user_version(conn).unwrap(), SCHEMA_VERSION);
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // A page cache that holds a big registration's transaction (SQLite's
    // default, 2 MiB, spills a git/git-sized checkout's rows mid-way).
    let cache: i64 = conn
        .pragma_query_value(None, "cache_size", |r| r.get(0))
        .unwrap();
    assert_eq!(cache, -(64 << 10));
    drop(store);
    // Opening again is a no-op migration.
    Store::open(&path).unwrap();
}

#[test]
fn the_log_and_its_index_outlive_the_connection_so_a_full_disk_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = Store::open(&path).unwrap();
    drop(store);
    // Emptied, not deleted; the index kept (opening needs no new space).
    let wal = std::fs::metadata(dir.path().join("registry.db-wal")).unwrap();
    assert_eq!(wal.len(), 0);
    assert!(dir.path().join("registry.db-shm").exists());
    Store::open(&path).unwrap();
}

#[test]
fn a_full_disk_is_said_plainly() {
    use rusqlite::ffi;
    let failure = |code| rusqlite::Error::SqliteFailure(ffi::Error::new(code), None);
    for code in [ffi::SQLITE_FULL, ffi::SQLITE_IOERR_SHMSIZE] {
        let text = StoreError::from(failure(code)).to_string();
        assert!(
            text.starts_with("the disk holding the registry is full: SQLite could not")
                && text.ends_with("free some space and run the command again"),
            "{text}"
        );
    }
    let other = StoreError::from(failure(ffi::SQLITE_CORRUPT));
    assert!(matches!(other, StoreError::Sqlite(_)), "{other}");
}

#[test]
fn a_schema_newer_than_the_binary_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 7)
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("newer than this agents binary"), "{text}");
    assert!(text.contains(&format!("{}", SCHEMA_VERSION + 7)), "{text}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!dir.path().join("registry.db-wal").exists());
}

#[test]
fn every_migration_file_of_either_backend_is_listed_in_order() {
    for (backend, list) in [
        ("sqlite", SQLITE_MIGRATIONS),
        ("postgres", POSTGRES_MIGRATIONS),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(backend);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let listed: Vec<String> = list.iter().map(|(name, _)| format!("{name}.sql")).collect();
        assert_eq!(files, listed, "{}", dir.display());
    }
}

/// Several processes meeting an empty PostgreSQL schema at once migrate it
/// once (the advisory lock), and all of them work.
#[test]
fn concurrent_first_opens_of_a_postgres_schema_migrate_it_once() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    let opened: Vec<_> = (0..6)
        .map(|_| {
            let url = schema.url.clone();
            std::thread::spawn(move || Store::open_postgres(&url).map(|_| ()))
        })
        .collect();
    for handle in opened {
        handle.join().unwrap().unwrap();
    }
    let store = Store::open_postgres(&schema.url).unwrap();
    let Backend::Postgres { conn, .. } = &store.backend else {
        unreachable!()
    };
    let rows: i64 = Tx::Postgres(conn)
        .value("SELECT count(*) FROM agents_schema_migrations", args![])
        .unwrap();
    assert_eq!(rows, SCHEMA_VERSION);
    assert_eq!(store.read(|r| r.schema_version()).unwrap(), SCHEMA_VERSION);
}

/// The race behind "relation … already exists" when processes meet a
/// fresh schema: one looked while another was migrating (nothing
/// committed yet), then waited for the migration lock. Under the lock it
/// must see what the other made, not its connection's cached "no such
/// table".
#[test]
fn a_migration_that_waited_for_another_applies_nothing_again() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    let connect = || PgConn::new(location::connect(&schema.url).unwrap());
    let (first, second, watcher) = (connect(), connect(), connect());
    first.batch("BEGIN").unwrap();
    pg::apply_migrations(&first, "first").unwrap();
    assert_eq!(pg::version(&second, false).unwrap(), 0);
    let waiting = std::thread::spawn(move || pg::migrate(&second, "second"));
    let blocked = format!(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
         AND classid = {}",
        pg::MIGRATION_LOCK
    );
    while Tx::Postgres(&watcher)
        .value::<i64>(&blocked, args![])
        .unwrap()
        == 0
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    first.batch("COMMIT").unwrap();
    waiting.join().unwrap().unwrap();
    assert_eq!(pg::version(&watcher, true).unwrap(), SCHEMA_VERSION);
}

#[test]
fn a_newer_postgres_schema_is_refused_and_left_untouched() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    drop(Store::open_postgres(&schema.url).unwrap());
    let mut admin = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "INSERT INTO agents_schema_migrations (version, name) VALUES ({}, 'future')",
            SCHEMA_VERSION + 3
        ))
        .unwrap();
    let tables = |admin: &mut postgres::Client| -> i64 {
        admin
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let before = tables(&mut admin);
    let err = Store::open_postgres(&schema.url).unwrap_err().to_string();
    assert!(err.contains("newer than this agents binary"), "{err}");
    assert!(err.contains(&(SCHEMA_VERSION + 3).to_string()), "{err}");
    assert_eq!(tables(&mut admin), before);
}

#[test]
fn a_server_that_does_not_answer_is_named_without_its_password() {
    let err = Store::open_postgres("postgres://me:hunter2@127.0.0.1:1/db?connect_timeout=2")
        .unwrap_err()
        .to_string();
    assert!(err.contains("postgres://me:***@127.0.0.1:1/db"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}
