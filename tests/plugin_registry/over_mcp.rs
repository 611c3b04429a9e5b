//! Installing from a registry over MCP (`agents mcp --allow-admin`, raw
//! JSON-RPC): a signed plugin installs; an unsigned one is left to a
//! person at the CLI.

use super::{example, new_publisher, plugin_modules, push, registry, repo, trusting};
use crate::common::Env;

/// One `tools/call` of `tool` with `arguments` to `agents mcp
/// --allow-admin` on `env`'s home, by raw JSON-RPC: the call's result.
fn mcp_call(env: &Env, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    use std::io::{BufRead, BufReader, Write};
    let mut cmd = env.command();
    cmd.env("DOCKER_CONFIG", env.path("no-docker"))
        .args(["mcp", "--allow-admin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut server = cmd.spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "plugin-install-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut reader = BufReader::new(server.stdout.take().unwrap());
    let mut answer = serde_json::Value::Null;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            answer = message["result"].clone();
            break;
        }
    }
    drop(stdin);
    let _ = server.wait();
    answer
}

/// An agent runtime behind `agents mcp --allow-admin` installs a signed
/// plugin (its types with it); an unsigned one is refused with the
/// reason, and `allow_unsigned` is not an argument it can give — running
/// unsigned code is a person's decision, at the CLI.
#[test]
fn mcp_installs_a_signed_plugin_and_leaves_unsigned_ones_to_a_person() {
    let Some(reg) = registry("install over MCP") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let signed = repo(&reg, "signed");
    push(&publisher, &example(), &signed, &["--sign", "team"]);
    let unsigned = repo(&reg, "unsigned");
    push(&publisher, &example(), &unsigned, &[]);
    let prefix = signed.rsplit_once('/').unwrap().0;
    let env = trusting(&key, prefix);

    let installed = mcp_call(
        &env,
        "plugin_install",
        serde_json::json!({"reference": format!("{signed}:0.1.0")}),
    );
    assert_ne!(installed["isError"], true, "{installed}");
    assert_eq!(
        installed["structuredContent"]["types_added"],
        serde_json::json!(["myteam/python-package"]),
        "{installed}"
    );
    assert!(plugin_modules(&env).contains(&"myteam.python".to_owned()));

    let other = trusting(&key, prefix);
    let refused = mcp_call(
        &other,
        "plugin_install",
        serde_json::json!({"reference": format!("{unsigned}:0.1.0")}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("not signed"), "{refused}");
    let refused = mcp_call(
        &other,
        "plugin_install",
        serde_json::json!({"reference": format!("{unsigned}:0.1.0"), "allow_unsigned": true}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("allow_unsigned"), "{refused}");
    assert!(!plugin_modules(&other).contains(&"myteam.python".to_owned()));
}
