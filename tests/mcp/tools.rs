//! The tools: each answers its view and refuses with a kind, each answer
//! fits its output schema, every tool refuses a bad argument, a
//! cancelled discovery writes nothing, a sandbox round trip.

use super::scenario;
use crate::common::{self, Env};

fn tree(env: &Env) {
    env.write("tree/a.txt", "a\n");
    env.write("tree/sub/b.txt", "b\n");
    env.write("other/c.txt", "c\n");
}

#[test]
fn every_resource_tool_answers_its_view_and_refuses_with_a_kind() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        tree(&env);
        let Some(seen) = scenario(&env, "tools", mode) else {
            return;
        };
        assert_eq!(seen["discovered_added"], 1, "{seen}"); // sub/b.txt
        assert!(seen["progress"].as_u64().unwrap() >= 1, "{seen}");
        assert!(seen["cycle"].as_str().unwrap().contains("cycle"), "{seen}");
        assert!(
            seen["not_found"]
                .as_str()
                .unwrap()
                .contains("local/nothing"),
            "{seen}"
        );
        assert!(seen["refresh_changed"].as_u64().unwrap() >= 1, "{seen}");
        // What the tools did is in the registry, as the CLI sees it.
        let listed = env.run(&["resource", "list", "-o", "json"]).json();
        let names: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"local/tree"), "{names:?}");
        assert!(!names.contains(&"local/other"), "{names:?}");
    }
}

/// Every tool `--allow-admin` lists is called once and answers, and each
/// answer fits the output schema the tool lists (the Python client checks
/// it with jsonschema, the TypeScript SDK by itself; a listed tool the
/// scenario does not call fails it). Installing
/// needs a signed plugin in a registry: the test registry's, as in
/// `plugin_registry`, or the test says SKIPPED.
#[test]
fn every_tool_answers_what_its_output_schema_says() {
    let Some(registry) = std::env::var("AGENTS_TEST_REGISTRY")
        .ok()
        .filter(|r| !r.is_empty())
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "needs a registry: eval \"$(scripts/test-registry.sh start)\""
        );
        common::skipped(
            "every tool's output schema",
            "no test registry; eval \"$(scripts/test-registry.sh start)\" runs it",
        );
        return;
    };
    let publisher = Env::new();
    let key = publisher
        .run(&["plugin", "key", "new", "team", "-o", "json"])
        .json();
    let repository = format!("{registry}/mcp-outputs-{}/example", std::process::id());
    let example = common::wasm("python_package.wasm");
    publisher
        .run(&[
            "plugin",
            "push",
            example.to_str().unwrap(),
            &repository,
            "--sign",
            "team",
        ])
        .ok();
    let public = key["public_key"].as_str().unwrap();
    let prefix = repository.rsplit_once('/').unwrap().0;
    for mode in ["legacy", "ts"] {
        let mut env = Env::new();
        env.run(&["plugin", "key", "trust", public, "--for", prefix])
            .ok();
        env.vars
            .push(("AGENTS_TEST_PLUGIN".into(), format!("{repository}:0.1.0")));
        tree(&env);
        env.write("acme-dir.yaml", "name: acme/dir\nresource_kind: physical\n");
        std::fs::copy(common::wasm("faulty.wasm"), env.path("faulty.wasm")).unwrap();
        let export = env.path("export.json");
        Env::new()
            .run(&["registry", "export", "--out", export.to_str().unwrap()])
            .ok();
        let Some(seen) = scenario(&env, "outputs", mode) else {
            return;
        };
        assert_eq!(seen["installed"], "myteam.python", "{seen}");
        assert!(seen["checked"].as_array().unwrap().len() >= 27, "{seen}");
    }
}

#[test]
fn every_tool_refuses_an_unknown_a_wrong_typed_and_a_missing_argument() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        env.write("kept/f.txt", "f\n");
        let Some(seen) = scenario(&env, "strict", mode) else {
            return;
        };
        assert!(
            seen["unknown"]["remove_resource"]
                .as_str()
                .unwrap()
                .contains("dry_run"),
            "{seen}"
        );
        // Every tool was refused, and no refusal carried structured content
        // for a client to check against the tool's output schema.
        let refused = seen["refused_tools"].as_array().unwrap();
        assert!(refused.len() >= 25, "{seen}");
        // The misspelt dry_run removed nothing.
        let listed = env.run(&["resource", "list", "-o", "json"]).json();
        assert!(listed.to_string().contains("local/kept"), "{listed}");
    }
}

#[test]
fn a_cancelled_discovery_writes_nothing_and_the_server_goes_on() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        tree(&env);
        let Some(seen) = scenario(&env, "cancel", mode) else {
            return;
        };
        // Only the discovery after the cancelled one found the new file.
        assert_eq!(
            seen["added"],
            serde_json::json!(["local/tree/new.txt"]),
            "{mode}"
        );
    }
}

#[test]
fn a_sandbox_round_trip_over_mcp() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        env.write("work/keep.txt", "keep\n");
        if scenario(&env, "sandbox", mode).is_none() {
            return;
        }
        assert_eq!(
            std::fs::read_to_string(env.path("work/notes.txt")).unwrap(),
            "first\n"
        );
    }
}
