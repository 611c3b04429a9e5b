//! The event log (issue 40): every change records one event in its own
//! transaction — op, subject, changes, actor and face — on either backend
//! (`AGENTS_TEST_BACKEND=postgres`); a refusal or a dry run records none;
//! concurrent writers leave a gap-free ordered sequence; retention and
//! pruning remove only what they should and never reuse a number; a
//! removed resource's history is still found by its old name; export
//! `--with-events` carries the log into another home.

use crate::common::{Env, backend};
use resource_host::home::Home;
use resource_host::model::{Actor, Face};
use resource_host::registry::{EventQuery, Options, Registry, Since};
use serde_json::Value;

/// `agents events ARGS… -o json`.
fn events(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["events", "-o", "json"];
    all.extend_from_slice(args);
    match env.run(&all).json() {
        Value::Array(items) => items,
        other => panic!("not a list: {other}"),
    }
}

fn ops(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|e| e["op"].as_str().unwrap().to_owned())
        .collect()
}

fn seqs(list: &[Value]) -> Vec<i64> {
    list.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

fn last_seq(env: &Env) -> i64 {
    env.count("SELECT COALESCE(MAX(seq), 0) FROM events")
}

const TYPE: &str = "name: acme/notes\ndescription: notes\nresource_kind: physical\n\
    sandbox_strategy: none\nuser_addable: true\ncli_args:\n  - name: path\n    type: path\n    \
    required: true\n";

/// The registry `env`'s CLI uses, opened by an embedder under `actor`.
fn open_as(env: &Env, actor: Actor) -> Registry {
    let options = Options {
        actor,
        registry: env
            .postgres
            .as_ref()
            .map(|schema| resource_host::RegistryLocation::parse(&schema.url).unwrap()),
        ..Options::default()
    };
    Registry::open_with(&Home::new(env.home.path()), options).unwrap()
}

#[test]
fn each_change_records_its_op_subject_changes_actor_and_face() {
    let env = Env::new();
    env.mkdir("a");
    env.mkdir("b");
    env.add("fs-directory", "local/a", &env.path("a"), &[]).ok();
    env.add("fs-directory", "local/b", &env.path("b"), &[]).ok();
    env.run(&["resource", "link-child", "local/a", "local/b"])
        .ok();
    env.run(&["resource", "unlink-child", "local/a", "local/b"])
        .ok();
    let file = env.write("notes.yaml", TYPE);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    let replaced = env.write(
        "notes2.yaml",
        &TYPE.replace("description: notes", "description: n2"),
    );
    env.run(&[
        "resource",
        "type",
        "add",
        "--replace",
        replaced.to_str().unwrap(),
    ])
    .ok();
    env.run(&["resource", "type", "remove", "acme/notes"]).ok();
    env.run(&["resource", "remove", "local/b"]).ok();
    let all = events(&env, &[]);
    assert_eq!(
        ops(&all),
        [
            "resource.registered",
            "resource.registered",
            "link.linked",
            "link.unlinked",
            "type.added",
            "type.replaced",
            "type.removed",
            "resource.removed",
        ]
    );
    assert_eq!(seqs(&all), (1..=8).collect::<Vec<_>>());
    let user = all[0]["actor"].as_str().unwrap().to_owned();
    for e in &all {
        assert_eq!(e["via"], "cli", "{e}");
        assert_eq!(e["actor"], user.as_str(), "{e}");
        assert!(e["at"].as_str().unwrap().ends_with('Z'), "{e}");
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        for key in [
            "seq", "at", "op", "kind", "id", "name", "changes", "actor", "via",
        ] {
            assert!(keys.contains(&key), "{key} missing in {e}");
        }
    }
    let a = &all[0];
    assert_eq!(a["kind"], "resource");
    assert_eq!(a["name"], "local/a");
    assert_eq!(a["changes"]["type"], "fs-directory");
    assert_eq!(
        a["changes"]["location"].as_str().unwrap(),
        std::fs::canonicalize(env.path("a"))
            .unwrap()
            .to_str()
            .unwrap()
    );
    let link = &all[2];
    assert_eq!(link["kind"], "link");
    assert_eq!(link["name"], "local/b");
    assert_eq!(link["changes"]["parent"]["name"], "local/a");
    assert_eq!(all[5]["kind"], "type");
    assert_eq!(all[5]["id"], "acme/notes");
    assert_eq!(
        all[5]["changes"]["description"],
        serde_json::json!({"before": "notes", "after": "n2"})
    );
    assert_eq!(all[7]["name"], "local/b");
    // Filters: by op, by kind, by resource (a link names both ends).
    assert_eq!(seqs(&events(&env, &["--op", "link.linked"])), [3]);
    assert_eq!(seqs(&events(&env, &["--type", "type"])), [5, 6, 7]);
    assert_eq!(seqs(&events(&env, &["--resource", "local/a"])), [1, 3, 4]);
    assert_eq!(seqs(&events(&env, &["--since", "6"])), [7, 8]);
    assert_eq!(seqs(&events(&env, &["--since", "2000-01-01"])).len(), 8);
    assert_eq!(seqs(&events(&env, &["--limit", "2"])), [1, 2]);
    assert_eq!(seqs(&events(&env, &["--actor", "mcp"])), Vec::<i64>::new());
    assert_eq!(seqs(&events(&env, &["--actor", "cli"])).len(), 8);
    // The people's table says the same, escaped.
    let table = env.run(&["events", "--since", "2"]).ok().to_owned();
    assert!(table.starts_with("SEQ"), "{table}");
    assert!(table.contains("link.linked"), "{table}");
}

#[test]
fn an_embedder_and_an_agent_are_recorded_as_themselves() {
    let env = Env::new();
    env.mkdir("a");
    env.mkdir("b");
    env.add("fs-directory", "local/a", &env.path("a"), &[]).ok();
    env.add("fs-directory", "local/b", &env.path("b"), &[]).ok();
    let mut agent = open_as(&env, Actor::new(Face::Mcp, "claude-code/1.2"));
    let key = |n: &str| resource_host::model::ResourceKey::parse(n).unwrap();
    agent.link_child(&key("local/a"), &key("local/b")).unwrap();
    let mut python = open_as(&env, Actor::new(Face::Python, "my-runtime"));
    python
        .unlink_child(&key("local/a"), &key("local/b"))
        .unwrap();
    let last = python
        .events(&EventQuery {
            since: Some(Since::Seq(2)),
            ..EventQuery::default()
        })
        .unwrap();
    let seen: Vec<(i64, &str, Face, String)> = last
        .iter()
        .map(|e| (e.seq, e.op.as_str(), e.via, e.actor.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (3, "link.linked", Face::Mcp, "claude-code/1.2".to_owned()),
            (4, "link.unlinked", Face::Python, "my-runtime".to_owned()),
        ]
    );
    assert_eq!(python.last_event_seq().unwrap(), 4);
    let by_agent = events(&env, &["--actor", "mcp:claude-code/1.2"]);
    assert_eq!(seqs(&by_agent), [3]);
}

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

#[test]
fn pruning_removes_only_older_events_and_never_reuses_a_number() {
    let env = Env::new();
    for i in 0..5 {
        let dir = env.mkdir(&format!("d{i}"));
        env.add("fs-directory", &format!("local/d{i}"), &dir, &[])
            .ok();
    }
    let pruned = env
        .run(&["events", "prune", "--before", "3", "-o", "json"])
        .json();
    assert_eq!(pruned["removed"], 2);
    assert_eq!(seqs(&events(&env, &[])), [3, 4, 5]);
    // Everything pruned: the next event is still 6.
    env.run(&["events", "prune", "--before", "100"]).ok();
    assert!(events(&env, &[]).is_empty());
    env.run(&["resource", "remove", "local/d0"]).ok();
    assert_eq!(seqs(&events(&env, &[])), [6]);
    // Pruning by time: nothing is older than the year 2000.
    env.run(&["events", "prune", "--before", "2000-01-01"]).ok();
    assert_eq!(seqs(&events(&env, &[])), [6]);
    env.run(&["events", "prune", "--before", "yesterday"])
        .usage(&["neither an event number nor a time"]);
    env.run(&["events", "--op", "resource.exploded"])
        .usage(&["not an event operation", "resource.registered"]);
    env.run(&["events", "--type", "planet"])
        .usage(&["not an event kind"]);
}

#[test]
fn the_keep_setting_keeps_the_newest_events_and_refuses_nonsense() {
    let env = Env::new();
    for i in 0..4 {
        let dir = env.mkdir(&format!("d{i}"));
        env.add("fs-directory", &format!("local/d{i}"), &dir, &[])
            .ok();
    }
    env.run(&["registry", "settings", "events.keep"])
        .ok()
        .contains("(not set)")
        .then_some(())
        .unwrap();
    env.run(&["registry", "settings", "events.keep", "2"]).ok();
    // The setting's own change is an event (5); the newest two stay.
    let kept = events(&env, &[]);
    assert_eq!(seqs(&kept), [4, 5]);
    assert_eq!(kept[1]["op"], "settings.changed");
    assert_eq!(
        kept[1]["changes"]["events.keep"],
        serde_json::json!({"before": null, "after": "2"})
    );
    let shown = env
        .run(&["registry", "settings", "events.keep", "-o", "json"])
        .json();
    assert_eq!(shown["value"], "2");
    env.run(&["registry", "settings", "events.keep", "90d"])
        .ok();
    // Everything here is younger than 90 days.
    assert_eq!(seqs(&events(&env, &[])), [4, 5, 6]);
    for bad in ["0", "90h", "1.5", "lots"] {
        env.run(&["registry", "settings", "events.keep", bad])
            .refused(&["not a value for events.keep"]);
    }
    env.run(&["registry", "settings", "colour", "red"])
        .refused(&["not a registry setting"]);
    env.run(&["registry", "settings", "events.keep", "--unset"])
        .ok();
    assert_eq!(seqs(&events(&env, &[])).last(), Some(&7));
}

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
fn sandboxes_plugins_discovery_refresh_and_settings_record_their_ops() {
    let env = Env::new();
    let dir = env.mkdir("proj");
    env.write("proj/a.txt", "a");
    env.add("fs-directory", "local/proj", &dir, &[]).ok();
    // Discovery and refresh record what changed, and only then.
    env.write("proj/b.txt", "b");
    env.run(&["resource", "discover", "local/proj"]).ok();
    env.run(&["resource", "discover", "local/proj"]).ok();
    std::fs::remove_file(env.path("proj/a.txt")).unwrap();
    env.run(&["resource", "refresh", "local/proj"]).ok();
    // A sandbox's life.
    let made = env
        .run(&["sandbox", "create", "local/proj", "-o", "json"])
        .json();
    let id = made["sandbox_id"].as_str().unwrap().to_owned();
    env.run(&["sandbox", "checkpoint", &id, "--label", "first"])
        .ok();
    std::fs::write(
        std::path::Path::new(made["workdir"].as_str().unwrap()).join("c.txt"),
        "c",
    )
    .unwrap();
    env.run(&["sandbox", "rollback", &id]).ok();
    env.run(&["sandbox", "apply", &id]).ok();
    env.run(&["sandbox", "destroy", &id]).ok();
    // A plugin added and removed; a project setting set and unset.
    let plugin = crate::common::wasm("python_package.wasm");
    env.run(&["plugin", "add", plugin.to_str().unwrap()]).ok();
    env.run(&["resource", "type", "remove", "myteam/python-package"])
        .ok();
    env.run(&["plugin", "remove", "myteam.python"]).ok();
    env.run(&[
        "project",
        "context",
        "set",
        "--execution-environment",
        "host",
        "--execution-env-priority",
        "fallback",
    ])
    .ok();
    env.run(&["project", "context", "unset"]).ok();
    let all = events(&env, &[]);
    assert_eq!(
        ops(&all),
        [
            "resource.registered",
            "resource.discovered",
            "resource.refreshed",
            "sandbox.created",
            "sandbox.checkpointed",
            "sandbox.rolled_back",
            "sandbox.applied",
            "sandbox.destroyed",
            "plugin.added",
            "type.added",
            "type.removed",
            "plugin.removed",
            "settings.changed",
            "settings.changed",
        ]
    );
    assert_eq!(all[1]["changes"]["added"]["names"][0], "local/proj/b.txt");
    assert_eq!(all[2]["changes"]["gone"]["names"][0], "local/proj/a.txt");
    for e in &all[3..8] {
        assert_eq!(e["kind"], "sandbox", "{e}");
        assert_eq!(e["id"], id.as_str(), "{e}");
        assert_eq!(e["name"], "local/proj", "{e}");
    }
    assert_eq!(all[4]["changes"]["label"], "first");
    assert_eq!(all[8]["id"], "myteam.python");
    assert_eq!(all[8]["changes"]["from"], Value::Null);
    assert_eq!(all[9]["changes"]["source"], "plugin myteam.python");
    assert_eq!(all[12]["id"], "environment");
    assert_eq!(all[13]["changes"]["environment"]["after"], Value::Null);
    // A sandbox's events are the resource's too.
    let about = events(&env, &["--resource", "local/proj"]);
    assert_eq!(about.len(), 8);
}

#[test]
fn trust_granted_and_revoked_are_recorded_against_the_devcontainer() {
    let env = Env::new();
    crate::devcontainer_hostile::repo(&env, r#"{"image": "debian:12"}"#, &[]);
    let dc = crate::devcontainer_hostile::DC;
    let before = last_seq(&env);
    env.run(&["resource", "trust", dc, "--yes"]).ok();
    env.run(&["resource", "untrust", dc]).ok();
    let after = events(&env, &["--since", &before.to_string()]);
    assert_eq!(ops(&after), ["trust.granted", "trust.revoked"]);
    for e in &after {
        assert_eq!(e["kind"], "trust", "{e}");
        assert_eq!(e["name"], dc, "{e}");
    }
    assert!(after[0]["changes"]["digest"].is_string(), "{}", after[0]);
    let about = events(&env, &["--resource", dc, "--type", "trust"]);
    assert_eq!(about.len(), 2);
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
