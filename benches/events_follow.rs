//! `agents events --follow` latency: from a write's commit to the
//! follower printing its event, on SQLite (a poll of the last number every
//! 200 ms) and on PostgreSQL (`LISTEN`/`NOTIFY`). Run:
//!
//! ```sh
//! eval "$(scripts/test-postgres.sh start)"
//! cargo bench --bench events_follow
//! ```
//!
//! The follower is the real `agents` binary (`events --follow -o json`);
//! the writer is this process, through the library: each write is a
//! `registry settings events.keep` change (one transaction, one event),
//! timed from the moment the write returns (committed) to the moment the
//! follower's line with that event's number is read from its stdout. The
//! writes are spaced by a pseudo-random 0–250 ms, so they land at every
//! phase of the poll. `BENCH_N` (default 100) writes per backend. The
//! PostgreSQL part runs when `$AGENTS_TEST_POSTGRES` names a server (a
//! fresh schema, dropped after). The latency is the poll's or the
//! notification's, not the code's: `--profile dev` measures the same.

use resource_host::RegistryLocation;
use resource_host::home::Home;
use resource_host::registry::{Options, Registry};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn main() {
    let n: usize = std::env::var("BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let home = tempfile::tempdir().expect("temp home");
    run("sqlite", home.path(), None, n);
    match resource_host::testing::postgres() {
        Some(schema) => {
            let home = tempfile::tempdir().expect("temp home");
            run("postgres", home.path(), Some(&schema.url), n);
        }
        None => println!("SKIPPED postgres: AGENTS_TEST_POSTGRES is not set"),
    }
}

fn run(backend: &str, home: &Path, url: Option<&str>, n: usize) {
    let options = Options {
        registry: url.map(|u| RegistryLocation::parse(u).expect("registry URL")),
        ..Options::default()
    };
    let mut registry = Registry::open_with(&Home::new(home), options).expect("open");
    let mut follower = Command::new(env!("CARGO_BIN_EXE_agents"));
    follower
        .arg("--home")
        .arg(home)
        .args(["events", "--follow", "-o", "json", "--since", "0"])
        .env_remove("AGENTS_REGISTRY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(url) = url {
        follower.env("AGENTS_REGISTRY", url);
    }
    let mut child = follower.spawn().expect("agents events --follow");
    let stdout = child.stdout.take().expect("stdout");
    let (send, lines) = channel::<(i64, Instant)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let at = Instant::now();
            let seq = serde_json::from_str::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v["seq"].as_i64())
                .unwrap_or(-1);
            if send.send((seq, at)).is_err() {
                break;
            }
        }
    });
    let mut write = |i: usize| -> (i64, Instant) {
        let value = format!("{}", 100_000 + i);
        registry
            .set_registry_setting("events.keep", Some(&value))
            .expect("write");
        let done = Instant::now();
        (registry.last_event_seq().expect("seq"), done)
    };
    // The follower is up once it prints the first write's event.
    let (first, _) = write(0);
    wait_for(&lines, first, Duration::from_secs(60)).expect("the follower started");
    let mut latencies = Vec::with_capacity(n);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 1..=n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::thread::sleep(Duration::from_millis(state % 250));
        let (seq, committed) = write(i);
        let printed = wait_for(&lines, seq, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("{backend}: event {seq} not printed within 10 s"));
        latencies.push(printed.saturating_duration_since(committed));
    }
    let _ = child.kill();
    let _ = child.wait();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = latencies[latencies.len() / 2];
    let p99 = latencies[(latencies.len() * 99).div_ceil(100) - 1];
    println!(
        "events --follow {backend}: n={n} median {:.1} ms  p99 {:.1} ms  max {:.1} ms",
        ms(median),
        ms(p99),
        ms(*latencies.last().expect("some"))
    );
}

/// When the follower printed event `seq` (earlier lines skipped).
fn wait_for(
    lines: &std::sync::mpsc::Receiver<(i64, Instant)>,
    seq: i64,
    within: Duration,
) -> Option<Instant> {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok((s, at)) if s >= seq => return Some(at),
            Ok(_) => continue,
            Err(_) => return None,
        }
    }
}
