//! Raw JSON-RPC on the server's stdio, no SDK between: notifications
//! sent before a session (handshake or stateless) are ignored and the
//! server goes on answering.

use crate::common::Env;
use std::process::Command;

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
