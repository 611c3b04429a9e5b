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
    use resource_host::registry::Registry;

    let env = Env::new();
    let db = env.path("lib.db");
    sqlite_db(&db);
    let mut registry = Registry::open(&Home::new(env.home.path())).unwrap();
    let types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types/sqlite-database.yaml");
    registry.register_type(&types, false).unwrap();
    registry
        .register_resource(resource_host::registry::NewResource {
            type_name: "local/sqlite-database".into(),
            name: Some("local/lib-db".into()),
            args: vec![("path".into(), db.display().to_string())],
            ..Default::default()
        })
        .unwrap();
    let sb = registry
        .create_sandbox(&ResourceKey::parse("local/lib-db").unwrap(), None)
        .unwrap();
    let mut tx = registry.open_transaction(sb.sandbox_id).unwrap();
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
