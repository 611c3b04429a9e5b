//! A subscriber told of changes: a refresh's, one on disk under
//! `--watch`, another process's, and a list change — once, whoever made
//! it.

use super::scenario;
use crate::common::Env;

#[test]
fn a_subscriber_is_told_when_a_refresh_sees_its_resource_change() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        env.write("watched/old.txt", "old\n");
        let Some(seen) = scenario(&env, "subscribe", mode) else {
            return;
        };
        if mode == "auto" {
            // The listen path (a stream acknowledged before its listener
            // is added), not the handshake-era subscribe.
            assert!(seen["protocol"].as_str() >= Some("2026-07-28"), "{seen}");
        }
        assert_eq!(
            seen["updated"],
            serde_json::json!(["agents://resource/local/watched"])
        );
    }
}

#[test]
fn with_watch_a_change_on_disk_reaches_a_subscriber_without_a_tool_call() {
    for mode in ["legacy", "ts"] {
        let env = Env::new();
        env.write("watched/old.txt", "old\n");
        let Some(seen) = scenario(&env, "watch", mode) else {
            return;
        };
        assert_eq!(
            seen["updated"],
            serde_json::json!(["agents://resource/local/watched"]),
            "{mode}"
        );
    }
}

#[test]
fn a_subscriber_is_told_of_a_change_another_process_made() {
    for mode in ["legacy", "auto"] {
        let env = Env::new();
        env.write("watched/old.txt", "old\n");
        let Some(seen) = scenario(&env, "others", mode) else {
            return;
        };
        if mode == "auto" {
            // A listen stream, not the handshake-era subscribe.
            assert!(seen["protocol"].as_str() >= Some("2026-07-28"), "{seen}");
        }
        told_of_the_cli_refresh(&seen);
    }
}

fn told_of_the_cli_refresh(seen: &serde_json::Value) {
    // The CLI's refresh, heard through the log: once.
    assert_eq!(
        seen["updated"],
        serde_json::json!(["agents://resource/local/watched"]),
        "{seen}"
    );
    assert_eq!(
        seen["ops"],
        serde_json::json!([
            ["resource.registered", "mcp"],
            ["resource.refreshed", "cli"]
        ]),
        "{seen}"
    );
    assert_eq!(seen["after_last"], 0, "{seen}");
    // list_resources since the cursor: only the resource changed after it.
    assert_eq!(
        seen["changed_since"],
        serde_json::json!(["local/watched"]),
        "{seen}"
    );
    assert_eq!(seen["changed_total"], 1, "{seen}");
}

#[test]
fn a_list_change_is_told_once_whoever_made_it() {
    for mode in ["legacy", "auto"] {
        let env = Env::new();
        env.write("own/f.txt", "f\n");
        env.write("cli/f.txt", "f\n");
        env.write(
            "acme-bare.yaml",
            "name: acme/bare\nresource_kind: physical\nuser_addable: true\n",
        );
        let Some(seen) = scenario(&env, "listed", mode) else {
            return;
        };
        if mode == "auto" {
            // A listen stream that asked for both lists' changes.
            assert!(seen["protocol"].as_str() >= Some("2026-07-28"), "{seen}");
        }
        // The server's own registration, the CLI's registration and its
        // removal: one each (none for the CLI's refresh); the CLI's type:
        // one tools/list_changed.
        assert_eq!(
            seen["told"],
            serde_json::json!({"resources": 3, "tools": 1}),
            "{mode}: {seen}"
        );
    }
}
