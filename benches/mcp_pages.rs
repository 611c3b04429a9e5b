//! `resources/list` over MCP on a home of N registered resources
//! (default 100,000; `BENCH_N` for fewer): the first page and every page
//! after it, each a round trip to one long-lived `agents mcp` (JSON-RPC
//! written and read here). A page used to read every row
//! (0.28 s a page at 100k); a keyset page reads its own rows only.
//!
//! Run: `cargo bench --bench mcp_pages`. `AGENTS_BIN` measures another
//! build of `agents` on the same home (to compare before and after);
//! `BENCH_HOME` keeps the home there, made once, for such a comparison;
//! `BENCH_PAGES` stops after that many pages (an old build pays ~N rows
//! a page).

use resource_host::home::Home;
use resource_host::registry::{NewResource, Registry};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::median;

const BATCH: usize = 1_000;

fn main() {
    let n: usize = std::env::var("BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = std::env::var_os("BENCH_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("home"));
    fill(&home, n);
    let agents = std::env::var_os("AGENTS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agents")));
    let most: usize = std::env::var("BENCH_PAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let times = pages(&agents, &home, most);
    let (first, rest) = (times[0], median(times[1..].to_vec()));
    let last = *times.last().expect("a page");
    println!("# resources/list over MCP, N = {n}, {} pages", times.len());
    println!("  {}", agents.display());
    println!("  first page           {first:>10.1?}");
    println!("  median page after    {rest:>10.1?}");
    println!("  last page measured   {last:>10.1?}");
}

/// N registered resources on `home` (none added if it has them).
fn fill(home: &Path, n: usize) {
    let mut registry = Registry::open(&Home::new(home.to_path_buf())).expect("open");
    let have = registry
        .list_resources(&Default::default())
        .expect("list")
        .len();
    let start = Instant::now();
    for from in (have..n).step_by(BATCH) {
        let batch = (from..(from + BATCH).min(n)).map(|i| NewResource {
            type_name: "container-instance".into(),
            name: Some(format!("local/r{i}")),
            args: vec![("image".into(), format!("registry.example/app:{i}"))],
            ..NewResource::default()
        });
        registry.register_resources(batch).expect("register");
    }
    if have < n {
        eprintln!(
            "registered {} resources in {:.1?}",
            n - have,
            start.elapsed()
        );
    }
}

/// Every page of `resources/list`, each one's round trip.
fn pages(agents: &Path, home: &Path, most: usize) -> Vec<Duration> {
    let mut child = Command::new(agents)
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
    let mut ask = |message: serde_json::Value| {
        input
            .write_all(format!("{message}\n").as_bytes())
            .expect("write");
    };
    let mut line = String::new();
    ask(
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}),
    );
    output.read_line(&mut line).expect("initialize answer");
    ask(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut times = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 1.. {
        let mut params = serde_json::json!({});
        if let Some(c) = &cursor {
            params["cursor"] = serde_json::json!(c);
        }
        line.clear();
        let start = Instant::now();
        ask(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "resources/list",
                               "params": params}),
        );
        output.read_line(&mut line).expect("answer");
        times.push(start.elapsed());
        let answer: serde_json::Value = serde_json::from_str(&line).expect("json");
        assert!(answer["result"]["resources"].is_array(), "{line}");
        cursor = answer["result"]["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() || times.len() >= most {
            break;
        }
    }
    drop(input);
    let _ = child.wait();
    times
}
