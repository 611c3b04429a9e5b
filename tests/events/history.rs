//! The log read back and carried: a removed resource's history under its
//! old name, `export --with-events` into another home, and what it holds
//! escaped before the terminal.

use super::{events, ops, seqs};
use crate::common::{Env, backend};
use serde_json::Value;

#[test]
fn a_removed_resource_keeps_its_history_under_its_old_name() {
    let env = Env::new();
    let dir = env.mkdir("proj");
    env.write("proj/sub/x.txt", "x");
    env.add("fs-directory", "local/proj", &dir, &[]).ok();
    env.mkdir("other");
    env.add("fs-directory", "local/other", &env.path("other"), &[])
        .ok();
    env.run(&["resource", "link-child", "local/proj", "local/other"])
        .ok();
    env.run(&["resource", "remove", "local/proj"]).ok();
    let history = env
        .run(&["resource", "history", "local/proj", "-o", "json"])
        .json();
    let ops: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["op"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        ["resource.removed", "link.linked", "resource.registered"]
    );
    // Who went with it is said; the events stay readable after it went.
    let removed = &history[0];
    assert_eq!(removed["name"], "local/proj");
    assert!(removed.get("current_name").is_none(), "{removed}");
    let people = env
        .run(&["resource", "history", "local/proj"])
        .ok()
        .to_owned();
    assert!(people.contains("resource.removed"), "{people}");
    // --below finds the descendants' events by the names they had.
    let below = events(&env, &["--resource", "local/proj", "--below"]);
    assert_eq!(seqs(&below), [1, 3, 4]);
}

#[test]
fn export_with_events_carries_the_log_into_another_home() {
    let env = Env::new();
    env.mkdir("a");
    env.add("fs-directory", "local/a", &env.path("a"), &[]).ok();
    let plain = env.path("plain.json");
    let full = env.path("full.json");
    env.run(&["registry", "export", "--out", plain.to_str().unwrap()])
        .ok();
    env.run(&[
        "registry",
        "export",
        "--with-events",
        "--out",
        full.to_str().unwrap(),
    ])
    .ok();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&plain).unwrap()).unwrap();
    assert!(doc.get("events").is_none());
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    assert_eq!(doc["events"][0]["op"], "resource.registered");
    let other = Env::new();
    other.mkdir("b");
    other
        .add("fs-directory", "local/b", &other.path("b"), &[])
        .ok();
    other
        .run(&["registry", "import", full.to_str().unwrap()])
        .ok();
    let all = events(&other, &[]);
    assert_eq!(
        ops(&all),
        [
            "resource.registered",
            "resource.registered",
            "registry.imported"
        ]
    );
    assert_eq!(seqs(&all), [1, 2, 3]);
    assert_eq!(all[1]["name"], "local/a");
    assert_eq!(all[1]["at"], doc["events"][0]["at"]);
    // A document whose events are out of order is refused whole.
    let mut bad = doc.clone();
    bad["events"][0]["seq"] = Value::from(0);
    let bad_file = other.write("bad.json", &bad.to_string());
    Env::new()
        .run(&["registry", "import", bad_file.to_str().unwrap()])
        .refused(&["events[0]"]);
    assert_eq!(backend() == "postgres", other.postgres.is_some());
}

#[test]
fn what_the_log_holds_is_escaped_before_the_terminal() {
    let env = Env::new();
    let dir = env.mkdir("x\u{1b}[31mred\u{7}");
    env.add("fs-directory", "local/esc", &dir, &[]).ok();
    let table = env.run(&["events"]).ok().to_owned();
    assert!(table.contains("local/esc"), "{table}");
    assert!(
        !table.contains('\u{1b}') && !table.contains('\u{7}'),
        "{table:?}"
    );
    let history = env
        .run(&["resource", "history", "local/esc"])
        .ok()
        .to_owned();
    assert!(
        !history.contains('\u{1b}') && !history.contains('\u{7}'),
        "{history:?}"
    );
    // The data keeps the location exactly.
    let data = events(&env, &[]);
    assert!(
        data[0]["changes"]["location"]
            .as_str()
            .unwrap()
            .contains('\u{1b}')
    );
}
