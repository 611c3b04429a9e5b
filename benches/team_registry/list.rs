//! Part 2: `agents resource list -o json` of N resources on PostgreSQL vs
//! `psql` running the equivalent query on the same schema — every column
//! of every resource with its parents' and children's ids, once as one
//! JSON array built by the server, once as plain rows (stricter: no JSON
//! at all); whole-process wall time, medians of runs taken in turns.
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

/// The first baseline's query: what `resource list -o json` shows, as
/// the server builds it.
const JSON_SQL: &str = "SELECT json_agg(x ORDER BY x.resource_id) FROM (
  SELECT r.*,
    COALESCE((SELECT json_agg(parent_id ORDER BY parent_id) FROM resource_links
               WHERE child_id = r.resource_id), '[]') AS parents,
    COALESCE((SELECT json_agg(child_id ORDER BY child_id) FROM resource_links
               WHERE parent_id = r.resource_id), '[]') AS children
  FROM resources r) x";

/// The second, stricter baseline: the same columns and link ids as plain
/// rows (psql's unaligned text), no JSON built.
const PLAIN_SQL: &str = "SELECT r.*,
    ARRAY(SELECT parent_id FROM resource_links WHERE child_id = r.resource_id
           ORDER BY parent_id) AS parents,
    ARRAY(SELECT child_id FROM resource_links WHERE parent_id = r.resource_id
           ORDER BY child_id) AS children
  FROM resources r ORDER BY r.resource_id";

/// One of the commands timed.
#[derive(Debug, Clone, Copy)]
enum Timed<'a> {
    /// `agents resource list -o json` on this registry URL.
    Agents(&'a str),
    /// `psql` running this query.
    Psql(&'static str),
}

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
    // running each baseline query.
    let mut commands = vec![("agents resource list -o json", Timed::Agents(&url))];
    if !server.contains("sslmode=") {
        commands.push((
            "agents resource list -o json, sslmode=disable",
            Timed::Agents(&plain),
        ));
    }
    let agents_rows = commands.len();
    commands.push(("psql, the same rows as one json_agg", Timed::Psql(JSON_SQL)));
    commands.push((
        "psql, the same columns as plain rows",
        Timed::Psql(PLAIN_SQL),
    ));
    let command = |k: usize| match commands[k].1 {
        Timed::Agents(registry) => agents_list(agents, &home, registry),
        Timed::Psql(sql) => psql(&url, sql),
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
    println!();
    for (baseline, base_median) in commands.iter().zip(&medians).skip(agents_rows) {
        for ((label, _), median) in commands.iter().zip(&medians).take(agents_rows) {
            println!(
                "ratio ({label} / {}): {:.2}x (goal ≤ 1.50x)",
                baseline.0,
                ms(*median) / ms(*base_median)
            );
        }
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

fn psql(url: &str, sql: &str) -> Command {
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
        sql,
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
