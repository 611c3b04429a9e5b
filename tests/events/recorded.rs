//! What each change records — op, subject, changes, actor and face: the
//! registry's writes through the CLI, an embedder and an agent as
//! themselves, and sandboxes, plugins, discovery, refresh, settings and
//! trust.

use super::{TYPE, events, last_seq, open_as, ops, seqs};
use crate::common::Env;
use resource_host::model::{Actor, Face};
use resource_host::registry::{EventQuery, Since};
use serde_json::Value;

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
