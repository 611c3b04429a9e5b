//! Part 1: sixteen `agents` processes at once, registering and linking,
//! against PostgreSQL vs against SQLite.
//!
//! Each round starts from a fresh registry (a new schema, or a new home)
//! holding the node type and one hub resource (made through the library,
//! not measured). Sixteen slots then run their processes one after
//! another, all slots at once: slot `w` registers `local/w<w>-n<i>` and
//! links it below the previous one (the first below the hub), so a round
//! of `ops` operations per slot must leave exactly `1 + 16 · ops/2`
//! resources and `16 · ops/2` links. Each round another backend goes
//! first.
//!
//! A third row, the same server with `sslmode=disable`, shows what each
//! process's TLS setup costs (rust-postgres's default is `prefer`; the
//! store now builds its TLS connector only once a server agrees to TLS).
//!
//! A second table measures the same workload from sixteen long-lived
//! processes (agent runtimes embedding the library): each opens one
//! registry and runs its operations through it, so what is compared is
//! the backends' transactions under contention, not process start-up and
//! connection set-up. The bench re-runs itself as those worker processes
//! (`BENCH_TEAM_WORKER`).

use super::{NODE_TYPE, Schema, ms, stats};
use resource_host::home::Home;
use resource_host::registry::{NewResource, RegisterTypeOptions, Registry};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Processes at once.
const SLOTS: usize = 16;

/// What one round measured.
struct Round {
    elapsed: Duration,
    ops: usize,
    /// Every operation's wall time (process start to exit).
    latencies: Vec<Duration>,
    errors: Vec<String>,
    /// (resources, links) found afterwards, and expected.
    counts: (i64, i64),
    expected: (i64, i64),
}

/// Where a round's processes register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    /// The server, as its URL says (rust-postgres's default `sslmode` is
    /// `prefer`: every process sets up TLS before asking the server).
    Postgres,
    /// The same server with `sslmode=disable`: what a process costs
    /// without the TLS setup (shown only when the URL names no sslmode).
    PostgresNoTls,
    /// A temp home's SQLite file.
    Sqlite,
}

impl Backend {
    fn label(self) -> &'static str {
        match self {
            Self::Postgres => "PostgreSQL",
            Self::PostgresNoTls => "PostgreSQL, sslmode=disable",
            Self::Sqlite => "SQLite",
        }
    }
}

pub fn run(server: &str, rounds: usize, ops: usize) {
    let ops = ops.max(2) / 2 * 2;
    let agents = env!("CARGO_BIN_EXE_agents");
    // The binary's pages in the cache before anything is timed.
    let warm = Command::new(agents)
        .arg("--version")
        .output()
        .expect("run agents");
    assert!(warm.status.success());
    let mut backends = vec![Backend::Postgres, Backend::Sqlite];
    if !server.contains("sslmode=") {
        backends.insert(1, Backend::PostgresNoTls);
    }
    let measured = measure(server, &backends, rounds, ops, Mode::Cli);
    println!(
        "## 1. {SLOTS} processes at once, each slot {} registrations + {} links \
         ({rounds} rounds per backend, in turns)\n",
        ops / 2,
        ops / 2
    );
    print_table(&backends, &measured);
}

/// How a round's sixteen slots run their operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One `agents` process per operation.
    Cli,
    /// One long-lived process per slot, through the library.
    Library,
}

/// Part 1b: the same workload from sixteen long-lived library processes.
pub fn run_library(server: &str, rounds: usize, ops: usize) {
    let ops = ops.max(2) / 2 * 2;
    let backends = [Backend::Postgres, Backend::Sqlite];
    let measured = measure(server, &backends, rounds, ops, Mode::Library);
    println!(
        "## 1b. {SLOTS} long-lived processes at once (the library, one registry each), \
         each {} registrations + {} links ({rounds} rounds per backend, in turns)\n",
        ops / 2,
        ops / 2
    );
    print_table(&backends, &measured);
}

/// `rounds` rounds on every backend, in turns: each round another backend
/// goes first, so the machine's drift touches all alike.
fn measure(
    server: &str,
    backends: &[Backend],
    rounds: usize,
    ops: usize,
    mode: Mode,
) -> Vec<Vec<Round>> {
    let mut measured: Vec<Vec<Round>> = backends.iter().map(|_| Vec::new()).collect();
    for r in 0..rounds {
        for k in 0..backends.len() {
            let b = (k + r) % backends.len();
            measured[b].push(round_with(server, backends[b], ops, mode));
        }
    }
    measured
}

/// One row per backend (its rounds' rates, latencies, errors and whether
/// the counts came out exact), then each backend's median rate against
/// SQLite's (the last backend).
fn print_table(backends: &[Backend], measured: &[Vec<Round>]) {
    println!(
        "| backend | ops/round | ops/s, median round | per round | op latency median / max | errors | counts exact |\n\
         |---|---|---|---|---|---|---|"
    );
    let mut medians = Vec::new();
    for (backend, rounds) in backends.iter().zip(measured) {
        let name = backend.label();
        let mut rates: Vec<f64> = rounds
            .iter()
            .map(|r| r.ops as f64 / r.elapsed.as_secs_f64())
            .collect();
        let shown: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        rates.sort_by(f64::total_cmp);
        let median = rates[rates.len() / 2];
        medians.push(median);
        let all: Vec<Duration> = rounds.iter().flat_map(|r| r.latencies.clone()).collect();
        let (lat_median, _, lat_max) = stats(all);
        let errors: usize = rounds.iter().map(|r| r.errors.len()).sum();
        let exact = rounds.iter().all(|r| r.counts == r.expected);
        println!(
            "| {name} | {} | {median:.0} | {} | {:.2} ms / {:.0} ms | {errors} | {} |",
            rounds[0].ops,
            shown.join(", "),
            ms(lat_median),
            ms(lat_max),
            if exact { "yes" } else { "NO" }
        );
        for r in rounds.iter().filter(|r| r.counts != r.expected) {
            println!(
                "|  | counts (resources, links) {:?}, expected {:?} | | | | | |",
                r.counts, r.expected
            );
        }
        if let Some(first) = rounds.iter().flat_map(|r| r.errors.first()).next() {
            println!("\nfirst {name} error: {first}\n");
        }
    }
    let sqlite = medians[medians.len() - 1];
    println!();
    for (backend, median) in backends.iter().zip(&medians) {
        if *backend != Backend::Sqlite {
            println!(
                "ratio ({} ops/s / SQLite ops/s): {:.2}x (goal ≥ 1.00x)",
                backend.label(),
                median / sqlite
            );
        }
    }
    println!();
}

/// When this process is a library worker of part 1b: do its slot's
/// operations, print each one's time (µs) or error, and answer `true`.
pub fn worker() -> bool {
    let Ok(spec) = std::env::var("BENCH_TEAM_WORKER") else {
        return false;
    };
    // slot, ops, home, node dir, registry URL (empty: the home's SQLite)
    let parts: Vec<&str> = spec.split('\t').collect();
    let (w, ops): (usize, usize) = (parts[0].parse().unwrap(), parts[1].parse().unwrap());
    let home = Home::new(parts[2]);
    let node_dir = Path::new(parts[3]);
    let options = resource_host::registry::Options {
        registry: (!parts[4].is_empty())
            .then(|| resource_host::RegistryLocation::Postgres(parts[4].to_owned())),
        ..Default::default()
    };
    let mut registry = Registry::open_with(&home, options).expect("open");
    let mut parent = "local/hub".to_owned();
    for i in 0..ops / 2 {
        let name = format!("local/w{w}-n{i}");
        let start = Instant::now();
        let added = registry.register_resource(node(&name, node_dir), Default::default());
        report(start, added.err().map(|e| e.to_string()));
        let start = Instant::now();
        let linked = registry.link_child(&key(&parent), &key(&name));
        report(start, linked.err().map(|e| e.to_string()));
        parent = name;
    }
    true
}

fn key(text: &str) -> resource_host::model::ResourceKey {
    resource_host::model::ResourceKey::parse(text).expect("a key")
}

fn report(start: Instant, error: Option<String>) {
    match error {
        None => println!("ok {}", start.elapsed().as_micros()),
        Some(e) => println!("error {}", e.replace('\n', " ")),
    }
}

/// One slot as a long-lived library process (this bench run again).
fn library_slot(
    w: usize,
    ops: usize,
    home: &Home,
    url: Option<&str>,
    node_dir: &Path,
) -> (Vec<Duration>, Vec<String>) {
    let spec = [
        w.to_string(),
        ops.to_string(),
        home.root().display().to_string(),
        node_dir.display().to_string(),
        url.unwrap_or("").to_owned(),
    ]
    .join("\t");
    let out = Command::new(std::env::current_exe().expect("this bench"))
        .env("BENCH_TEAM_WORKER", spec)
        .output()
        .expect("run a worker");
    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(us) = line.strip_prefix("ok ") {
            latencies.push(Duration::from_micros(us.parse().unwrap_or(0)));
        } else if let Some(e) = line.strip_prefix("error ") {
            errors.push(e.to_owned());
        }
    }
    if !out.status.success() {
        errors.push(format!(
            "worker {w} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    (latencies, errors)
}

fn round_with(server: &str, backend: Backend, ops: usize, mode: Mode) -> Round {
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = Home::new(tmp.path().join("home"));
    let node_dir = tmp.path().join("node");
    std::fs::create_dir(&node_dir).expect("node dir");
    let schema = (backend != Backend::Sqlite).then(|| Schema::new(server));
    let open = || match &schema {
        Some(s) => s.registry(&home),
        None => Registry::open(&home).expect("open the SQLite registry"),
    };
    {
        let mut registry = open();
        registry
            .register_type_text(NODE_TYPE, "bench-node.yaml", RegisterTypeOptions::default())
            .expect("node type");
        registry
            .register_resource(node("local/hub", &node_dir), Default::default())
            .expect("hub");
    }
    let url = schema.as_ref().map(|s| match backend {
        Backend::PostgresNoTls => format!("{}&sslmode=disable", s.url),
        _ => s.url.clone(),
    });
    let url = url.as_deref();
    let start = Instant::now();
    let slots: Vec<(Vec<Duration>, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..SLOTS)
            .map(|w| {
                let (home, node_dir) = (&home, &node_dir);
                scope.spawn(move || match mode {
                    Mode::Cli => slot(w, ops, home, url, node_dir),
                    Mode::Library => library_slot(w, ops, home, url, node_dir),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("slot"))
            .collect()
    });
    let elapsed = start.elapsed();
    let counts = open().info().expect("info").counts;
    let per_slot = (ops / 2) as i64;
    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    for (l, e) in slots {
        latencies.extend(l);
        errors.extend(e);
    }
    Round {
        elapsed,
        ops: SLOTS * ops,
        latencies,
        errors,
        counts: (counts.resources, counts.links),
        expected: (1 + SLOTS as i64 * per_slot, SLOTS as i64 * per_slot),
    }
}

fn node(name: &str, dir: &Path) -> NewResource {
    NewResource {
        type_name: "bench/node".into(),
        name: Some(name.to_owned()),
        args: vec![("path".into(), dir.to_str().expect("utf-8").to_owned())],
        ..NewResource::default()
    }
}

/// One slot's processes, one after another: (wall time of each, the
/// errors).
fn slot(
    w: usize,
    ops: usize,
    home: &Home,
    url: Option<&str>,
    node_dir: &Path,
) -> (Vec<Duration>, Vec<String>) {
    let agents = env!("CARGO_BIN_EXE_agents");
    let mut latencies = Vec::with_capacity(ops);
    let mut errors = Vec::new();
    let mut parent = "local/hub".to_owned();
    for i in 0..ops / 2 {
        let name = format!("local/w{w}-n{i}");
        let dir = node_dir.to_str().expect("utf-8");
        for args in [
            vec!["resource", "add", "bench/node", &name, "--path", dir],
            vec!["resource", "link-child", &parent, &name],
        ] {
            let mut cmd = Command::new(agents);
            cmd.arg("--home")
                .arg(home.root())
                .args(url.map(|u| ["--registry", u]).into_iter().flatten())
                .args(&args)
                .env_remove("AGENTS_HOME")
                .env_remove("AGENTS_REGISTRY")
                .env("NO_COLOR", "1");
            let start = Instant::now();
            let out = cmd.output().expect("run agents");
            latencies.push(start.elapsed());
            if !out.status.success() {
                errors.push(format!(
                    "{}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
        parent = name;
    }
    (latencies, errors)
}
