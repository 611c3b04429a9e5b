//! The front ends a figure is also taken through besides the CLI: a
//! long-lived `agents mcp` of one build, spoken to over stdio, and a
//! Python with a build's wheel running `show_resource.py`.

use super::{Build, PY_CALLS, support};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A long-lived `agents mcp`, initialised.
pub(super) struct Mcp {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    pub(super) fn start(build: &Build, xdg: &Path) -> Self {
        let mut child = build
            .command(xdg, &["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("agents mcp");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Self {
            child,
            input,
            output,
            next_id: 1,
        };
        mcp.send(
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}}),
        );
        let mut line = String::new();
        mcp.output.read_line(&mut line).expect("initialize answer");
        mcp.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    /// One write per message, as a client's buffered writer does.
    fn send(&mut self, message: Value) {
        self.input
            .write_all(format!("{message}\n").as_bytes())
            .expect("write");
    }

    /// Round trips of `show_resource NAME`, each timed.
    pub(super) fn show(&mut self, name: &str, calls: usize, times: &mut Vec<Duration>) {
        let mut line = String::new();
        for _ in 0..calls {
            let id = self.next_id;
            self.next_id += 1;
            line.clear();
            let start = Instant::now();
            self.send(
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "show_resource", "arguments": {"name_or_id": name}}}),
            );
            self.output.read_line(&mut line).expect("answer");
            times.push(start.elapsed());
            assert!(
                line.contains("\"resource_id\"") && !line.contains("\"isError\":true"),
                "{line}"
            );
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The median of one Python run of `show_resource.py` on `home`, or why not.
pub(super) fn python_show(python: &Path, home: &Path, name: &str) -> Duration {
    let script = support::root().join("benches/python/show_resource.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(home)
        .arg(name)
        .arg(PY_CALLS.to_string())
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}: {}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let ns: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("nanoseconds");
    Duration::from_nanos(ns)
}

/// The Pythons to compare, if both are there.
pub(super) fn pythons() -> Result<(PathBuf, PathBuf), String> {
    let new = std::env::var_os("BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| support::root().join("target/bench-py-venv/bin/python"));
    let Some(before) = std::env::var_os("BENCH_PYTHON_BEFORE").map(PathBuf::from) else {
        return Err("BENCH_PYTHON_BEFORE unset (a Python with the previous build's wheel)".into());
    };
    for p in [&new, &before] {
        if !p.is_file() {
            return Err(format!("no Python at {}", p.display()));
        }
    }
    Ok((new, before))
}
