//! Bounded work on data an agent controls: a
//! 100,000-deep chain of links — built fast, from a generated import
//! document — is answered or refused with a clear error by every face
//! (the CLI's `resource tree` and `resource graph` run as processes whose
//! exit status is checked: a crash is a signal, not exit 1; MCP's
//! `resource_tree` through the official Python SDK, the server staying
//! up), and the MCP server runs a bounded number of calls at once: 300
//! concurrent calls from one client all answer (or are refused `busy`)
//! on a bounded number of threads.

use crate::common::{self, Env};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The deepest a tree view goes (`resource_host::dag::MAX_TREE_DEPTH`).
const LIMIT: u32 = resource_host::dag::MAX_TREE_DEPTH;

/// An import document for `env` of a chain of `n` links: fs-directory
/// resources `local/chain/r0` → `r1` → … → `rn` (their locations need not
/// exist: an import checks their form, not the disk).
fn chain_document(env: &Env, n: usize) -> PathBuf {
    let mut doc: Value = env.run(&["registry", "export"]).json();
    let id = |i: usize| {
        resource_host::model::ResourceId::from_ulid(ulid::Ulid::from_parts(
            1_700_000_000_000,
            i as u128,
        ))
        .to_string()
    };
    let at = "2026-01-01T00:00:00Z";
    doc["resources"] = (0..=n)
        .map(|i| {
            json!({
                "resource_id": id(i),
                "name": format!("local/chain/r{i}"),
                "resource_type_name": "fs-directory",
                "classification": "physical",
                "location": format!("/nonexistent/chain/r{i}"),
                "description": null,
                "read_only": false,
                "auto_discovered": false,
                "sandbox_strategy": null,
                "content_hash": null,
                "properties": {},
                "created_at": at,
                "updated_at": at,
                "discovered_at": null,
                "stale": null,
            })
        })
        .collect();
    doc["links"] = (0..n)
        .map(|i| {
            json!({
                "parent_id": id(i),
                "child_id": id(i + 1),
                "auto_discovered": false,
                "derived": false,
                "created_at": at,
            })
        })
        .collect();
    env.write("chain.json", &doc.to_string())
}

/// A home holding a chain of `n` links.
fn chain(n: usize) -> Env {
    let env = Env::new();
    let doc = chain_document(&env, n);
    env.run(&["registry", "import", doc.to_str().unwrap()]).ok();
    env
}

#[test]
fn a_hundred_thousand_deep_chain_is_refused_by_tree_and_graph_not_crashed_on() {
    let env = chain(100_000);
    let bound = format!("deeper than {LIMIT} links");
    for verb in ["tree", "graph"] {
        for format in ["table", "json", "yaml"] {
            // `refused` asserts exit status 1: a stack overflow is SIGABRT.
            env.run(&["resource", verb, "local/chain/r0", "-o", format])
                .refused(&["the tree below local/chain/r0", &bound, "--depth N"]);
        }
    }
    // What the bound allows is answered: the top of the chain, or the
    // chain from further down.
    let tree = env
        .run(&[
            "resource",
            "tree",
            "local/chain/r0",
            "--depth",
            &LIMIT.to_string(),
            "-o",
            "json",
        ])
        .ok()
        .to_owned();
    assert_eq!(
        tree.matches("\"resource_id\"").count(),
        LIMIT as usize + 1,
        "the root and {LIMIT} levels below it"
    );
    let low = format!("local/chain/r{}", 100_000 - LIMIT as usize);
    env.run(&["resource", "tree", &low]).ok();
    env.run(&["resource", "graph", &low, "-o", "json"]).ok();
    env.run(&["resource", "graph", "local/chain/r0", "--depth", "3"])
        .ok();
}

/// A Python that has the MCP SDK (see `mcp.rs`), or a skip.
fn python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py-venv/bin/python");
    let found = [
        Some(venv),
        std::env::var_os("MCP_PYTHON").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .find(|p| {
        Command::new(p)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the MCP Python SDK was not found (target/py-venv, $MCP_PYTHON); run .ci/run"
        );
        common::skipped("bounds mcp tests", "the MCP Python SDK is not installed");
    }
    found
}

/// Run `scenario` of `tests/bounds/mcp_client.py` against a server on
/// `env`'s home; answers what it printed (one JSON object).
fn scenario(env: &Env, name: &str, vars: &[(&str, &str)]) -> Option<Value> {
    let python = python()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bounds/mcp_client.py");
    let out = Command::new("timeout")
        .arg("300")
        .arg(python)
        .arg(script)
        .args([name, env!("CARGO_BIN_EXE_agents")])
        .arg(env.home.path())
        .arg(env.scratch.path())
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .env("XDG_CACHE_HOME", common::SHARED_CACHE)
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "scenario {name} failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}")))
}

#[test]
fn mcp_resource_tree_refuses_a_hundred_thousand_deep_chain_and_the_server_stays_up() {
    let env = chain(100_000);
    let Some(seen) = scenario(&env, "deep_tree", &[]) else {
        return;
    };
    let refusal = seen["refusal"].as_str().unwrap();
    assert!(
        refusal.contains(&format!("deeper than {LIMIT} links")),
        "{refusal}"
    );
    assert_eq!(seen["shallow_nodes"], 4, "depth 3: the root and 3 below");
    assert_eq!(seen["alive"], true);
}

#[test]
fn three_hundred_concurrent_mcp_calls_all_answer_on_a_bounded_number_of_threads() {
    let env = Env::new();
    let dir = env.mkdir("dir");
    env.write("dir/file.txt", "x\n");
    env.add("fs-directory", "local/dir", &dir, &[]).ok();
    let Some(seen) = scenario(&env, "concurrent", &[]) else {
        return;
    };
    assert_eq!(seen["answered"], 300, "{seen}");
    assert_eq!(seen["alive"], true);
    let threads = seen["max_threads"].as_u64().unwrap();
    // At most 32 calls run at once: the two workers, a thread per running
    // call (and its handler call's helper), an epoch thread per engine,
    // and a few of the runtime's own. Unbounded, 300 calls made ~300.
    assert!(
        (1..=120).contains(&threads),
        "the server ran on {threads} threads"
    );
}

#[test]
fn a_call_that_waits_too_long_for_a_slot_is_refused_busy_and_nothing_is_lost() {
    let env = Env::new();
    let dir = env.mkdir("dir");
    env.add("fs-directory", "local/dir", &dir, &[]).ok();
    // A wait of one millisecond: of 300 calls at once most find every
    // slot taken.
    let Some(seen) = scenario(&env, "busy", &[("AGENTS_TEST_MCP_BUSY_WAIT_MS", "1")]) else {
        return;
    };
    assert!(seen["busy"].as_u64().unwrap() > 0, "{seen}");
    assert_eq!(
        seen["busy"].as_u64().unwrap() + seen["answered"].as_u64().unwrap(),
        300,
        "{seen}"
    );
    let message = seen["busy_message"].as_str().unwrap();
    assert!(
        message.contains("the server is busy") && message.contains("try again"),
        "{message}"
    );
    assert_eq!(seen["alive"], true);
}
