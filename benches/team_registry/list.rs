//! Part 2: `agents resource list -o json` of N resources on PostgreSQL vs
//! `psql` running the equivalent query (every column of every resource,
//! with its parents' and children's ids, as one JSON array) on the same
//! schema; whole-process wall time, medians of runs taken in turns.
//!
//! The resources are registered through the library in batches (the
//! rows `benches/registry.rs` registers on SQLite: `container-instance`
//! with an image; no links, as there).

use super::{Schema, ms};
use resource_host::home::Home;
use resource_host::registry::NewResource;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BATCH: usize = 1_000;
const RUNS: usize = 11;

/// The baseline's query: what `resource list -o json` shows, as the
/// server builds it.
const LIST_SQL: &str = "SELECT json_agg(x ORDER BY x.resource_id) FROM (
  SELECT r.*,
    COALESCE((SELECT json_agg(parent_id ORDER BY parent_id) FROM resource_links
               WHERE child_id = r.resource_id), '[]') AS parents,
    COALESCE((SELECT json_agg(child_id ORDER BY child_id) FROM resource_links
               WHERE parent_id = r.resource_id), '[]') AS children
  FROM resources r) x";

pub fn run(server: &str, n: usize) {
    let schema = Schema::new(server);
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = Home::new(tmp.path().join("home"));
    let mut registry = schema.registry(&home);
    let start = Instant::now();
    let mut ids = Vec::with_capacity(n);
    for chunk in (0..n).collect::<Vec<_>>().chunks(BATCH) {
        ids.extend(
            registry
                .register_resources(chunk.iter().map(|&i| NewResource {
                    type_name: "container-instance".into(),
                    name: Some(format!("local/r{i}")),
                    args: vec![("image".into(), format!("registry.example/app:{i}"))],
                    ..NewResource::default()
                }))
                .expect("register"),
        );
    }
    let filled = start.elapsed();
    drop(registry);
    // Fresh statistics, as autovacuum would have them a minute later.
    schema.client().batch_execute("ANALYZE").expect("analyze");
    assert_eq!(ids.len(), n);

    let agents = env!("CARGO_BIN_EXE_agents");
    let url = schema.url.clone();
    let plain = format!("{url}&sslmode=disable");
    // What is timed, in turns: agents as the URL says, agents without the
    // TLS setup (when the URL leaves sslmode to the default), and psql
    // (no registry URL).
    let mut commands: Vec<(&str, Option<&str>)> =
        vec![("agents resource list -o json", Some(&url))];
    if !server.contains("sslmode=") {
        commands.push((
            "agents resource list -o json, sslmode=disable",
            Some(&plain),
        ));
    }
    commands.push(("psql, the same rows as one json_agg", None));
    let command = |k: usize| match commands[k].1 {
        Some(registry) => agents_list(agents, &home, registry),
        None => psql(&url),
    };
    let bytes: Vec<usize> = (0..commands.len())
        .map(|k| output_len(command(k)))
        .collect();
    let mut times: Vec<Vec<Duration>> = commands.iter().map(|_| Vec::new()).collect();
    for run in 0..RUNS {
        for k in 0..commands.len() {
            let k = (k + run) % commands.len();
            times[k].push(time_once(command(k)));
        }
    }
    let medians: Vec<Duration> = times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[RUNS / 2]
        })
        .collect();
    println!(
        "## 2. resource list -o json, {n} resources on PostgreSQL \
         (whole process, median of {RUNS}, in turns)\n"
    );
    println!(
        "registered through the library in batches of {BATCH}: {:.1} s ({:.0} resources/s)\n",
        filled.as_secs_f64(),
        n as f64 / filled.as_secs_f64()
    );
    println!("| command | wall time | output |\n|---|---|---|");
    for ((label, _), (median, bytes)) in commands.iter().zip(medians.iter().zip(&bytes)) {
        println!(
            "| {label} | {:.0} ms | {:.1} MB |",
            ms(*median),
            *bytes as f64 / 1e6
        );
    }
    let psql_median = medians[medians.len() - 1];
    println!();
    for ((label, _), median) in commands.iter().zip(&medians).take(commands.len() - 1) {
        println!(
            "ratio ({label} / psql): {:.2}x (goal ≤ 1.50x)",
            ms(*median) / ms(psql_median)
        );
    }
    println!();
}

fn agents_list(agents: &str, home: &Home, url: &str) -> Command {
    let mut c = Command::new(agents);
    c.arg("--home")
        .arg(home.root())
        .args(["--registry", url, "resource", "list", "-o", "json"])
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY");
    c
}

fn psql(url: &str) -> Command {
    let mut c = Command::new("psql");
    c.args([
        "-X",
        "-q",
        "-A",
        "-t",
        "-v",
        "ON_ERROR_STOP=1",
        "-d",
        url,
        "-c",
        LIST_SQL,
    ]);
    c
}

/// Wall time of one run, stdout discarded.
fn time_once(mut cmd: Command) -> Duration {
    let start = Instant::now();
    let status = cmd.stdout(Stdio::null()).status().expect("run");
    assert!(status.success(), "{cmd:?} failed");
    start.elapsed()
}

/// How many bytes one run writes (untimed).
fn output_len(mut cmd: Command) -> usize {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout.len()
}
