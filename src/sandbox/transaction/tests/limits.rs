//! The session's bounds: a deadline per input, a bound on growth, a bound
//! on one input's size — each refusal leaves the transaction open and the
//! input undone.

use std::time::Duration;

use super::super::{SessionLimits, SqliteTransaction};
use super::{committed, database, file_hash};

fn open(path: &std::path::Path, limits: SessionLimits) -> SqliteTransaction {
    SqliteTransaction::open_with(path, Duration::from_secs(5), limits).unwrap()
}

#[test]
fn an_input_past_its_deadline_is_interrupted_a_read_keeping_the_session_a_write_ending_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let limits = SessionLimits {
        input_timeout: Duration::from_millis(50),
        ..SessionLimits::default()
    };
    let mut tx = open(&path, limits);
    // Without a deadline this never ends.
    let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                   SELECT count(*) FROM n;";
    let err = tx.execute(endless).unwrap_err().to_string();
    assert!(
        err.contains("the session's deadline for one input, and was interrupted"),
        "{err}"
    );
    assert!(err.contains("the transaction is still open"), "{err}");
    tx.execute("INSERT INTO t VALUES (3, 'c');").unwrap();
    tx.checkpoint(Some("three")).unwrap();
    // A write that never ends: interrupted too — and SQLite rolls back the
    // whole transaction of an interrupted write (its own rule), so the
    // session is over and the file as it was.
    let before = file_hash(&path);
    let endless_write = "INSERT INTO t(name) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL \
                         SELECT i + 1 FROM n) SELECT 'x' FROM n;";
    let err = tx.execute(endless_write).unwrap_err().to_string();
    assert!(
        err.contains("deadline for one input, and was interrupted"),
        "{err}"
    );
    assert!(
        err.contains("SQLite ended the sandbox's transaction"),
        "{err}"
    );
    assert!(err.contains("nothing was applied"), "{err}");
    assert!(!tx.is_open());
    assert!(tx.apply().is_err(), "an ended session applies nothing");
    drop(tx);
    assert_eq!(committed(&path), ["1:a", "2:b"]);
    assert_eq!(file_hash(&path), before);
}

#[test]
fn growth_past_the_sessions_bound_is_refused_naming_it_and_the_disk_is_spared() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let limits = SessionLimits {
        max_growth_bytes: 1 << 20,
        ..SessionLimits::default()
    };
    let mut tx = open(&path, limits);
    tx.execute("CREATE TABLE blobs(b BLOB);").unwrap();
    let grow = "INSERT INTO blobs WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                WHERE i < 64) SELECT randomblob(65536) FROM n;";
    let err = tx.execute(grow).unwrap_err().to_string();
    assert!(
        err.contains("past the session's bound (1 MiB more"),
        "{err}"
    );
    assert!(tx.is_open(), "{err}");
    // So is the temporary database's.
    let temp = "CREATE TEMP TABLE big AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 \
                FROM n WHERE i < 64) SELECT randomblob(65536) AS b FROM n;";
    let err = tx.execute(temp).unwrap_err().to_string();
    assert!(err.contains("session's bound"), "{err}");
    // What fits is kept.
    tx.execute("INSERT INTO blobs VALUES (randomblob(1000));")
        .unwrap();
    tx.apply().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 2 << 20);
}

#[test]
fn an_input_longer_than_its_bound_is_refused_before_sqlite_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path());
    let before = file_hash(&path);
    let limits = SessionLimits {
        max_input_bytes: 1024,
        ..SessionLimits::default()
    };
    let mut tx = open(&path, limits);
    let long = format!("INSERT INTO t VALUES (9, '{}');", "x".repeat(2000));
    let err = tx.execute(&long).unwrap_err().to_string();
    assert!(
        err.contains("more than the 1024 one input may hold"),
        "{err}"
    );
    assert!(tx.is_open());
    tx.discard().unwrap();
    assert_eq!(file_hash(&path), before);
}
