//! Team-registry benchmarks (the PostgreSQL backend), each against a
//! baseline measured in the same run, interleaved. Run:
//!
//! ```sh
//! eval "$(scripts/test-postgres.sh start)"
//! cargo bench --bench team_registry
//! scripts/test-postgres.sh stop "$AGENTS_TEST_PG_DIR"
//! ```
//!
//! The server is `$AGENTS_BENCH_POSTGRES`, else `$AGENTS_TEST_POSTGRES` (a
//! URL whose user may create schemas); every part works in a fresh schema
//! it drops afterwards. Without a server the bench prints SKIPPED and
//! exits 0.
//!
//! 1. `contention`: 16 processes (the real `agents` binary) registering
//!    and linking at once, against PostgreSQL vs against SQLite (a temp
//!    home), rounds alternating; throughput, errors, and whether the
//!    counts are exact afterwards (goal: 0 errors, exact counts,
//!    PostgreSQL ≥ SQLite).
//! 2. `list`: `agents resource list -o json` of `BENCH_N` (100,000)
//!    resources on PostgreSQL vs `psql` running the equivalent query on
//!    the same schema (goal ≤ 1.5×).
//! 3. `links`: `link_child` (library call: one transaction with its cycle
//!    check) on a graph of `BENCH_LINKS` (1,000,000) links on PostgreSQL,
//!    vs the cycle check's query alone through a plain client (goal: median
//!    ≤ 5 ms).
//!
//! 1b. `library`: the same workload from 16 long-lived processes, each
//!    one registry through the library (`BENCH_LIBRARY_OPS`, default 100
//!    per process).
//!
//! `BENCH_ONLY=contention|library|list|links` runs one part; `BENCH_ROUNDS`
//! (default 3) sets the rounds per backend of part 1, `BENCH_OPS`
//! (default 16) the operations per process slot there.

// A bench target is a crate root: its modules live beside it, in
// `benches/team_registry/`, so that no file there is taken for a bench.
#[path = "team_registry/contention.rs"]
mod contention;
#[path = "team_registry/links.rs"]
mod links;
#[path = "team_registry/list.rs"]
mod list;

use resource_host::RegistryLocation;
use resource_host::home::Home;
use resource_host::registry::{Options, Registry};
use std::time::Duration;

/// The server variables, in the order they are looked at.
const SERVER_VARS: [&str; 2] = ["AGENTS_BENCH_POSTGRES", "AGENTS_TEST_POSTGRES"];

fn main() {
    if contention::worker() {
        return;
    }
    let Some(server) = SERVER_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
    else {
        println!(
            "\n*** team_registry benchmarks SKIPPED: no PostgreSQL server \
             (set AGENTS_BENCH_POSTGRES or AGENTS_TEST_POSTGRES=postgres://…; \
             scripts/test-postgres.sh start makes one) ***\n"
        );
        return;
    };
    let only = std::env::var("BENCH_ONLY").ok();
    let wanted = |part: &str| only.as_deref().is_none_or(|o| o == part);
    let mut admin = postgres::Client::connect(&server, postgres::NoTls)
        .unwrap_or_else(|e| panic!("the PostgreSQL server does not answer: {e}"));
    let version: String = admin
        .query_one("SHOW server_version", &[])
        .expect("server version")
        .get(0);
    println!("# team registry benchmarks, PostgreSQL {version}\n");
    if wanted("contention") {
        contention::run(
            &server,
            env_usize("BENCH_ROUNDS", 3),
            env_usize("BENCH_OPS", 16),
        );
    }
    if wanted("library") {
        contention::run_library(
            &server,
            env_usize("BENCH_ROUNDS", 3),
            env_usize("BENCH_LIBRARY_OPS", 100),
        );
    }
    if wanted("list") {
        list::run(&server, env_usize("BENCH_N", 100_000));
    }
    if wanted("links") {
        links::run(&server, env_usize("BENCH_LINKS", 1_000_000));
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v}: not a number"))
        })
        .unwrap_or(default)
}

/// A fresh schema on the server, dropped at the end.
#[derive(Debug)]
pub struct Schema {
    /// A registry URL whose connections work in the schema.
    pub url: String,
    name: String,
    server: String,
}

impl Schema {
    pub fn new(server: &str) -> Self {
        let name = format!(
            "bench_{}",
            ulid::Ulid::generate().to_string().to_lowercase()
        );
        let mut admin = postgres::Client::connect(server, postgres::NoTls).expect("connect");
        admin
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .expect("create a schema");
        let separator = if server.contains('?') { '&' } else { '?' };
        Self {
            url: format!("{server}{separator}options=-csearch_path%3D{name}"),
            name,
            server: server.to_owned(),
        }
    }

    /// A plain client in the schema (setup and baselines).
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connect")
    }

    /// The registry in this schema, through the library.
    pub fn registry(&self, home: &Home) -> Registry {
        let options = Options {
            registry: Some(RegistryLocation::Postgres(self.url.clone())),
            ..Options::default()
        };
        Registry::open_with(home, options).expect("open the registry on PostgreSQL")
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        if let Ok(mut admin) = postgres::Client::connect(&self.server, postgres::NoTls) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name));
        }
    }
}

/// A type with no handler: what is measured is the registry, not a
/// handler looking at a directory.
pub const NODE_TYPE: &str = "name: bench/node
description: A node of the team-registry benchmark (no handler)
resource_kind: physical
user_addable: true
cli_args:
  - name: path
    type: path
    required: true
";

/// Median, mean and max of some durations.
pub fn stats(mut v: Vec<Duration>) -> (Duration, Duration, Duration) {
    v.sort();
    let mean = v.iter().sum::<Duration>() / v.len() as u32;
    (v[v.len() / 2], mean, v[v.len() - 1])
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A tiny deterministic PRNG (xorshift64*), so runs are comparable.
#[derive(Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}
