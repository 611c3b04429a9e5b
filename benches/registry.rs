//! Registry benchmarks, each against a baseline measured in the
//! same run. Run: `cargo bench --bench registry` (set `BENCH_N` for a
//! smaller home, e.g. `BENCH_N=10000`).
//!
//! 1. Registering N resources in batches through the library vs raw
//!    rusqlite inserting the same rows in the same batches.
//! 2. `agents resource list -o json` and `agents resource show` on a home
//!    with N resources (whole process, wall time) vs the `sqlite3` CLI
//!    running the equivalent query on the same file.
//! 3. `link-child` (library call, one transaction with its cycle check) on
//!    a graph of ~N links.

use resource_host::home::Home;
use resource_host::model::ResourceKey;
use resource_host::registry::{NewResource, RegisterTypeOptions, Registry};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BATCH: usize = 1_000;

fn key(text: &str) -> ResourceKey {
    ResourceKey::parse(text).expect("a resource id")
}

fn main() {
    let n: usize = std::env::var("BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().expect("temp dir");
    println!("# registry benchmarks, N = {n}, batches of {BATCH}\n");
    let home = Home::new(tmp.path().join("home"));
    register(&home, &tmp.path().join("raw.db"), n);
    processes(&home, n);
    links(&tmp.path().join("links"), n);
}

fn request(i: usize) -> NewResource {
    NewResource {
        type_name: "container-instance".into(),
        name: Some(format!("local/r{i}")),
        args: vec![("image".into(), format!("registry.example/app:{i}"))],
        ..NewResource::default()
    }
}

/// Registration through the library vs raw rusqlite, batch for batch,
/// interleaved so that drift in the machine's speed touches both alike.
fn register(home: &Home, raw_db: &Path, n: usize) {
    let mut registry = Registry::open(home).expect("open");
    // Baseline: the same rows, same schema, same batches, raw rusqlite.
    let conn = rusqlite::Connection::open(raw_db).expect("raw db");
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
    )
    .expect("pragmas");
    conn.execute_batch(include_str!("../migrations/sqlite/0001_registry.sql"))
        .expect("schema");
    conn.execute(
        "INSERT INTO resource_types (name, namespace, resource_kind, built_in, source, created_at, updated_at)
         VALUES ('container-instance', 'builtin', 'physical', 1, 'builtin', 't', 't')",
        [],
    )
    .expect("type");
    let mut ids = ulid::Generator::new();
    let (mut ours, mut raw) = (Duration::ZERO, Duration::ZERO);
    for chunk in (0..n).collect::<Vec<_>>().chunks(BATCH) {
        let start = Instant::now();
        registry
            .register_resources(chunk.iter().map(|&i| request(i)))
            .expect("register");
        ours += start.elapsed();

        let start = Instant::now();
        let tx = conn.unchecked_transaction().expect("tx");
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO resources (resource_id, namespaced_name, namespace, type_name,
                       resource_kind, read_only, auto_discovered, properties_json, created_at, updated_at)
                     VALUES (?1, ?2, 'local', 'container-instance', 'physical', 0, 0, ?3, ?4, ?4)",
                )
                .expect("prepare");
            for &i in chunk {
                let props = format!("{{\"image\":\"registry.example/app:{i}\"}}");
                stmt.execute(rusqlite::params![
                    ids.generate().expect("ulid").to_string(),
                    format!("local/r{i}"),
                    props,
                    "2026-01-01T00:00:00.000Z"
                ])
                .expect("insert");
            }
        }
        tx.commit().expect("commit");
        raw += start.elapsed();
    }
    let rate = |d: Duration| n as f64 / d.as_secs_f64();
    println!("## 1. register {n} resources in batches of {BATCH} (batches interleaved)\n");
    println!("| path | time | resources/s |\n|---|---|---|");
    println!(
        "| registry (library) | {:.2} s | {:.0} |",
        ours.as_secs_f64(),
        rate(ours)
    );
    println!(
        "| raw rusqlite | {:.2} s | {:.0} |",
        raw.as_secs_f64(),
        rate(raw)
    );
    println!(
        "\nratio (registry time / raw time): {:.2}x\n",
        ours.as_secs_f64() / raw.as_secs_f64()
    );
}

/// Wall time of one run of a command, stdout discarded.
fn time_once(mut cmd: Command) -> Duration {
    let start = Instant::now();
    let status = cmd.stdout(Stdio::null()).status().expect("run");
    assert!(status.success());
    start.elapsed()
}

/// Medians of `runs` runs of two commands, interleaved (a, b, a, b, …) so
/// that drift in the machine's speed touches both alike.
fn time_pair(
    runs: usize,
    mut a: impl FnMut() -> Command,
    mut b: impl FnMut() -> Command,
) -> (Duration, Duration) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ta.push(time_once(a()));
        tb.push(time_once(b()));
    }
    ta.sort();
    tb.sort();
    (ta[runs / 2], tb[runs / 2])
}

fn processes(home: &Home, n: usize) {
    let agents = env!("CARGO_BIN_EXE_agents");
    let db = home.database();
    let key = format!("local/r{}", n / 2);
    let runs = 11;
    let links = "(SELECT json_group_array(parent_id) FROM resource_links WHERE child_id = r.resource_id) AS parents, \
        (SELECT json_group_array(child_id) FROM resource_links WHERE parent_id = r.resource_id) AS children";
    let list_sql = format!("SELECT r.*, {links} FROM resources r ORDER BY resource_id");
    let (list, list_raw) = time_pair(
        runs,
        || {
            let mut c = Command::new(agents);
            c.arg("--home")
                .arg(home.root())
                .args(["resource", "list", "-o", "json"]);
            c
        },
        || {
            let mut c = Command::new("sqlite3");
            c.arg("-json").arg(&db).arg(&list_sql);
            c
        },
    );
    let show_sql = format!("SELECT r.*, {links} FROM resources r WHERE namespaced_name = '{key}'");
    let (show, show_raw) = time_pair(
        runs,
        || {
            let mut c = Command::new(agents);
            c.arg("--home")
                .arg(home.root())
                .args(["resource", "show", &key, "-o", "json"]);
            c
        },
        || {
            let mut c = Command::new("sqlite3");
            c.arg("-json").arg(&db).arg(&show_sql);
            c
        },
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "## 2. whole-process wall time on a home with {n} resources (median of {runs}, interleaved)\n"
    );
    println!("| command | agents | sqlite3 CLI, same query | ratio |\n|---|---|---|---|");
    println!(
        "| resource list -o json | {:.1} ms | {:.1} ms | {:.2}x |",
        ms(list),
        ms(list_raw),
        ms(list) / ms(list_raw)
    );
    println!(
        "| resource show {key} -o json | {:.1} ms | {:.1} ms | {:.2}x |\n",
        ms(show),
        ms(show_raw),
        ms(show) / ms(show_raw)
    );
}

/// A tiny deterministic PRNG (xorshift64*), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

const NODE_TYPE: &str = "name: bench/node
description: A node of the link benchmark (no handler)
resource_kind: physical
user_addable: true
cli_args:
  - name: path
    type: path
    required: true
";

fn links(dir: &Path, n: usize) {
    let home = Home::new(dir);
    let mut registry = Registry::open(&home).expect("open");
    // Nodes of a type with no handler: what is measured is the DAG check,
    // not a handler looking at a directory.
    registry
        .register_type_text(NODE_TYPE, "bench-node.yaml", RegisterTypeOptions::default())
        .expect("node type");
    let nodes = n / 2;
    let target = dir.to_str().expect("utf-8").to_owned();
    for chunk in (0..nodes).collect::<Vec<_>>().chunks(BATCH) {
        registry
            .register_resources(chunk.iter().map(|&i| NewResource {
                type_name: "bench/node".into(),
                name: Some(format!("local/d{i}")),
                args: vec![("path".into(), target.clone())],
                ..NewResource::default()
            }))
            .expect("register");
    }
    // A random DAG of n links (every edge from a lower to a higher index),
    // bulk-loaded with SQL: the setup is not what is measured.
    let ids: Vec<String> = registry
        .list_resources(&Default::default())
        .expect("list")
        .into_iter()
        .map(|r| r.resource_id.to_string())
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    {
        let conn = rusqlite::Connection::open(home.database()).expect("db");
        let tx = conn.unchecked_transaction().expect("tx");
        let mut stmt = tx
            .prepare(
                "INSERT OR IGNORE INTO resource_links (parent_id, child_id, auto_discovered, created_at)
                 VALUES (?1, ?2, 0, 't')",
            )
            .expect("prepare");
        let mut made = 0;
        while made < n {
            let child = 1 + rng.below(nodes - 1);
            let parent = rng.below(child);
            made += stmt.execute([&ids[parent], &ids[child]]).expect("link");
        }
        drop(stmt);
        tx.commit().expect("commit");
    }
    // Measure: new links low → high (allowed: the check must walk all
    // the child reaches to prove no cycle), and high → low cycles refused.
    let samples = 200;
    let mut allowed = Vec::new();
    let mut refused = Vec::new();
    while allowed.len() < samples {
        let a = rng.below(nodes / 10); // parents near the top: children reach a lot
        let b = a + 1 + rng.below(nodes - a - 1);
        let start = Instant::now();
        let result = registry.link_child(&key(&ids[a]), &key(&ids[b]));
        let took = start.elapsed();
        if result.is_ok() {
            allowed.push(took);
            // Now the reverse closes a cycle.
            let start = Instant::now();
            assert!(registry.link_child(&key(&ids[b]), &key(&ids[a])).is_err());
            refused.push(start.elapsed());
        }
    }
    // Worst case: the cycle check walks the parent's ancestors, so link a
    // sink below every node (its ancestors are then the whole graph) and
    // add new children below the sink: each check visits every link.
    let fresh = |registry: &mut Registry, name: &str| {
        registry
            .register_resource(
                NewResource {
                    type_name: "bench/node".into(),
                    name: Some(name.to_owned()),
                    args: vec![("path".into(), target.clone())],
                    ..NewResource::default()
                },
                Default::default(),
            )
            .expect("register")
            .resource_id
            .to_string()
    };
    let sink = fresh(&mut registry, "local/sink");
    {
        let conn = rusqlite::Connection::open(home.database()).expect("db");
        let tx = conn.unchecked_transaction().expect("tx");
        for id in &ids {
            tx.execute(
                "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at)
                 VALUES (?1, ?2, 0, 't')",
                [id, &sink],
            )
            .expect("link");
        }
        tx.commit().expect("commit");
    }
    let mut worst = Vec::new();
    for k in 0..20 {
        let child = fresh(&mut registry, &format!("local/fresh{k}"));
        let start = Instant::now();
        registry
            .link_child(&key(&sink), &key(&child))
            .expect("link");
        worst.push(start.elapsed());
    }
    let stats = |mut v: Vec<Duration>| {
        v.sort();
        let mean = v.iter().sum::<Duration>() / v.len() as u32;
        (v[v.len() / 2], mean, v[v.len() - 1])
    };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "## 3. link-child on a graph of {n} links over {nodes} resources ({samples} samples)\n"
    );
    println!("| case | median | mean | max |\n|---|---|---|---|");
    for (case, v) in [
        ("allowed, random pair", allowed),
        ("cycle refused, random pair", refused),
        (
            "allowed, parent's ancestors are every resource (worst case)",
            worst,
        ),
    ] {
        let (median, mean, max) = stats(v);
        println!(
            "| {case} | {:.0} µs | {:.0} µs | {:.0} µs |",
            us(median),
            us(mean),
            us(max)
        );
    }
}
