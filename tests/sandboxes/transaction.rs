//! `transaction_rollback` sandboxes of SQLite files: one transaction held
//! by `sandbox shell` from the CLI, and by a held session in the library.

use super::{create, sandbox};
use crate::common::Env;
use std::path::Path;

fn sqlite_db(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
         INSERT INTO notes (body) VALUES ('one'), ('two');",
    )
    .unwrap();
}

fn note_bodies(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn.prepare("SELECT body FROM notes ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `transaction_rollback` from the CLI: the shipped type, a sandbox whose
/// session is `sandbox shell`; the other verbs say where its transaction
/// lives.
#[test]
fn a_sqlite_sandbox_is_one_transaction_held_by_its_shell() {
    let env = Env::new();
    let types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/sqlite-database.yaml");
    env.run(&["resource", "type", "add", types.to_str().unwrap()])
        .ok();
    let db = env.path("app.db");
    sqlite_db(&db);
    env.add("local/sqlite-database", "local/app-db", &db, &[])
        .ok();
    let before = std::fs::read(&db).unwrap();
    let sb = create(&env, "local/app-db", &[]);
    assert_eq!(sb.workdir, db);
    sandbox(&env, "checkpoint", &sb.id, &[]).refused(&["sandbox shell"]);

    let session = |script: &str| {
        use std::io::Write;
        let mut child = env
            .command()
            .args(["sandbox", "shell", &sb.id])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Changes, a checkpoint, more changes, rollback to it; end of input
    // discards everything.
    let (out, err) = session(
        "INSERT INTO notes (body) VALUES ('three');\ncheckpoint first\n\
         DELETE FROM notes;\nrollback first\nSELECT body FROM notes ORDER BY id;\n",
    );
    assert!(out.contains("three") && out.contains("one"), "{out}");
    assert!(err.contains("discarded"), "{err}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "a discarded session leaves the file"
    );
    // `apply` commits.
    let (_, err) = session("UPDATE notes SET body = 'uno' WHERE id = 1;\napply\n");
    assert!(err.contains("applied"), "{err}");
    assert_eq!(note_bodies(&db), ["uno", "two"]);
    sandbox(&env, "destroy", &sb.id, &[]).ok();
    assert!(db.exists(), "destroy leaves the database");
}

#[test]
fn the_library_holds_a_sqlite_sandbox_open() {
    use resource_host::home::Home;
    use resource_host::model::ResourceKey;
    use resource_host::registry::{RegisterTypeOptions, Registry};

    let env = Env::new();
    let db = env.path("lib.db");
    sqlite_db(&db);
    let mut registry = Registry::open(&Home::new(env.home.path())).unwrap();
    let types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/sqlite-database.yaml");
    registry
        .register_type(&types, RegisterTypeOptions::default())
        .unwrap();
    registry
        .register_resource(
            resource_host::registry::NewResource {
                type_name: "local/sqlite-database".into(),
                name: Some("local/lib-db".into()),
                args: vec![("path".into(), db.display().to_string())],
                ..Default::default()
            },
            Default::default(),
        )
        .unwrap();
    let sb = registry
        .create_sandbox(&ResourceKey::parse("local/lib-db").unwrap(), None)
        .unwrap();
    let mut tx = registry
        .open_transaction(sb.sandbox_id, Default::default())
        .unwrap();
    tx.execute("INSERT INTO notes (body) VALUES ('three')")
        .unwrap();
    tx.checkpoint(Some("three")).unwrap();
    tx.execute("DELETE FROM notes WHERE body = 'one'").unwrap();
    assert_eq!(
        note_bodies(&db),
        ["one", "two"],
        "readers see the committed database"
    );
    tx.rollback(Some("three")).unwrap();
    tx.apply().unwrap();
    assert_eq!(note_bodies(&db), ["one", "two", "three"]);
}

/// A live `sandbox shell` holds its session: `destroy` (and `resource
/// remove --force`) and a second shell are refused naming the session's
/// process, instead of destroying the sandbox under it — whose `apply`
/// then still committed. Once it ends, destroy works.
#[test]
fn a_live_shell_session_keeps_destroy_and_a_second_session_away() {
    use std::io::{BufRead, Write};
    let env = Env::new();
    let types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/sqlite-database.yaml");
    env.run(&["resource", "type", "add", types.to_str().unwrap()])
        .ok();
    let db = env.path("app.db");
    sqlite_db(&db);
    env.add("local/sqlite-database", "local/app-db", &db, &[])
        .ok();
    let sb = create(&env, "local/app-db", &[]);
    let mut child = env
        .command()
        .args(["sandbox", "shell", &sb.id])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"INSERT INTO notes (body) VALUES ('three');\n")
        .unwrap();
    // The session is live once it answered.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "1 row changed\n");
    let holder = format!("process {}", child.id());
    sandbox(&env, "destroy", &sb.id, &[]).refused(&[
        "cannot destroy sandbox",
        &holder,
        "holds its session",
    ]);
    env.run(&["resource", "remove", "--force", "local/app-db"])
        .refused(&[&holder]);
    let second = env
        .command()
        .args(["sandbox", "shell", &sb.id])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    crate::common::Run::from(second).refused(&["cannot open a session on sandbox", &holder]);
    // The session goes on and applies; then the sandbox can go.
    stdin.write_all(b"apply\n").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(note_bodies(&db), ["one", "two", "three"]);
    sandbox(&env, "destroy", &sb.id, &[]).ok();
}

/// `sandbox shell --input-timeout`: a query that would never end is
/// interrupted and the session goes on.
#[test]
fn a_shell_input_past_its_deadline_is_interrupted_and_the_session_goes_on() {
    use std::io::Write;
    let env = Env::new();
    let types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/sqlite-database.yaml");
    env.run(&["resource", "type", "add", types.to_str().unwrap()])
        .ok();
    let db = env.path("app.db");
    sqlite_db(&db);
    env.add("local/sqlite-database", "local/app-db", &db, &[])
        .ok();
    let sb = create(&env, "local/app-db", &[]);
    let mut child = env
        .command()
        .args([
            "sandbox",
            "shell",
            &sb.id,
            "--input-timeout",
            "0.1",
            "--max-growth",
            "1",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;\n\
              CREATE TABLE b(x);\n\
              INSERT INTO b WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) SELECT randomblob(65536) FROM n;\n\
              INSERT INTO notes (body) VALUES ('three');\napply\n",
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("after 0.100 s, the session's deadline for one input"),
        "{stdout}"
    );
    assert!(
        stdout.contains("past the session's bound (1 MiB more"),
        "{stdout}"
    );
    assert_eq!(note_bodies(&db), ["one", "two", "three"]);
}
