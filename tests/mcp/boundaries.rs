//! What an agent may not do: write under `--read-only`, trust (never a
//! tool), start an untrusted devcontainer, act outside the roots — the
//! server's, narrowed by the client's.

use super::scenario;
use crate::common::{self, Env, commit_all, stand_ins};

#[test]
fn read_only_serves_reads_and_trust_is_never_a_tool() {
    for mode in ["legacy", "ts"] {
        let env = Env::new();
        scenario(&env, "read_only", mode);
    }
}

#[test]
fn activating_an_untrusted_devcontainer_tells_the_agent_what_a_person_runs() {
    for mode in ["legacy", "ts"] {
        let mut env = Env::new();
        let bin = stand_ins(&mut env, &["docker"]);
        let repo = env.mkdir("repo");
        env.write(
            "repo/.devcontainer/devcontainer.json",
            r#"{"image": "debian:12"}"#,
        );
        env.write("repo/README.md", "# repo\n");
        commit_all(&repo);
        if scenario(&env, "untrusted", mode).is_none() {
            return;
        }
        // Nothing reached the engine.
        let log = common::tool_log(&bin);
        assert!(!log.contains("run"), "{log}");
    }
}

/// `proj/` (the root the server is launched in) beside `outside/`, with
/// symlinks inside `proj` that lead out; a person registered `outside`
/// and made a sandbox of it at the CLI.
fn roots_fixture(env: &Env) {
    env.write("proj/a.txt", "a\n");
    env.write("proj/inner/b.txt", "b\n");
    env.write("outside/secret.txt", "secret\n");
    std::fs::create_dir_all(env.path("proj/files")).unwrap();
    std::os::unix::fs::symlink(env.path("outside/secret.txt"), env.path("proj/files/leak"))
        .unwrap();
    std::os::unix::fs::symlink(env.path("outside"), env.path("proj/link")).unwrap();
    let outside = env.path("outside");
    let outside = outside.to_str().unwrap();
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/person",
        "--path",
        outside,
    ])
    .ok();
    env.run(&["sandbox", "create", "local/person"]).ok();
}

#[test]
fn an_agent_acts_only_inside_the_roots_and_still_sees_what_a_person_registered() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        roots_fixture(&env);
        let Some(seen) = scenario(&env, "roots", mode) else {
            return;
        };
        let etc = seen["etc"].as_str().unwrap();
        assert!(etc.contains("/etc is outside the roots"), "{etc}");
        assert!(
            seen["apply"]
                .as_str()
                .unwrap()
                .contains("outside the roots"),
            "{seen}"
        );
        // Nothing the agent tried reached the person's directory or rows.
        assert_eq!(
            std::fs::read_to_string(env.path("outside/secret.txt")).unwrap(),
            "secret\n"
        );
        let names = env.run(&["resource", "list", "-o", "json"]).json();
        let names: Vec<&str> = names
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"local/person"), "{names:?}");
        assert!(
            !names
                .iter()
                .any(|n| ["local/etc", "local/out", "local/link"].contains(n))
        );
    }
}

#[test]
fn the_clients_roots_narrow_the_servers_and_are_read_again_when_they_change() {
    for mode in ["legacy", "ts"] {
        let env = Env::new();
        roots_fixture(&env);
        let Some(seen) = scenario(&env, "client_roots", mode) else {
            return;
        };
        // Once at the start, once on the change: never a third time.
        assert_eq!(seen["asked"].as_array().unwrap().len(), 2, "{mode}: {seen}");
    }
}
