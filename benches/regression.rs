//! No regression (no figure more than 10% worse): the figures the other
//! benches measure, this build against a previous `agents` binary, in ONE
//! interleaved run. Run: `cargo bench --bench regression`.
//!
//! The previous binary is `BENCH_AGENTS_BEFORE` (default
//! `/tmp/agents-before`, main's release binary before a session's work).
//! Each binary gets its own home, made by itself from the same tree
//! (`resource add fs-directory` + `discover --recursive`), so a build with
//! a newer schema never upgrades the other's registry. Then, round after
//! round, each figure is taken for the new binary, the previous one and
//! the baseline in turn, which build goes first alternating by round (so
//! the machine's drift and the caches touch all alike), and
//! the medians are printed with the ratio new ÷ before; a ratio over 1.10
//! is flagged. Whole process unless said:
//!
//! * `resource list -o json` (vs `sqlite3 -json` with the equivalent query
//!   on the new home's file, as `benches/registry.rs`);
//! * `resource show -o json` of the tree's root (vs `sqlite3`);
//! * `resource refresh`, nothing changed (everything hashed again);
//! * `resource inspect` of the tree's root (a handler call);
//! * `resource add fs-directory` of a small directory (20 files; a new
//!   one each round, registered with its two levels) and `resource
//!   link-child` of the tree's root → it: the writes that record an event
//!   each (≤ 1.1× with the log on);
//! * `sandbox create --strategy copy_on_write` of the tree vs `cp -a`
//!   (each sandbox destroyed, and each copy removed, untimed);
//! * `tools/call show_resource` to a long-lived `agents mcp` of each
//!   binary (per call, median of blocks);
//! * Python `Registry.show_resource` (`benches/python/show_resource.py`)
//!   when `BENCH_PYTHON` and `BENCH_PYTHON_BEFORE` name Pythons with each
//!   build's wheel installed (`BENCH_PYTHON` defaults to
//!   `target/bench-py-venv/bin/python`, which `cargo bench --bench python`
//!   makes); skipped, saying so, without them.
//!
//! `BENCH_RUNS=N` rounds (default 12; an odd number is made even, so
//! each build goes first equally often), `BENCH_FILES=N` files in the tree
//! (default 5,000: directories of 100, 1 KiB each). Figures, not asserts.
//!
//! The MCP and Python front ends a figure is taken through are in
//! `regression/front_ends.rs`.

#[path = "regression/front_ends.rs"]
mod front_ends;
mod support;
use front_ends::{Mcp, python_show, pythons};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::median;

const NEW: &str = env!("CARGO_BIN_EXE_agents");
/// Pairs of each whole-process command (one per build) per round.
const PAIRS: usize = 4;
/// MCP calls per binary per round.
const MCP_BLOCK: usize = 50;
/// Python calls per binary per round.
const PY_CALLS: usize = 200;
/// A ratio new ÷ before above this is flagged.
const FLAG: f64 = 1.10;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One binary under test, with its own home.
struct Build {
    label: &'static str,
    program: PathBuf,
    home: PathBuf,
}

impl Build {
    /// `program --home HOME ARGS`, in the bench's environment.
    fn command(&self, xdg: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(&self.program);
        c.arg("--home")
            .arg(&self.home)
            .args(args)
            .env("XDG_CACHE_HOME", xdg)
            .env_remove("AGENTS_HOME")
            .env_remove("AGENTS_REGISTRY");
        c
    }

    /// Run to success; its stdout.
    fn run(&self, xdg: &Path, args: &[&str]) -> String {
        let out = self
            .command(xdg, args)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", self.program.display()));
        assert!(
            out.status.success(),
            "{} {args:?}: {}",
            self.label,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Wall time of a command run to success, stdout discarded.
fn time_command(mut c: Command) -> Duration {
    let start = Instant::now();
    let out = c.stdout(Stdio::null()).output().expect("run");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{c:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// A tree of `files` files of 1 KiB, in directories of 100.
fn make_tree(root: &Path, files: usize) {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..files {
        let dir = root.join(format!("d{:03}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).expect("dir");
        }
        let bytes: Vec<u8> = (0..1024)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        std::fs::write(dir.join(format!("f{i:05}.bin")), bytes).expect("file");
    }
}

/// One figure's samples: new, before, and the baseline if it has one.
#[derive(Default)]
struct Samples {
    new: Vec<Duration>,
    before: Vec<Duration>,
    baseline: Vec<Duration>,
}

impl Samples {
    /// The new build's samples (`i == 0`) or the previous one's.
    fn side(&mut self, i: usize) -> &mut Vec<Duration> {
        if i == 0 {
            &mut self.new
        } else {
            &mut self.before
        }
    }
}

fn main() {
    let before_program = std::env::var_os("BENCH_AGENTS_BEFORE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/agents-before"));
    if !before_program.is_file() {
        println!(
            "SKIPPED: no previous binary at {} (set BENCH_AGENTS_BEFORE)",
            before_program.display()
        );
        return;
    }
    let runs = env_usize("BENCH_RUNS", 12).max(2).next_multiple_of(2);
    let files = env_usize("BENCH_FILES", 5_000).max(1);
    let tmp = tempfile::tempdir().expect("temp dir");
    let tmp = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
    let xdg = tmp.join("xdg");
    let tree = tmp.join("tree");
    make_tree(&tree, files);
    let tree_arg = tree.to_str().expect("utf-8 path");

    // Both binaries run from copies made alike here: a binary the linker
    // wrote ran measurably slower than a `cp` of itself (A/A runs, notes
    // of 2026-12-03), so where each file came from must not differ.
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    let copy_of = |from: &Path, name: &str| {
        let to = bin.join(name);
        std::fs::copy(from, &to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
        to
    };
    let builds = [
        Build {
            label: "new",
            program: copy_of(Path::new(NEW), "agents-new"),
            home: tmp.join("home-new"),
        },
        Build {
            label: "before",
            program: copy_of(&before_program, "agents-before"),
            home: tmp.join("home-before"),
        },
    ];
    for b in &builds {
        b.run(
            &xdg,
            &[
                "resource",
                "add",
                "fs-directory",
                "local/tree",
                "--path",
                tree_arg,
            ],
        );
        b.run(&xdg, &["resource", "discover", "--recursive", "local/tree"]);
    }
    let resources = builds[0]
        .run(&xdg, &["resource", "list", "-o", "json"])
        .matches("\"resource_id\"")
        .count();

    let db = builds[0].home.join("registry.db");
    let links = "(SELECT json_group_array(parent_id) FROM resource_links WHERE child_id = r.resource_id) AS parents, \
        (SELECT json_group_array(child_id) FROM resource_links WHERE parent_id = r.resource_id) AS children";
    let list_sql = format!("SELECT r.*, {links} FROM resources r ORDER BY resource_id");
    let show_sql =
        format!("SELECT r.*, {links} FROM resources r WHERE namespaced_name = 'local/tree'");
    let sqlite = |sql: &str| {
        let mut c = Command::new("sqlite3");
        c.arg("-json").arg(&db).arg(sql);
        c
    };

    // One small directory per round for the registration row (both builds
    // register the same ones, each in its own home).
    let small = tmp.join("small");
    for round in 0..=runs {
        for pair in 0..PAIRS {
            make_tree(&small.join(format!("r{round:03}-{pair}")), 20);
        }
    }

    let pythons = pythons();
    let mut mcps: Vec<Mcp> = builds.iter().map(|b| Mcp::start(b, &xdg)).collect();
    for m in &mut mcps {
        m.show("local/tree", 20, &mut Vec::new());
    }

    let load_before = uptime();
    let mut list = Samples::default();
    let mut show = Samples::default();
    let mut refresh = Samples::default();
    let mut inspect = Samples::default();
    let mut sandbox = Samples::default();
    let mut mcp = Samples::default();
    let mut python = Samples::default();
    let mut register = Samples::default();
    let mut link = Samples::default();
    let copy = tmp.join("copy");
    // Round 0 warms caches and is not counted.
    for round in 0..=runs {
        let keep = round > 0;
        let push = |v: &mut Vec<Duration>, d: Duration| {
            if keep {
                v.push(d);
            }
        };
        // Which build goes first alternates by round (an A/A run with a
        // fixed order put the first build 1.4–2.0× behind the very same
        // binary), and the light commands of both builds run before either
        // copies the tree: a command timed just after the other build's
        // `sandbox create` ran in its writeback (2026-12-03: with the copy
        // inside each build's turn and an odd number of rounds, the build
        // that went second more often read 1.2× slower on every write).
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        // Each command is timed in pairs, one build right after the other
        // (the order alternating by pair), `PAIRS` times a round: a
        // block of commands per build let the machine drift between the
        // two builds' figures, and an A/A run of one binary against
        // itself read up to 1.2× apart under load 2–3.
        let pairs = |command: &[&str], samples: &mut Samples| {
            for pair in 0..PAIRS {
                let order = if pair % 2 == 0 {
                    order
                } else {
                    [order[1], order[0]]
                };
                for i in order {
                    let t = time_command(builds[i].command(&xdg, command));
                    if keep {
                        samples.side(i).push(t);
                    }
                }
            }
        };
        pairs(&["resource", "list", "-o", "json"], &mut list);
        pairs(&["resource", "show", "local/tree", "-o", "json"], &mut show);
        pairs(&["resource", "refresh"], &mut refresh);
        pairs(&["resource", "inspect", "local/tree"], &mut inspect);
        for pair in 0..PAIRS {
            let order = if pair % 2 == 0 {
                order
            } else {
                [order[1], order[0]]
            };
            let name = format!("local/small{round:03}-{pair}");
            let dir = small.join(format!("r{round:03}-{pair}"));
            let dir = dir.to_str().expect("utf-8 path");
            for i in order {
                let add = ["resource", "add", "fs-directory", &name, "--path", dir];
                push(
                    register.side(i),
                    time_command(builds[i].command(&xdg, &add)),
                );
            }
            for i in order {
                let command = ["resource", "link-child", "local/tree", &name];
                push(
                    link.side(i),
                    time_command(builds[i].command(&xdg, &command)),
                );
            }
        }
        for i in order {
            let b = &builds[i];
            let mut times = Vec::new();
            mcps[i].show("local/tree", MCP_BLOCK, &mut times);
            push(mcp.side(i), median(times));

            if let Ok((new_py, before_py)) = &pythons {
                let py = if i == 0 { new_py } else { before_py };
                push(python.side(i), python_show(py, &b.home, "local/tree"));
            }
        }
        for i in order {
            let b = &builds[i];
            settle();
            let start = Instant::now();
            let made = b.run(
                &xdg,
                &[
                    "-o",
                    "json",
                    "sandbox",
                    "create",
                    "local/tree",
                    "--strategy",
                    "copy_on_write",
                ],
            );
            push(sandbox.side(i), start.elapsed());
            let made: Value = serde_json::from_str(&made).expect("sandbox json");
            let id = made["sandbox_id"].as_str().expect("sandbox id").to_owned();
            b.run(&xdg, &["sandbox", "destroy", &id]);
        }
        push(&mut list.baseline, time_command(sqlite(&list_sql)));
        push(&mut show.baseline, time_command(sqlite(&show_sql)));
        settle();
        let start = Instant::now();
        let status = Command::new("cp")
            .arg("-a")
            .arg(&tree)
            .arg(&copy)
            .status()
            .expect("cp");
        assert!(status.success());
        push(&mut sandbox.baseline, start.elapsed());
        std::fs::remove_dir_all(&copy).expect("rm copy");
        settle();
    }
    drop(mcps);
    let load_after = uptime();

    println!(
        "# no regression: new ({NEW}) vs before ({}), one interleaved run\n",
        before_program.display()
    );
    println!(
        "{resources} resources per home (a tree of {files} files); median of {runs} rounds; \
         load {load_before} → {load_after}\n"
    );
    println!("| what | new | before | new ÷ before | baseline | new ÷ baseline |");
    println!("|---|---|---|---|---|---|");
    let mut flagged = Vec::new();
    let mut row = |what: &str, s: Samples, baseline: &str| {
        if s.new.is_empty() {
            return;
        }
        let (n, b) = (median(s.new), median(s.before));
        let r = n.as_secs_f64() / b.as_secs_f64();
        let mark = if r > FLAG {
            flagged.push(what.to_owned());
            " **> 1.10**"
        } else {
            ""
        };
        let (base, vs) = if s.baseline.is_empty() {
            ("".to_owned(), "".to_owned())
        } else {
            let t = median(s.baseline);
            (
                format!("{} {baseline}", fmt(t)),
                format!("{:.2}×", n.as_secs_f64() / t.as_secs_f64()),
            )
        };
        println!(
            "| {what} | {} | {} | {r:.2}×{mark} | {base} | {vs} |",
            fmt(n),
            fmt(b)
        );
    };
    row("`resource list -o json`", list, "sqlite3");
    row("`resource show -o json`", show, "sqlite3");
    row("`resource refresh`, nothing changed", refresh, "");
    row("`resource inspect` (fs handler)", inspect, "");
    row("`resource add fs-directory` (20 files)", register, "");
    row("`resource link-child`", link, "");
    row("`sandbox create` copy_on_write", sandbox, "`cp -a`");
    row("MCP `tools/call show_resource`", mcp, "");
    row("Python `Registry.show_resource`", python, "");
    if let Err(why) = &pythons {
        println!("\nPython: skipped ({why}).");
    }
    if flagged.is_empty() {
        println!("\nno ratio over {FLAG:.2}");
    } else {
        println!("\nover {FLAG:.2}: {}", flagged.join(", "));
    }
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 1000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else {
        format!("{us:.0} µs")
    }
}

/// The load averages (`/proc/loadavg`'s first three).
/// Write back what the copies left dirty (untimed), so the next timed
/// command does not run in their writeback.
fn settle() {
    let _ = Command::new("sync").status();
}

fn uptime() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
