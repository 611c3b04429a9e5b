//! One event per write that happened: a refusal or a dry run records
//! none, an import is one, and sixteen concurrent writers leave a
//! gap-free sequence in commit order.

use super::{events, last_seq, ops, seqs};
use crate::common::Env;

#[test]
fn a_refused_write_and_a_dry_run_leave_no_event() {
    let env = Env::new();
    env.mkdir("a");
    env.mkdir("b");
    env.add("fs-directory", "local/a", &env.path("a"), &[]).ok();
    env.add("fs-directory", "local/b", &env.path("b"), &[]).ok();
    env.run(&["resource", "link-child", "local/a", "local/b"])
        .ok();
    let before = last_seq(&env);
    env.run(&["resource", "link-child", "local/b", "local/a"])
        .refused(&["cycle"]);
    env.run(&["resource", "link-child", "local/a", "local/b"])
        .refused(&["already a parent"]);
    env.add("fs-directory", "local/a", &env.path("b"), &[])
        .refused(&["already exists"]);
    env.run(&["resource", "remove", "--dry-run", "local/a"])
        .ok();
    // An import rehearsed: everything checked, nothing written.
    let other = Env::new();
    other.mkdir("c");
    other
        .add("fs-directory", "local/c", &other.path("c"), &[])
        .ok();
    let doc = other.path("doc.json");
    other
        .run(&["registry", "export", "--out", doc.to_str().unwrap()])
        .ok();
    env.run(&["registry", "import", "--dry-run", doc.to_str().unwrap()])
        .ok();
    assert_eq!(last_seq(&env), before);
    assert_eq!(events(&env, &[]).len() as i64, before);
    // The real import is one event.
    env.run(&["registry", "import", doc.to_str().unwrap()]).ok();
    let after = events(&env, &["--since", &before.to_string()]);
    assert_eq!(ops(&after), ["registry.imported"]);
    assert_eq!(after[0]["changes"]["resources"]["added"], 1);
    // Importing it again adds nothing, and records nothing.
    env.run(&["registry", "import", doc.to_str().unwrap()]).ok();
    assert_eq!(last_seq(&env), before + 1);
}

#[test]
fn sixteen_concurrent_writers_leave_a_gap_free_ordered_sequence() {
    let env = Env::new();
    let commands: Vec<Vec<String>> = (0..16)
        .map(|i| {
            let dir = env.mkdir(&format!("d{i}"));
            vec![
                "resource".into(),
                "add".into(),
                "fs-directory".into(),
                format!("local/d{i}"),
                "--path".into(),
                dir.display().to_string(),
            ]
        })
        .collect();
    for run in env.race(&commands) {
        run.ok();
    }
    let all = events(&env, &[]);
    assert_eq!(seqs(&all), (1..=16).collect::<Vec<_>>());
    let mut names: Vec<&str> = all.iter().map(|e| e["name"].as_str().unwrap()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 16, "{names:?}");
    // In commit order: times never go back.
    let times: Vec<&str> = all.iter().map(|e| e["at"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // Each is its own write.
    let txns = env.count("SELECT COUNT(DISTINCT txn) FROM events");
    assert_eq!(txns, 16);
}
