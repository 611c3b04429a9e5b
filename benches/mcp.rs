//! `show_resource` three ways, in one run: the library call
//! (`Registry::show_resource`), a `tools/call` to a long-lived `agents
//! mcp` server over its stdin/stdout (JSON-RPC written and read here,
//! the initialize handshake first), and a whole `agents resource show -o
//! json` process. Goal: the MCP call ≤ 1 ms median and ≤ 3×
//! the library call. Run: `cargo bench --bench mcp`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CALLS: usize = 500;
const PROCESSES: usize = 15;

mod support;
use support::median;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (home, registry, key) = support::show_fixture(tmp.path());

    let library: Vec<Duration> = (0..CALLS)
        .map(|_| {
            let start = Instant::now();
            let shown = registry.show_resource(&key).expect("show");
            let took = start.elapsed();
            std::hint::black_box(shown);
            took
        })
        .collect();

    let mcp = over_mcp(&home);

    let processes: Vec<Duration> = (0..PROCESSES)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_agents"))
                .arg("--home")
                .arg(&home)
                .args(["resource", "show", "local/dir", "-o", "json"])
                .output()
                .expect("agents");
            assert!(out.status.success());
            start.elapsed()
        })
        .collect();

    let (lib, mcp, process) = (median(library), median(mcp), median(processes));
    println!("show_resource, median ({CALLS} calls; {PROCESSES} processes):");
    println!("  library call               {lib:>10.1?}");
    println!(
        "  MCP tools/call (stdio)     {mcp:>10.1?}  {:.1}× the library call (goal ≤ 3×, ≤ 1 ms)",
        mcp.as_secs_f64() / lib.as_secs_f64()
    );
    println!(
        "  agents resource show       {process:>10.1?}  {:.0}× the MCP call",
        process.as_secs_f64() / mcp.as_secs_f64()
    );
}

/// Round trips of `tools/call show_resource` to one server.
fn over_mcp(home: &Path) -> Vec<Duration> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agents"))
        .arg("--home")
        .arg(home)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("agents mcp");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let ask = |input: &mut std::process::ChildStdin, message: serde_json::Value| {
        // One write per message, as a client's buffered writer does
        // (`writeln!` on the unbuffered pipe would write the newline
        // apart, waking the server twice).
        input
            .write_all(format!("{message}\n").as_bytes())
            .expect("write");
    };
    ask(
        &mut input,
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}}),
    );
    output.read_line(&mut line).expect("initialize answer");
    ask(
        &mut input,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    let mut times = Vec::with_capacity(CALLS);
    for id in 1..=CALLS {
        line.clear();
        let start = Instant::now();
        ask(
            &mut input,
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "show_resource", "arguments": {"name_or_id": "local/dir"}}}),
        );
        output.read_line(&mut line).expect("answer");
        times.push(start.elapsed());
        assert!(
            line.contains("\"resource_id\"") && !line.contains("\"isError\":true"),
            "{line}"
        );
    }
    drop(input);
    let _ = child.wait();
    times
}
