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

use crate::common::{self, Env};
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

mod boundaries;
mod protocol;
mod resources;
mod subscriptions;
mod tools;
