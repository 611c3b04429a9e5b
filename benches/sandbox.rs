//! Sandbox benchmarks, each against a baseline measured in the
//! same run. Run: `cargo bench --bench sandbox`.
//!
//! The fixture (`sandbox/fixture.rs`): 10,000 files in 100 directories,
//! ~200 MB (mostly small files, 40 of 1–5 MiB, pseudo-random bytes), six
//! symlinks; built once per run of the bench, under a temp dir that also
//! holds every copy and sandbox area, so all sit on one filesystem (set
//! `TMPDIR` to measure another one). The header says which filesystem and
//! whether it can clone files (`cp --reflink=always`).
//!
//! 1. `cow`: `CopyOnWrite::create` vs `cp -a fixture dst` (goal ≤ 1.0×);
//!    `checkpoint` of the fresh sandbox; a small change (10 files
//!    rewritten, 5 added, 5 deleted), its `checkpoint`, and the `rollback`
//!    to the fresh checkpoint vs the full copy (goal "≪", taken here as
//!    ≤ 0.1×, an order of magnitude); `destroy` vs `rm -rf` of the copy.
//! 2. `git`: a repository holding the fixture in one commit (loose
//!    objects, as committed). `GitWorktree::create` vs
//!    `git worktree add --detach DIR HEAD` by hand (goal ≤ 1.5×); the same
//!    checkpoints and rollback as above; `destroy` vs
//!    `git worktree remove --force` by hand.
//!
//! 3. `settle`: `copy_on_write`'s checkpoints and rollbacks when the first
//!    checkpoint comes 2.1 s after `create` vs at once, when every file is
//!    racily clean (`sandbox/settle.rs`).
//!
//! `BENCH_RUNS` (default 5): each figure is the median of that many runs.
//! `BENCH_ONLY=cow|git|settle` runs one part.
//!
//! Method: wall time. In every run the baseline and the sandbox take turns
//! going first. The page cache cannot be dropped (that needs privileges
//! the bench does not have, and would disturb everyone else on the
//! machine), so the fixture is warm for baseline and sandbox alike. A
//! `sync` (untimed) precedes every timed operation, so that none pays for
//! an earlier one's writeback. Figures, not asserts — except that a
//! rollback must have undone the change.

// A bench target is a crate root: its modules live beside it, in
// `benches/sandbox/`, so that no file there is taken for a bench.
#[path = "sandbox/fixture.rs"]
mod fixture;
#[path = "sandbox/settle.rs"]
mod settle;
#[path = "sandbox/table.rs"]
mod table;

use resource_host::sandbox::{CopyOnWrite, GitWorktree, Strategy};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use table::{Goal, Line, Row, Samples, ms, print_part, print_summary};

fn main() {
    let runs = match std::env::var("BENCH_RUNS") {
        Err(_) => 5,
        Ok(text) => match text.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => refuse(&format!(
                "BENCH_RUNS={text:?} is not a positive number of runs"
            )),
        },
    };
    let (cow, git, settle) = match std::env::var("BENCH_ONLY").ok().as_deref() {
        None | Some("") => (true, true, true),
        Some("cow") => (true, false, false),
        Some("git") => (false, true, false),
        Some("settle") => (false, false, true),
        Some(other) => refuse(&format!(
            "BENCH_ONLY={other:?} is not a part; use cow, git or settle, or leave it unset for all"
        )),
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let tmp = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
    println!("# sandbox benchmarks, median of {runs} runs\n");
    println!("* temp dir: {}", tmp.display());
    println!(
        "* filesystem (type, device, mount): {}",
        fixture::filesystem(&tmp)
    );
    match fixture::reflinks(&tmp) {
        Ok(()) => println!(
            "* reflinks: yes (`cp --reflink=always` clones here): `CopyOnWrite` clones files, and so does `cp -a` (GNU cp ≥ 9 defaults to `--reflink=auto`)"
        ),
        Err(why) => println!(
            "* reflinks: no (`cp --reflink=always`: {why}): `CopyOnWrite` and `cp -a` both copy bytes"
        ),
    }
    println!("* {}; {}", fixture::version("cp"), fixture::version("git"));
    println!(
        "* page cache: not dropped (not permitted here); the fixture is warm for every run; `sync` before each timed operation\n"
    );
    let mut summary = Vec::new();
    if cow {
        copy_on_write(&tmp, runs, &mut summary);
    }
    if git {
        git_worktree(&tmp, runs, &mut summary);
    }
    if settle {
        settle::run(&tmp, runs);
    }
    if !summary.is_empty() {
        print_summary(&summary);
    }
}

fn refuse(why: &str) -> ! {
    eprintln!("sandbox bench: {why}");
    std::process::exit(2)
}

// ---------------------------------------------------------------------
// Timing

/// Wall time of `f`, after a `sync` (untimed) so that an earlier
/// operation's dirty pages are not written back on this one's clock.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    rustix::fs::sync();
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

/// Every timing of one part: the baseline made and undone by hand, and
/// the sandbox's operations.
#[derive(Debug, Default)]
struct Times {
    by_hand: Samples,
    by_hand_undo: Samples,
    create: Samples,
    checkpoint_fresh: Samples,
    checkpoint_change: Samples,
    rollback: Samples,
    destroy: Samples,
}

/// `runs` rounds of: the baseline (`by_hand` makes a copy at a path that
/// does not exist, `undo` removes it) and one sandbox's life (create,
/// checkpoint, small change, checkpoint, rollback, destroy), taking turns
/// at going first.
fn measure(
    runs: usize,
    strategy: &impl Strategy,
    original: &Path,
    areas: &Path,
    by_hand: impl Fn(&Path),
    undo: impl Fn(&Path),
) -> Times {
    let mut t = Times::default();
    for run in 0..runs {
        for turn in 0..2 {
            if (run + turn) % 2 == 0 {
                let copy = areas.join(format!("by-hand-{run}"));
                t.by_hand.0.push(timed(|| by_hand(&copy)).1);
                t.by_hand_undo.0.push(timed(|| undo(&copy)).1);
            } else {
                let area = areas.join(format!("sandbox-{run}"));
                std::fs::create_dir(&area).expect("sandbox area");
                let (place, took) = timed(|| strategy.create(original, &area).expect("create"));
                t.create.0.push(took);
                let (fresh, took) =
                    timed(|| strategy.checkpoint(&place, "fresh").expect("checkpoint"));
                t.checkpoint_fresh.0.push(took);
                fixture::small_change(&place.workdir);
                let (_, took) =
                    timed(|| strategy.checkpoint(&place, "changed").expect("checkpoint"));
                t.checkpoint_change.0.push(took);
                let ((), took) = timed(|| strategy.rollback(&place, &fresh).expect("rollback"));
                t.rollback.0.push(took);
                fixture::assert_undone(&place.workdir, original);
                let ((), took) = timed(|| strategy.destroy(&place).expect("destroy"));
                t.destroy.0.push(took);
            }
        }
        eprintln!(
            "  run {}/{runs}: by hand {} / create {} / rollback {}",
            run + 1,
            ms(*t.by_hand.0.last().expect("a run")),
            ms(*t.create.0.last().expect("a run")),
            ms(*t.rollback.0.last().expect("a run")),
        );
    }
    t
}

/// Runs a command to success, its output discarded (stderr shown on failure).
fn run(mut cmd: Command) {
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .expect("run a command");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------
// The parts

fn print_fixture(what: &str, stats: &fixture::Stats, took: Duration) {
    println!(
        "{what}: {} files ({} of them 1–5 MiB) in {} directories, {} symlinks, {:.1} MB ({:.1} MiB), written in {}\n",
        stats.files,
        stats.large,
        stats.dirs,
        stats.symlinks,
        stats.bytes as f64 / 1e6,
        stats.bytes as f64 / (1 << 20) as f64,
        ms(took)
    );
}

fn copy_on_write(tmp: &Path, runs: usize, summary: &mut Vec<Row>) {
    println!("## 1. copy_on_write\n");
    let original = tmp.join("fixture");
    let (stats, took) = timed(|| fixture::make(&original));
    print_fixture("fixture", &stats, took);
    let areas = tmp.join("cow");
    std::fs::create_dir(&areas).expect("areas");
    let t = measure(
        runs,
        &CopyOnWrite,
        &original,
        &areas,
        |copy| {
            let mut cmd = Command::new("cp");
            cmd.arg("-a").arg(&original).arg(copy);
            run(cmd);
        },
        |copy| {
            let mut cmd = Command::new("rm");
            cmd.arg("-rf").arg(copy);
            run(cmd);
        },
    );
    let cp = ("`cp -a`", &t.by_hand);
    let lines = [
        Line::new(
            "`cp -a fixture dst` (baseline)",
            &t.by_hand,
            None,
            Goal::None,
        ),
        Line::new("`rm -rf dst` (baseline)", &t.by_hand_undo, None, Goal::None),
        Line::new(
            "`CopyOnWrite` create",
            &t.create,
            Some(cp),
            Goal::AtMost(1.0),
        ),
        Line::new(
            "`CopyOnWrite` checkpoint, fresh sandbox",
            &t.checkpoint_fresh,
            Some(cp),
            Goal::None,
        ),
        Line::new(
            "`CopyOnWrite` checkpoint, small change",
            &t.checkpoint_change,
            Some(cp),
            Goal::None,
        ),
        Line::new(
            "`CopyOnWrite` rollback of the small change",
            &t.rollback,
            Some(cp),
            Goal::MuchLess,
        ),
        Line::new(
            "`CopyOnWrite` destroy (working copy and 2 checkpoints: 3 trees)",
            &t.destroy,
            Some(("`rm -rf`", &t.by_hand_undo)),
            Goal::None,
        ),
    ];
    print_part(&lines, summary);
}

/// `git -C dir` in a hermetic environment: no system config, `HOME` a
/// directory of the bench's own, an identity given on the command line.
fn git(home: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(["-c", "init.defaultBranch=main"])
        .arg("-C")
        .arg(dir);
    cmd
}

fn git_worktree(tmp: &Path, runs: usize, summary: &mut Vec<Row>) {
    println!("## 2. git_worktree\n");
    let home = tmp.join("git-home");
    std::fs::create_dir(&home).expect("git home");
    let repo = tmp.join("repo");
    let (stats, took) = timed(|| fixture::make(&repo));
    print_fixture("repository work tree (the same fixture)", &stats, took);
    let ((), took) = timed(|| {
        for args in [
            &["init", "-q"][..],
            &["add", "-A"],
            &["commit", "-q", "-m", "fixture"],
        ] {
            let mut cmd = git(&home, &repo);
            cmd.args(args);
            run(cmd);
        }
    });
    println!(
        "`git init` + `git add -A` + `git commit` of it: {} (one commit, loose objects)\n",
        ms(took)
    );
    let areas = tmp.join("git");
    std::fs::create_dir(&areas).expect("areas");
    let t = measure(
        runs,
        &GitWorktree::default(),
        &repo,
        &areas,
        |copy| {
            let mut cmd = git(&home, &repo);
            cmd.args(["worktree", "add", "--detach"])
                .arg(copy)
                .arg("HEAD");
            run(cmd);
        },
        |copy| {
            let mut cmd = git(&home, &repo);
            cmd.args(["worktree", "remove", "--force"]).arg(copy);
            run(cmd);
        },
    );
    let add = ("`git worktree add`", &t.by_hand);
    let lines = [
        Line::new(
            "`git worktree add --detach DIR HEAD` (baseline)",
            &t.by_hand,
            None,
            Goal::None,
        ),
        Line::new(
            "`git worktree remove --force DIR` (baseline)",
            &t.by_hand_undo,
            None,
            Goal::None,
        ),
        Line::new(
            "`GitWorktree` create",
            &t.create,
            Some(add),
            Goal::AtMost(1.5),
        ),
        Line::new(
            "`GitWorktree` checkpoint, fresh sandbox",
            &t.checkpoint_fresh,
            Some(add),
            Goal::None,
        ),
        Line::new(
            "`GitWorktree` checkpoint, small change",
            &t.checkpoint_change,
            Some(add),
            Goal::None,
        ),
        Line::new(
            "`GitWorktree` rollback of the small change",
            &t.rollback,
            Some(add),
            Goal::None,
        ),
        Line::new(
            "`GitWorktree` destroy (worktree and 2 checkpoint refs)",
            &t.destroy,
            Some(("`git worktree remove`", &t.by_hand_undo)),
            Goal::None,
        ),
    ];
    print_part(&lines, summary);
}
