//! `agents mcp` driven by the official MCP Python SDK's client (`mcp`
//! 2.3.0 from PyPI, which `.ci/run` installs into `target/py-venv`):
//! every tool, refusals as tool errors, resources and their template, a
//! subscription told of a change, progress, a sandbox round trip, the
//! trust refusal and `--read-only`. Every scenario runs through the
//! Python client over the initialize handshake (`legacy`), most of them
//! over its own negotiation too (`auto`, probing `server/discover`), and
//! every one through the official TypeScript SDK's client (`ts`:
//! `@modelcontextprotocol/sdk` 1.32.2 on Node, `tests/mcp/client.mjs`),
//! which checks every structured result against the tool's output schema
//! and speaks the handshake only.

use crate::common::{self, Env, commit_all, stand_ins};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A Python that has the MCP SDK: `target/py-venv`'s (where `.ci/run`
/// installs it), else `$MCP_PYTHON`. None (a skip; a failure under CI)
/// when there is neither.
fn python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py-venv/bin/python");
    let candidates = [
        Some(venv),
        std::env::var_os("MCP_PYTHON").map(PathBuf::from),
    ];
    let found = candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        let how = "python3 -m venv target/py-venv && target/py-venv/bin/pip install mcp==2.3.0 \
                   (or run .ci/run)";
        assert!(
            std::env::var_os("CI").is_none(),
            "the MCP Python SDK was not found (target/py-venv, $MCP_PYTHON): install it: {how}"
        );
        common::skipped(
            "mcp tests",
            &format!("the MCP Python SDK is not installed: {how}"),
        );
    }
    found
}

/// The node_modules holding the MCP TypeScript SDK (`target/node-tools`'s,
/// where `.ci/run` installs it), if `node` runs too. None (a skip; a
/// failure under CI) otherwise.
fn typescript_sdk() -> Option<PathBuf> {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node-tools/node_modules");
    let found = modules
        .join("@modelcontextprotocol/sdk/package.json")
        .exists()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !found {
        let how = "npm install --prefix target/node-tools @modelcontextprotocol/sdk@1.32.2 \
                   (or run .ci/run)";
        assert!(
            std::env::var_os("CI").is_none(),
            "the MCP TypeScript SDK or node was not found: install it: {how}"
        );
        common::skipped(
            "mcp tests (TypeScript client)",
            &format!("the MCP TypeScript SDK is not installed: {how}"),
        );
        return None;
    }
    Some(modules)
}

/// Run `scenario` against a server on `env`'s home, through the Python
/// SDK's client (`tests/mcp/client.py`) in `mode` (`legacy` or `auto`),
/// or through the TypeScript SDK's (`tests/mcp/client.mjs`) for mode
/// `ts`; answers what it printed (one JSON object).
fn scenario(env: &Env, name: &str, mode: &str) -> Option<serde_json::Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    let mut command = Command::new("timeout");
    command.arg("300");
    if mode == "ts" {
        command
            .arg("node")
            .arg(dir.join("client.mjs"))
            .env("MCP_NODE_MODULES", typescript_sdk()?);
    } else {
        command.arg(python()?).arg(dir.join("client.py"));
    }
    let out = command
        .args([name, env!("CARGO_BIN_EXE_agents")])
        .arg(env.home.path())
        .arg(env.scratch.path())
        .arg(mode)
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .env("XDG_CACHE_HOME", common::SHARED_CACHE)
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "scenario {name} ({mode}) failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}")))
}

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

#[test]
fn registered_resources_are_listed_read_and_templated() {
    for mode in ["legacy", "auto", "ts"] {
        let env = Env::new();
        for i in 0..3 {
            env.write(&format!("d{i}/f.txt"), "f\n");
        }
        let Some(seen) = scenario(&env, "resources", mode) else {
            return;
        };
        assert_eq!(seen["uris"].as_array().unwrap().len(), 3, "{seen}");
    }
}

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

/// Raw JSON-RPC over the server's stdio: what is written, then the
/// answers to the requests among it (by id).
fn raw_session(env: &Env, lines: &[serde_json::Value], ids: &[u64]) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut server = Command::new(env!("CARGO_BIN_EXE_agents"))
        .arg("--home")
        .arg(env.home.path())
        .arg("mcp")
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answers = Vec::new();
    let mut reader = BufReader::new(server.stdout.take().unwrap());
    while answers.len() < ids.len() {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break; // the server ended
        }
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["id"].as_u64().is_some_and(|id| ids.contains(&id)) {
            answers.push(message);
        }
    }
    drop(stdin);
    let _ = server.wait();
    answers
}

#[test]
fn notifications_before_initialize_are_ignored() {
    use serde_json::json;
    let env = Env::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let answers = raw_session(
        &env,
        &[
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 7}}),
            json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}),
            initialize,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ],
        &[1, 2],
    );
    assert_eq!(
        answers.len(),
        2,
        "the server stopped answering: {answers:?}"
    );
    assert_eq!(
        answers[0]["result"]["serverInfo"]["name"], "agents",
        "{answers:?}"
    );
    assert!(
        answers[1]["result"]["tools"].as_array().unwrap().len() > 10,
        "{answers:?}"
    );
}

#[test]
fn resources_list_pages_through_every_registered_resource() {
    for mode in ["legacy", "ts"] {
        let env = Env::new();
        let Some(seen) = scenario(&env, "pages", mode) else {
            return;
        };
        assert_eq!(seen["count"], 205, "{mode}: {seen}");
        assert_eq!(seen["pages"], 3, "{mode}: {seen}");
        assert!(
            seen["bad_cursor"]
                .as_str()
                .unwrap()
                .contains("not a cursor"),
            "{mode}: {seen}"
        );
    }
}

#[test]
fn notifications_before_a_stateless_session_are_ignored() {
    use serde_json::json;
    let env = Env::new();
    // 2026-07-28: no handshake; each request carries its version.
    let list = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    };
    let answers = raw_session(
        &env,
        &[
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 1}}),
            list(2),
            list(3),
        ],
        &[1, 2, 3],
    );
    assert_eq!(
        answers.len(),
        3,
        "the server stopped answering: {answers:?}"
    );
    assert!(
        answers[2]["result"]["tools"].as_array().unwrap().len() > 10,
        "{answers:?}"
    );
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
