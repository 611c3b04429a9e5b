//! What a session may run: statements that would end or escape the
//! transaction refused, an input that fails keeps none of its
//! statements, and query answers bounded.

use super::*;

#[test]
fn statements_that_would_end_or_escape_the_transaction_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let other = tmp.path().join("other.db");
    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.checkpoint(None).unwrap();
    let refused = [
        ("COMMIT", "COMMIT/END is refused"),
        ("end transaction", "COMMIT/END is refused"),
        ("ROLLBACK", "ROLLBACK is refused"),
        ("/* sneaky */ begin", "BEGIN is refused"),
        ("SAVEPOINT mine", "SAVEPOINT is refused"),
        ("RELEASE agents_cp_1", "RELEASE is refused"),
        ("ROLLBACK TO agents_cp_1", "ROLLBACK TO is refused"),
        (
            &format!("ATTACH '{}' AS o", other.display()),
            "ATTACH and DETACH are refused",
        ),
        ("DETACH temp", "ATTACH and DETACH are refused"),
        (
            "PRAGMA journal_mode = WAL",
            "PRAGMA \"journal_mode\" is refused",
        ),
        (
            "pragma main.writable_schema = 1",
            "PRAGMA \"writable_schema\" is refused",
        ),
        (
            "PRAGMA locking_mode = EXCLUSIVE",
            "PRAGMA \"locking_mode\" is refused",
        ),
        ("VACUUM", "cannot VACUUM from within a transaction"),
        (
            &format!("VACUUM INTO '{}'", other.display()),
            "cannot VACUUM from within a transaction",
        ),
        // A pragma's table-valued function runs the pragma, which is
        // prepared (and refused) like any other; journal_mode's argument
        // there is a schema name, not a value.
        (
            "SELECT * FROM pragma_optimize",
            "PRAGMA \"optimize\" is refused",
        ),
        (
            "SELECT * FROM pragma_journal_mode('wal')",
            "unknown database 'wal'",
        ),
        ("SELECT ?1", "a statement with parameters"),
    ];
    for (sql, why) in refused {
        // Statements before the refused one are undone with it.
        let input = format!("INSERT INTO t VALUES (9, 'z'); {sql};");
        let error = message(tx.execute(&input));
        assert!(error.contains(why), "{sql}: {error}");
        assert!(
            error.contains("nothing of this input was kept; the transaction is still open"),
            "{error}"
        );
        assert!(tx.is_open(), "{sql}");
        assert_eq!(seen(&mut tx), ["1:a", "2:b"], "{sql}");
    }
    assert!(!other.exists());
    assert_eq!(tx.checkpoints().len(), 1);
    // Questions are answered.
    tx.execute("PRAGMA table_info(t); PRAGMA user_version; PRAGMA journal_mode; SELECT * FROM pragma_table_info('t');")
        .unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    tx.rollback(None).unwrap();
    assert_eq!(seen(&mut tx), ["1:a", "2:b"]);
}

#[test]
fn a_transaction_sqlite_ends_itself_ends_the_sandbox_unapplied() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let mut tx = SqliteTransaction::open(&path).unwrap();
    tx.execute("INSERT INTO t VALUES (3, 'c')").unwrap();
    let error = message(tx.execute("INSERT OR ROLLBACK INTO t VALUES (1, 'again')"));
    assert!(error.contains("UNIQUE constraint failed"), "{error}");
    assert!(
        error.contains("SQLite ended the sandbox's transaction")
            && error.contains("nothing was applied"),
        "{error}"
    );
    assert!(!tx.is_open());
    assert!(message(tx.checkpoint(None)).contains("SQLite rolled its transaction back"));
    assert!(message(tx.apply()).contains("is over"));
    assert_eq!(committed(&path), ["1:a", "2:b"]);
}

#[test]
fn a_failing_input_keeps_none_of_its_statements() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    let error =
        message(tx.execute("INSERT INTO t VALUES (3, 'c'); INSERT INTO t VALUES (1, 'dup');"));
    assert!(error.contains("UNIQUE constraint failed: t.id"), "{error}");
    assert!(tx.is_open());
    assert_eq!(seen(&mut tx), ["1:a", "2:b"]);
    assert!(tx.changes().unwrap().is_empty());
    let error = message(tx.execute("SELEC 1"));
    assert!(error.contains("syntax error"), "{error}");
}

#[test]
fn queries_answer_columns_and_text_rows_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let mut tx = SqliteTransaction::open(&database(tmp.path())).unwrap();
    let outcomes = tx
        .execute(
            "CREATE TABLE n(v);
             INSERT INTO n WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1005) SELECT i FROM c;
             SELECT v FROM n ORDER BY v;
             SELECT NULL AS n, 1.5 AS r, x'00ff' AS b, 'ü' AS t;
             UPDATE t SET name = name || '!' RETURNING id;",
        )
        .unwrap();
    assert_eq!(outcomes.len(), 5);
    assert_eq!(outcomes[0], StatementOutcome::Changed(0));
    assert_eq!(outcomes[1], StatementOutcome::Changed(1005));
    let StatementOutcome::Rows(many) = &outcomes[2] else {
        panic!()
    };
    assert_eq!((many.rows.len(), many.truncated), (MAX_ROWS, true));
    assert_eq!(many.rows[999], [Some("1000".to_owned())]);
    let StatementOutcome::Rows(values) = &outcomes[3] else {
        panic!()
    };
    assert_eq!(values.columns, ["n", "r", "b", "t"]);
    assert_eq!(
        values.rows,
        [[
            None,
            Some("1.5".into()),
            Some("x'00ff'".into()),
            Some("ü".into())
        ]]
    );
    assert!(!values.truncated);
    let StatementOutcome::Rows(returning) = &outcomes[4] else {
        panic!()
    };
    assert_eq!((returning.rows.len(), returning.changed), (2, 2));
    assert_eq!(seen(&mut tx), ["1:a!", "2:b!"]);
}
