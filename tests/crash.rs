//! Crash safety: the real `agents` process SIGKILLed at random points of
//! a large recursive discovery, a refresh after many changes, a
//! registration of a big tree, a batch registration (`registry import` of
//! a whole document), a `plugin add` and a `copy_on_write` checkpoint —
//! then the home is checked, and the event log against it (gap-free; each
//! operation's events there exactly when its rows are).
//!
//! **Where a run is killed.** The first run of each operation is not
//! killed: it measures how long the operation takes and when it starts
//! writing. After that, runs alternate between a kill at a random moment
//! of that whole span (most land while it reads and computes, some in the
//! write, a few after it finished) and a kill a random moment after a
//! probe saw it start writing — the registry's write-ahead log growing
//! (SQLite) or this schema's write lock granted (PostgreSQL), a file
//! appearing in the plugin store or compile cache, a checkpoint's `.tmp`
//! directory appearing. Moments come from a seeded generator
//! (`CRASH_SEED`, printed with the figures), so a failing run can be
//! replayed; `CRASH_RUNS` sets the runs per operation (default
//! [`DEFAULT_RUNS`]).
//!
//! **What is checked after every run** ([`check_home`] plus each
//! operation's own): SQLite's `PRAGMA integrity_check` is `ok` and no
//! foreign key dangles; the operation is all there or not there at all
//! (rows counted against the state before and the state it makes); no file
//! in the plugin store or compile cache is trusted that does not hold what
//! its name and seal say; and the next command works — the operation again,
//! and a handler call that loads what the store and cache hold. Temp files
//! a kill left behind are counted (none is a name the store loads) and
//! must be gone after the next commands.

mod files;
mod home;
mod writes;

pub use home::{check_home, events_of};

use crate::common::{Env, Run};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Runs per operation without `CRASH_RUNS`.
const DEFAULT_RUNS: usize = 10;
/// The seed without `CRASH_SEED`.
const DEFAULT_SEED: u64 = 0x5eed_c4a5_0015;
/// A run that neither finishes nor is killed by then is a hang.
const HANG: Duration = Duration::from_secs(120);
/// The example plugin's type (it names the handler).
pub const PACKAGE_TYPE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/plugins/examples/python-package/python-package.yaml"
);
/// The store's write-lock key (`src/store/mod.rs`), for the probe on
/// PostgreSQL.
const WRITE_LOCK: u32 = 0x6167_6e74;

/// A seeded splitmix64: every kill point follows from the seed printed.
pub struct Rng(u64);

impl Rng {
    /// The generator of `operation`'s runs.
    fn new(operation: &str) -> Self {
        let seed = seed();
        let mixed = operation.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Self(mixed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn up_to(&mut self, span: Duration) -> Duration {
        Duration::from_micros(self.below(span.as_micros() as u64 + 1))
    }
}

fn seed() -> u64 {
    std::env::var("CRASH_SEED")
        .ok()
        .map(|s| s.trim_start_matches("0x").to_owned())
        .map_or(DEFAULT_SEED, |s| {
            u64::from_str_radix(&s, 16).expect("CRASH_SEED is hex")
        })
}

fn runs() -> usize {
    std::env::var("CRASH_RUNS")
        .ok()
        .map_or(DEFAULT_RUNS, |s| s.parse().expect("CRASH_RUNS is a number"))
        .max(2)
}

/// Says whether the command under test has begun writing.
pub type Probe<'a> = dyn FnMut() -> bool + 'a;

/// How a run ended.
#[derive(Debug)]
pub enum Ending {
    /// Killed before the probe saw it write.
    KilledEarly,
    /// Killed after it began writing.
    KilledWriting,
    /// It finished first (its run).
    Finished(Run),
}

impl Ending {
    pub fn finished(&self) -> bool {
        matches!(self, Ending::Finished(_))
    }
}

/// Runs one operation many times, killing it, and keeps the figures.
pub struct Crasher {
    operation: &'static str,
    rng: Rng,
    runs: usize,
    done: usize,
    /// How long a whole run takes, and how long it goes on once it began
    /// writing (the shortest seen in runs that finished; kills land in the
    /// first nine tenths, so most come before the end on a busy machine).
    span: Option<Duration>,
    writing_for: Option<Duration>,
    early: usize,
    writing: usize,
    finished: usize,
    failures: Vec<String>,
    temp_files: usize,
}

impl Crasher {
    pub fn new(operation: &'static str) -> Self {
        Self {
            operation,
            rng: Rng::new(operation),
            runs: runs(),
            done: 0,
            span: None,
            writing_for: None,
            early: 0,
            writing: 0,
            finished: 0,
            failures: Vec::new(),
            temp_files: 0,
        }
    }

    /// Whether another run is due.
    pub fn more(&self) -> bool {
        self.done < self.runs
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// Run `agents ARGS` in `env` and kill it as the module doc says;
    /// `probe` tells when it has begun writing.
    pub fn run(&mut self, env: &Env, args: &[&str], probe: &mut Probe<'_>) -> Ending {
        let n = self.done;
        self.done += 1;
        let plan = match (n, self.span) {
            (0, _) | (_, None) => None,
            (n, Some(span)) if n % 2 == 1 => Some(Kill::After(self.rng.up_to(span * 9 / 10))),
            (_, Some(span)) => {
                let rest = self.writing_for.unwrap_or(span);
                Some(Kill::Writing(self.rng.up_to(rest * 9 / 10)))
            }
        };
        let out = env.path(".crash-run.out");
        let err = env.path(".crash-run.err");
        let mut child = env
            .command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let mut wrote = None;
        let killed = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code().is_none();
            }
            let now = start.elapsed();
            if wrote.is_none() && probe() {
                wrote = Some(now);
            }
            let due = match plan {
                None => false,
                Some(Kill::After(at)) => now >= at,
                Some(Kill::Writing(after)) => wrote.is_some_and(|w| now >= w + after),
            };
            if due {
                break kill(&mut child).code().is_none();
            }
            assert!(now < HANG, "{args:?} hangs");
            std::thread::sleep(Duration::from_micros(200));
        };
        let elapsed = start.elapsed();
        if killed {
            return if wrote.is_some() {
                self.writing += 1;
                Ending::KilledWriting
            } else {
                self.early += 1;
                Ending::KilledEarly
            };
        }
        self.finished += 1;
        let shortest = |old: Option<Duration>, new| Some(old.map_or(new, |o: Duration| o.min(new)));
        self.span = shortest(self.span, elapsed);
        if let Some(w) = wrote {
            self.writing_for = shortest(self.writing_for, elapsed - w);
        }
        let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
        let run = Run {
            code: child.wait().unwrap().code().unwrap_or(-1),
            stdout: read(&out),
            stderr: read(&err),
        };
        Ending::Finished(run)
    }

    /// Run the checks after a run; a failing one is counted (with its
    /// message) and the runs go on.
    pub fn check(&mut self, ending: &Ending, checks: impl FnOnce() -> usize) {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Ending::Finished(run) = ending {
                run.ok();
            }
            checks()
        }));
        match outcome {
            Ok(temp_files) => self.temp_files += temp_files,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                self.failures
                    .push(format!("run {} ({ending:?}): {message}", self.done));
            }
        }
    }

    /// Print the figures (past the harness's capture) and fail if any run
    /// failed its checks.
    pub fn report(self) {
        let line = format!(
            "crash {} ({}, seed {:#x}): {} runs — {} killed before writing, {} killed after \
             it began writing, {} finished; {} failures; temp files left by kills: {} (each \
             gone after the next command)",
            self.operation,
            crate::common::backend(),
            seed(),
            self.done,
            self.early,
            self.writing,
            self.finished,
            self.failures.len(),
            self.temp_files,
        );
        let _ = writeln!(std::io::stderr(), "{line}");
        assert!(
            self.failures.is_empty(),
            "{line}\n{}",
            self.failures.join("\n")
        );
    }
}

#[derive(Debug, Clone, Copy)]
enum Kill {
    /// This long after the start.
    After(Duration),
    /// This long after the probe saw the first write.
    Writing(Duration),
}

/// SIGKILL, and reap: how it ended (it may have exited just before).
fn kill(child: &mut Child) -> std::process::ExitStatus {
    let _ = child.kill();
    child.wait().unwrap()
}

/// A probe that fires once the registry is being written: SQLite's
/// write-ahead log grows or is rewritten; on PostgreSQL, someone holds
/// this schema's write lock.
pub fn registry_probe(env: &Env) -> Box<Probe<'_>> {
    match &env.postgres {
        Some(schema) => {
            let mut client = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
            let sql = format!(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted \
                 AND classid = {WRITE_LOCK} AND objid = hashtext(current_schema())::oid \
                 AND objsubid = 2)"
            );
            // At most one query a millisecond: the server shares the
            // machine with the run it watches.
            let mut last: Option<Instant> = None;
            Box::new(move || {
                if last.is_some_and(|at| at.elapsed() < Duration::from_millis(1)) {
                    return false;
                }
                last = Some(Instant::now());
                client.query_one(&sql, &[]).unwrap().get(0)
            })
        }
        None => {
            let wal = PathBuf::from(format!("{}-wal", env.db().display()));
            let look = move || {
                std::fs::metadata(&wal)
                    .ok()
                    .map(|m| (m.len(), m.mtime(), m.mtime_nsec()))
            };
            let before = look();
            Box::new(move || {
                let now = look();
                now.is_some_and(|(len, ..)| len > 0) && now != before
            })
        }
    }
}

/// A probe that fires once a name under one of `dirs` appears that was
/// not there when the probe was made.
pub fn new_file_probe(dirs: Vec<PathBuf>) -> Box<Probe<'static>> {
    let names = move || -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = dirs
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flat_map(|entries| entries.map(|e| e.unwrap().path()))
            .collect();
        all.sort();
        all
    };
    let before = names();
    Box::new(move || names().iter().any(|n| !before.contains(n)))
}
