use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::statements::MAX_ROWS;
use super::{RowCounts, SchemaEdit, SqliteTransaction, StatementOutcome};
use crate::digest::sha256_hex;
use crate::sandbox::SandboxError;

/// A rollback-journal database with `t(id, name)` holding rows 1 `a` and 2 `b`.
pub(super) fn database(dir: &Path) -> PathBuf {
    let path = dir.join("app.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
         INSERT INTO t VALUES (1, 'a'), (2, 'b');",
    )
    .unwrap();
    path
}

/// The rows of `t` as another connection sees them (the committed state).
pub(super) fn committed(path: &Path) -> Vec<String> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn
        .prepare("SELECT id || ':' || name FROM t ORDER BY id")
        .unwrap();
    stmt.query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The rows of `t` as the sandbox sees them.
fn seen(tx: &mut SqliteTransaction) -> Vec<String> {
    let outcomes = tx
        .execute("SELECT id || ':' || name FROM t ORDER BY id")
        .unwrap();
    let [StatementOutcome::Rows(answer)] = &outcomes[..] else {
        panic!("{outcomes:?}");
    };
    answer
        .rows
        .iter()
        .map(|row| row[0].clone().unwrap())
        .collect()
}

pub(super) fn file_hash(path: &Path) -> String {
    sha256_hex(&fs::read(path).unwrap())
}

fn message(result: Result<impl std::fmt::Debug, SandboxError>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn rollback_to_a_checkpoint_gives_back_exactly_its_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c'); UPDATE t SET name = 'A' WHERE id = 1;")
        .unwrap();
    assert_eq!(tx.checkpoint(Some("three rows")).unwrap(), "agents_cp_1");
    tx.execute("DELETE FROM t WHERE id = 2; INSERT INTO t VALUES (4, 'd');")
        .unwrap();
    assert_eq!(seen(&mut tx), ["1:A", "3:c", "4:d"]);

    let back = tx.rollback(None).unwrap();
    assert_eq!(
        (back.name.as_str(), back.label.as_deref()),
        ("agents_cp_1", Some("three rows"))
    );
    assert_eq!(seen(&mut tx), ["1:A", "2:b", "3:c"]);
    // The checkpoint stays: more changes, and back to it again.
    tx.execute("DELETE FROM t").unwrap();
    tx.rollback(Some("agents_cp_1")).unwrap();
    assert_eq!(seen(&mut tx), ["1:A", "2:b", "3:c"]);
}

#[test]
fn rolling_back_to_an_earlier_checkpoint_discards_the_later_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    tx.checkpoint(Some("start")).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    assert_eq!(tx.checkpoint(None).unwrap(), "agents_cp_2");
    tx.execute("INSERT INTO t VALUES (4, 'd')").unwrap();

    tx.rollback(Some("start")).unwrap();
    assert_eq!(seen(&mut tx), ["1:a", "2:b"]);
    let names: Vec<&str> = tx.checkpoints().iter().map(|cp| cp.name.as_str()).collect();
    assert_eq!(names, ["agents_cp_1"]);
    assert!(matches!(
        tx.rollback(Some("agents_cp_2")),
        Err(SandboxError::NoCheckpoint(name)) if name == "agents_cp_2"
    ));
    // Names are never reused; numbers are positions in the live list.
    tx.execute("INSERT INTO t VALUES (5, 'e')").unwrap();
    assert_eq!(tx.checkpoint(Some("five")).unwrap(), "agents_cp_3");
    tx.execute("INSERT INTO t VALUES (6, 'f')").unwrap();
    tx.rollback(Some("2")).unwrap();
    assert_eq!(seen(&mut tx), ["1:a", "2:b", "5:e"]);
    tx.rollback(Some("1")).unwrap();
    assert_eq!(seen(&mut tx), ["1:a", "2:b"]);
    assert!(matches!(
        tx.rollback(Some("2")),
        Err(SandboxError::NoCheckpoint(_))
    ));
    assert!(matches!(
        tx.rollback(Some("nope")),
        Err(SandboxError::NoCheckpoint(_))
    ));
}

#[test]
fn rollback_without_a_checkpoint_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    assert_eq!(
        message(tx.rollback(None)),
        "no checkpoint \"latest\" in this sandbox"
    );
}

#[test]
fn labels_that_could_be_taken_for_a_number_or_name_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    for label in ["2", "agents_cp_9", " "] {
        let refused = message(tx.checkpoint(Some(label)));
        assert!(
            refused.contains("checkpoint label") && refused.contains("refused"),
            "{refused}"
        );
    }
    assert!(tx.checkpoints().is_empty());
    tx.checkpoint(Some("same")).unwrap();
    tx.checkpoint(Some("same")).unwrap();
    let ambiguous = message(tx.rollback(Some("same")));
    assert!(
        ambiguous.contains("names checkpoints 1, 2; roll back by number or name"),
        "{ambiguous}"
    );
}

#[test]
fn the_file_is_unchanged_until_apply_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let before = file_hash(&path);
    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c'); DELETE FROM t WHERE id = 1;")
        .unwrap();
    tx.checkpoint(None).unwrap();
    tx.execute("CREATE TABLE u(x); INSERT INTO u VALUES (1);")
        .unwrap();

    assert_eq!(file_hash(&path), before);
    assert_eq!(committed(&path), ["1:a", "2:b"]);

    let applied = tx.apply().unwrap();
    assert_eq!(
        applied.rows["t"],
        RowCounts {
            inserted: 1,
            updated: 0,
            deleted: 1
        }
    );
    assert_ne!(file_hash(&path), before);
    assert_eq!(committed(&path), ["2:b", "3:c"]);
    assert!(!tx.is_open());
    let closed = message(tx.execute("SELECT 1"));
    assert!(closed.contains("was applied"), "{closed}");
    drop(tx);
    assert_eq!(committed(&path), ["2:b", "3:c"]);
}

#[test]
fn an_apply_that_waits_on_a_reader_fails_and_can_be_tried_again() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let mut tx = SqliteTransaction::open_waiting(&path, Duration::from_millis(20)).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    // In rollback-journal mode a commit needs every reader gone.
    let reader = Connection::open(&path).unwrap();
    reader
        .execute_batch("BEGIN; SELECT count(*) FROM t;")
        .unwrap();
    let error = message(tx.apply());
    assert!(error.contains("database is locked"), "{error}");
    assert!(
        error.contains("the sandbox is still open: apply again or discard"),
        "{error}"
    );
    assert!(tx.is_open());
    reader.execute_batch("COMMIT").unwrap();
    tx.apply().unwrap();
    assert_eq!(committed(&path), ["1:a", "2:b", "3:c"]);
}

#[test]
fn drop_or_discard_without_apply_leaves_the_file_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let before = file_hash(&path);

    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.execute("DELETE FROM t; DROP TABLE t; CREATE TABLE v(x);")
        .unwrap();
    drop(tx);
    assert_eq!(
        (file_hash(&path), committed(&path)),
        (before.clone(), vec!["1:a".into(), "2:b".into()])
    );

    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    tx.discard().unwrap();
    assert_eq!(file_hash(&path), before);
    // The write lock went with it: a new sandbox opens at once.
    SqliteTransaction::open_waiting(&path, Duration::ZERO).unwrap();
}

#[test]
fn changes_count_rows_per_table_and_follow_rollbacks() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE gone(x); CREATE INDEX ix ON gone(x); CREATE VIEW w AS SELECT 1;
             CREATE TRIGGER tr AFTER INSERT ON gone BEGIN SELECT 1; END;",
        )
        .unwrap();
    let mut tx = SqliteTransaction::open(&path).unwrap();
    assert!(tx.changes().unwrap().is_empty());
    tx.execute("INSERT INTO t VALUES (3, 'c'); UPDATE t SET name = 'x';")
        .unwrap();
    tx.checkpoint(None).unwrap();
    // A DELETE without WHERE still reports every row (no truncation), and
    // every kind of DROP takes effect (see guard.rs).
    tx.execute(
        "DELETE FROM t; DROP TRIGGER tr; DROP INDEX ix; DROP TABLE gone; CREATE TABLE fresh(y);
         DROP VIEW w; CREATE VIEW w AS SELECT 2;",
    )
    .unwrap();
    let changes = tx.changes().unwrap();
    assert_eq!(
        changes.rows["t"],
        RowCounts {
            inserted: 1,
            updated: 3,
            deleted: 3
        }
    );
    let schema: Vec<(SchemaEdit, &str, &str)> = changes
        .schema
        .iter()
        .map(|c| (c.edit, c.kind.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        schema,
        [
            (SchemaEdit::Dropped, "index", "ix"),
            (SchemaEdit::Created, "table", "fresh"),
            (SchemaEdit::Dropped, "table", "gone"),
            (SchemaEdit::Dropped, "trigger", "tr"),
            (SchemaEdit::Altered, "view", "w"),
        ]
    );
    tx.rollback(None).unwrap();
    let changes = tx.changes().unwrap();
    assert_eq!(
        changes.rows["t"],
        RowCounts {
            inserted: 1,
            updated: 3,
            deleted: 0
        }
    );
    assert!(changes.schema.is_empty());
}

#[test]
fn open_refuses_what_is_not_a_database_file_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let db = database(tmp.path());
    fs::write(tmp.path().join("notes.txt"), "hello, not SQLite at all").unwrap();
    fs::write(tmp.path().join("empty.db"), "").unwrap();
    fs::create_dir(tmp.path().join("dir.db")).unwrap();
    std::os::unix::fs::symlink(&db, tmp.path().join("link.db")).unwrap();
    let listing = || {
        let mut names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    let cases = [
        (
            "missing.db",
            "missing.db does not exist; a transaction_rollback sandbox opens an existing SQLite database and creates nothing",
        ),
        (
            "notes.txt",
            "notes.txt is not a SQLite database (it does not start with the \"SQLite format 3\" header); nothing was opened",
        ),
        ("empty.db", "header; it is empty)"),
        ("dir.db", "dir.db is not a regular file"),
        (
            "link.db",
            "link.db is a symbolic link, which a sandbox does not follow",
        ),
    ];
    for (name, why) in cases {
        let error = message(SqliteTransaction::open(&tmp.path().join(name)));
        assert!(error.contains(why), "{name}: {error}");
    }
    assert_eq!(listing(), before);
    assert_eq!(
        fs::read(tmp.path().join("notes.txt")).unwrap(),
        b"hello, not SQLite at all"
    );
}

#[test]
fn a_database_another_writer_holds_is_refused_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let writer = Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let error = message(SqliteTransaction::open_waiting(
        &path,
        Duration::from_millis(20),
    ));
    assert!(
        error.contains(&format!("{} is locked by another writer", path.display())),
        "{error}"
    );
    writer.execute_batch("ROLLBACK").unwrap();

    // And while a sandbox is open, it is the writer others wait for.
    let _tx = SqliteTransaction::open(&path).unwrap();
    let error = message(SqliteTransaction::open_waiting(
        &path,
        Duration::from_millis(20),
    ));
    assert!(error.contains("is locked by another writer"), "{error}");
    assert_eq!(committed(&path), ["1:a", "2:b"]);
}

#[test]
fn a_wal_database_keeps_readers_on_the_committed_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA journal_mode = WAL")
        .unwrap();
    let reader = Connection::open(&path).unwrap();
    let names = |conn: &Connection| -> i64 {
        conn.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    };
    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    assert_eq!(names(&reader), 2);
    tx.apply().unwrap();
    assert_eq!(names(&reader), 3);
}

mod limits;
mod statements;
