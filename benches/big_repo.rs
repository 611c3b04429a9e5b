//! Registering a big repository, each figure against git's own plumbing on
//! it in the same run. Run: `cargo bench --bench big_repo`
//! (`BENCH_ONLY=big|refs` runs one part, `BENCH_RUNS=N` fewer runs,
//! `BENCH_KEEP=DIR` makes the repositories in DIR and reuses them there,
//! `BENCH_AGENTS_BEFORE=/path/to/other/agents` adds another build's
//! figure to the same run, interleaved).
//!
//! 1. **big**: a repository shaped like git/git, made locally with
//!    `git fast-import` (there is no network): 80,000 commits, a work tree
//!    of 4,000 files in 40 directories, 3,000 branches, 1,000 annotated
//!    tags and 300 remote-tracking branches (4,300 refs), packed as a clone
//!    is. Whole process, warm compile cache, a fresh home each run:
//!    `agents resource add git-checkout` vs `git for-each-ref` +
//!    `git remote -v` + `git stash list` + `git status --porcelain`.
//! 2. **refs**: a small history with 50,000 refs (40,000 branches, 5,000
//!    lightweight and 5,000 annotated tags), the same two measured.
//!
//! Runs are interleaved (ours, baseline, ours, …) so that drift in the
//! machine's speed touches both alike. Figures, not asserts.

mod support;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{median, timed_agents as agents};

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let keep = std::env::var_os("BENCH_KEEP").map(std::path::PathBuf::from);
    if let Some(keep) = &keep {
        std::fs::create_dir_all(keep).expect("BENCH_KEEP dir");
    }
    let tmp = std::fs::canonicalize(keep.as_deref().unwrap_or(dir.path())).expect("canonical dir");
    let made = |repo: &Path| repo.join(".git").is_dir();
    let only = std::env::var("BENCH_ONLY").ok();
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    println!("# registering a big repository\n");
    if run("big") {
        let repo = tmp.join("big");
        let started = Instant::now();
        if !made(&repo) {
            big_repo(&repo, 80_000, 4_000, 3_000, 1_000, 300);
        }
        eprintln!("made the big repository in {:.1?}", started.elapsed());
        compare(&tmp, &repo, "big", runs);
    }
    if run("refs") {
        let repo = tmp.join("refs");
        let started = Instant::now();
        if !made(&repo) {
            big_repo(&repo, 10, 20, 40_000, 5_000, 0);
            add_light_tags(&repo, 5_000);
        }
        eprintln!(
            "made the 50,000-ref repository in {:.1?}",
            started.elapsed()
        );
        compare(&tmp, &repo, "refs", runs.min(3));
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn git_cmd(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_cmd(dir).args(args).output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Feed `stream` to `git fast-import` in `dir`.
fn fast_import(dir: &Path, stream: &[u8]) {
    let mut child = git_cmd(dir)
        .args(["fast-import", "--quiet", "--done"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream)
        .expect("stream");
    assert!(child.wait().expect("fast-import").success());
}

/// A repository at `dir` with `commits` commits on `main` (the first adds
/// `files` files in directories of 100, each later one changes one file),
/// `branches` branches and `tags` annotated tags spread over the history,
/// `remotes` remote-tracking branches; checked out and packed.
fn big_repo(
    dir: &Path,
    commits: usize,
    files: usize,
    branches: usize,
    tags: usize,
    remotes: usize,
) {
    std::fs::create_dir_all(dir).expect("repo dir");
    git(dir, &["-c", "init.defaultBranch=main", "init", "-q"]);
    let mut s = String::new();
    let path = |f: usize| format!("d{:02}/f{:04}.txt", f / 100, f);
    for c in 1..=commits {
        let _ = writeln!(s, "commit refs/heads/main\nmark :{c}");
        let _ = writeln!(s, "committer b <b@example.com> {} +0000", 1_600_000_000 + c);
        let msg = format!("commit {c}");
        let _ = writeln!(s, "data {}\n{msg}", msg.len());
        if c == 1 {
            for f in 0..files {
                let body = format!("file {f}\n");
                let _ = writeln!(
                    s,
                    "M 100644 inline {}\ndata {}\n{body}",
                    path(f),
                    body.len()
                );
            }
        } else {
            let f = c % files;
            let body = format!("file {f} at {c}\n");
            let _ = writeln!(
                s,
                "M 100644 inline {}\ndata {}\n{body}",
                path(f),
                body.len()
            );
        }
        s.push('\n');
    }
    let at = |i: usize, n: usize| 1 + i * commits / n.max(1);
    for b in 0..branches {
        let _ = writeln!(
            s,
            "reset refs/heads/topic/b{b:05}\nfrom :{}\n",
            at(b, branches)
        );
    }
    for r in 0..remotes {
        let _ = writeln!(
            s,
            "reset refs/remotes/origin/r{r:04}\nfrom :{}\n",
            at(r, remotes)
        );
    }
    for t in 0..tags {
        let msg = format!("release {t}");
        let _ = writeln!(
            s,
            "tag v{t:05}\nfrom :{}\ntagger b <b@example.com> 1700000000 +0000\ndata {}\n{msg}",
            at(t, tags),
            msg.len()
        );
    }
    s.push_str("done\n");
    fast_import(dir, s.as_bytes());
    git(
        dir,
        &["remote", "add", "origin", "https://example.com/big.git"],
    );
    git(dir, &["checkout", "-q", "-f", "main"]);
    git(dir, &["pack-refs", "--all"]);
}

/// `n` lightweight tags on HEAD.
fn add_light_tags(dir: &Path, n: usize) {
    let head = git(dir, &["rev-parse", "HEAD"]);
    let mut batch = String::new();
    for i in 0..n {
        let _ = writeln!(batch, "create refs/tags/light-{i:05} {}", head.trim());
    }
    let mut child = git_cmd(dir)
        .args(["update-ref", "--stdin"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("update-ref");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(batch.as_bytes())
        .expect("batch");
    assert!(child.wait().expect("update-ref").success());
    git(dir, &["pack-refs", "--all"]);
}

fn compare(tmp: &Path, repo: &Path, label: &str, runs: usize) {
    let count = git(repo, &["for-each-ref"]).lines().count();
    let xdg = tmp.join(format!("{label}-xdg"));
    let path = repo.to_str().expect("utf-8");
    let ours_program = Path::new(env!("CARGO_BIN_EXE_agents")).to_owned();
    let before = std::env::var_os("BENCH_AGENTS_BEFORE").map(std::path::PathBuf::from);
    let add_with = |program: &Path, i: usize| {
        let home = tmp.join(format!("{label}-home-{i}"));
        let took = agents(
            program,
            &home,
            &xdg,
            &[
                "resource",
                "add",
                "git-checkout",
                "local/repo",
                "--path",
                path,
            ],
        );
        std::fs::remove_dir_all(&home).ok();
        took
    };
    let add = |i: usize| add_with(&ours_program, i);
    let plumbing = || {
        let start = Instant::now();
        for args in [
            &["for-each-ref"][..],
            &["remote", "-v"][..],
            &["stash", "list"][..],
            &["status", "--porcelain"][..],
        ] {
            std::hint::black_box(git(repo, args));
        }
        start.elapsed()
    };
    // Warm: the shared cache gets the components, git its caches.
    add(999);
    plumbing();
    let (mut ours, mut theirs, mut old) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        ours.push(add(i));
        theirs.push(plumbing());
        if let Some(program) = &before {
            old.push(add_with(program, i));
        }
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!("## {label}: {count} refs, median of {runs}\n");
    println!("| path | time |\n|---|---|");
    println!(
        "| `agents resource add git-checkout` (fresh home, warm shared cache) | {} |",
        ms(ours)
    );
    println!(
        "| `git for-each-ref` + `remote -v` + `stash list` + `status --porcelain` | {} |",
        ms(theirs)
    );
    if !old.is_empty() {
        let old = median(old);
        println!(
            "| the same with `BENCH_AGENTS_BEFORE` | {} ({:.2}× git's) |",
            ms(old),
            old.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    println!(
        "\nratio: {:.2}×\n",
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}
