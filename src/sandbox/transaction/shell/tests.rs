use std::path::Path;

use super::complete::{Completeness, complete};
use super::{CELL_CHARS, ShellEnd, shell};
use crate::sandbox::SqliteTransaction;
use crate::sandbox::transaction::tests::{committed, database, file_hash};

/// Runs `script` as a non-interactive session; returns how it ended and
/// what it printed.
fn session(path: &Path, script: &str, interactive: bool) -> (ShellEnd, String) {
    let tx = SqliteTransaction::open(path).unwrap();
    let mut out = Vec::new();
    let end = shell(tx, script.as_bytes(), &mut out, interactive).unwrap();
    (end, String::from_utf8(out).unwrap())
}

#[test]
fn a_scripted_session_prints_its_results_and_applies() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let script = "INSERT INTO t VALUES (3, 'c');
checkpoint before delete
DELETE FROM t
  WHERE id = 1;
checkpoints
rollback before delete
SELECT id, name AS label FROM t ORDER BY id;
changes
apply
INSERT INTO t VALUES (4, 'never run');
";
    let (end, out) = session(&path, script, false);
    let expected = format!(
        "1 row changed
checkpoint 1: agents_cp_1 (before delete)
1 row changed
1: agents_cp_1 (before delete)
rolled back to checkpoint 1: agents_cp_1 (before delete)
id  label
--  -----
1   a
2   b
3   c
(3 rows)
table t: 1 inserted, 0 updated, 0 deleted
table t: 1 inserted, 0 updated, 0 deleted
applied: the changes are committed to {}
",
        path.display()
    );
    assert_eq!(out, expected);
    assert_eq!(end, ShellEnd::Applied);
    assert_eq!(committed(&path), ["1:a", "2:b", "3:c"]);
}

#[test]
fn the_end_of_the_input_discards_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let before = file_hash(&path);
    let (end, out) = session(
        &path,
        "INSERT INTO t VALUES (3, 'c');\nSELECT * FROM t",
        false,
    );
    assert_eq!(
        out,
        format!(
            "1 row changed\nerror: the input ended inside a statement, which was not run\n\
             discarded: every change was rolled back; {} is as it was\n",
            path.display()
        )
    );
    assert_eq!(end, ShellEnd::Discarded);
    assert_eq!(file_hash(&path), before);
}

#[test]
fn errors_are_printed_and_the_session_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let script = "SELEC 1;
ROLLBACK;
checkpoints now
rollback
checkpoint 7
-- a comment alone is no statement

CREATE TRIGGER tr AFTER INSERT ON t BEGIN
  UPDATE t SET name = upper(name) WHERE id = new.id;
END;
INSERT INTO t VALUES (3, 'c');
SELECT name FROM t WHERE id = 3;
quit
";
    let (end, out) = session(&path, script, false);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("error: near \"SELEC\": syntax error"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("error: ROLLBACK is refused: a sandbox is one transaction"),
        "{out}"
    );
    assert!(
        lines[1].ends_with("(nothing of this input was kept; the transaction is still open)"),
        "{out}"
    );
    assert_eq!(lines[2], "error: checkpoints takes no argument (see help)");
    assert_eq!(lines[3], "error: no checkpoint \"latest\" in this sandbox");
    assert!(
        lines[4].starts_with("error: the checkpoint label \"7\" is refused"),
        "{out}"
    );
    assert_eq!(
        lines[5..].join("\n"),
        format!(
            "0 rows changed\n2 rows changed\nname\n----\nC\n(1 row)\n\
             discarded: every change was rolled back; {} is as it was",
            path.display()
        )
    );
    assert_eq!(end, ShellEnd::Discarded);
    assert_eq!(committed(&path), ["1:a", "2:b"]);
}

#[test]
fn a_transaction_sqlite_ends_ends_the_session_as_discarded() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let script = "INSERT INTO t VALUES (3, 'c');\nINSERT OR ROLLBACK INTO t VALUES (1, 'x');\nINSERT INTO t VALUES (5, 'e');\n";
    let (end, out) = session(&path, script, false);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[1].starts_with("error: UNIQUE constraint failed: t.id; SQLite ended"),
        "{out}"
    );
    assert_eq!(
        lines[2],
        format!(
            "discarded: SQLite ended the transaction; nothing was applied and {} is as it was",
            path.display()
        )
    );
    assert_eq!(end, ShellEnd::Discarded);
    assert_eq!(committed(&path), ["1:a", "2:b"]);
}

#[test]
fn interactive_sessions_prompt_and_continue_statements() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let (end, out) = session(&path, "SELECT\n  count(*) AS n FROM t;\n", true);
    assert_eq!(
        out,
        format!(
            "sql> ...> n\n-\n2\n(1 row)\nsql> \ndiscarded: every change was rolled back; {} is as it was\n",
            path.display()
        )
    );
    assert_eq!(end, ShellEnd::Discarded);
}

#[test]
fn hostile_values_are_escaped_and_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let script = "CREATE TABLE \"evil\x1b]0;title\x07\"(v);
INSERT INTO \"evil\x1b]0;title\x07\" VALUES (char(27) || '[2J' || char(13) || 'forged' || char(8238));
INSERT INTO \"evil\x1b]0;title\x07\" VALUES (replace(hex(zeroblob(50000)), '0', 'A'));
SELECT v AS \"col\x1b[31m\" FROM \"evil\x1b]0;title\x07\";
checkpoint label\x1b[2Jhere
changes
SELECT * FROM \"no\x1b[2Jsuch\";
SELECT 'unfinished\x1b
";
    let (_, out) = session(&path, script, false);
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(!out.contains('\u{202e}'), "{out:?}");
    assert!(out.contains("\\u{1b}[2J\\rforged\\u{202e}"), "{out}");
    assert!(out.contains("col\\u{1b}[31m"), "{out}");
    assert!(
        out.contains("table evil\\u{1b}]0;title\\u{7}: 2 inserted"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{}… ({} more bytes)",
            "A".repeat(CELL_CHARS),
            100_000 - CELL_CHARS
        )),
        "{out}"
    );
    assert!(out.contains("(label\\u{1b}[2Jhere)"), "{out}");
    assert!(
        out.contains("error: no such table: no\\u{1b}[2Jsuch"),
        "{out}"
    );
    assert!(out.lines().all(|line| line.len() < 300), "{out}");
}

#[test]
fn completeness_follows_sqlite3_complete() {
    use Completeness::{Complete, Empty, Incomplete};
    let cases = [
        ("", Empty),
        ("  \n", Empty),
        ("-- just a comment\n", Empty),
        ("/* and another */", Empty),
        ("select 1", Incomplete),
        ("select 1;", Complete),
        ("select 1 ; \n", Complete),
        ("select ';'", Incomplete),
        ("select ';' ;", Complete),
        ("select 'it''s';", Complete),
        ("select \"a;b\", [c;d], `e;f`;", Complete),
        ("select [a;b", Incomplete),
        ("select 1; -- done\n", Complete),
        ("select 1; -- no newline yet", Incomplete),
        ("select 1; /* open", Incomplete),
        ("select 1 /* ; */", Incomplete),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1;",
            Incomplete,
        ),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END",
            Incomplete,
        ),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;",
            Complete,
        ),
        (
            "create temp trigger tr after insert on t begin select 1; select 2; end;",
            Complete,
        ),
        ("CREATE TABLE ended(x); CREATE TABLE end_(x);", Complete),
        ("select 1; explain create trigger x", Incomplete),
    ];
    for (sql, expected) in cases {
        assert_eq!(complete(sql), expected, "{sql:?}");
    }
}

#[test]
fn an_input_longer_than_its_bound_is_read_past_not_kept_and_the_session_goes_on() {
    use crate::sandbox::SessionLimits;
    let tmp = tempfile::tempdir().unwrap();
    let path = database(tmp.path());
    let limits = SessionLimits {
        max_input_bytes: 64,
        ..SessionLimits::default()
    };
    let tx =
        SqliteTransaction::open_with(&path, std::time::Duration::from_secs(5), limits).unwrap();
    // One line past the bound, and a statement that grows past it over
    // several lines; then one that fits.
    let script = format!(
        "INSERT INTO t VALUES (7, '{}');\nINSERT INTO t VALUES (8,\n'{}'\n);\nINSERT INTO t VALUES (3, 'c');\napply\n",
        "x".repeat(10_000),
        "y".repeat(60)
    );
    let mut out = Vec::new();
    let end = shell(tx, script.as_bytes(), &mut out, false).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(end, ShellEnd::Applied, "{out}");
    assert_eq!(
        out.matches("is longer than 64 bytes, the most one input may hold")
            .count(),
        2,
        "{out}"
    );
    assert!(!out.contains("xxxx") && !out.contains("yyyy"), "{out}");
    assert_eq!(committed(&path), ["1:a", "2:b", "3:c"]);
}
