//! Deep git discovery, each figure against git answering the same
//! questions in one process, in the same run. Run: `cargo bench --bench
//! deep_discovery` (`BENCH_ONLY=levels|tree` runs one part,
//! `BENCH_RUNS=N` runs each, `BENCH_AGENTS_BEFORE=/path/to/other/agents`
//! adds another build's figures to the same run, interleaved).
//!
//! The repository (made with `git fast-import`, packed): a chain of
//! 1,000 commits on `main` whose tree holds 10,000 files in 100
//! directories, and 1,000 branches, one at each commit.
//!
//! 1. **levels**: on a home with the checkout registered (two levels,
//!    untimed), whole process: `agents resource discover --depth 2
//!    local/repo/git` (every branch's head commit) vs one `git cat-file
//!    --batch` reading those 1,000 commits; then, on the same home,
//!    `--depth 3` (and their root trees) vs one `cat-file --batch`
//!    reading the 1,000 root trees.
//! 2. **tree**: `agents resource discover --recursive
//!    local/repo/git/branch/main` (its commit, and the 10,000-entry tree
//!    below it) vs `git ls-tree -r main`.
//!
//! Runs are interleaved (ours, git's, ours, …) so that drift in the
//! machine's speed touches both alike; medians. Figures, not asserts.

mod support;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{median, timed_agents as agents};

const COMMITS: usize = 1_000;
const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tmp = std::fs::canonicalize(dir.path()).expect("canonical dir");
    let only = std::env::var("BENCH_ONLY").ok();
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let repo = tmp.join("repo");
    let started = Instant::now();
    make_repo(&repo);
    eprintln!("made the repository in {:.1?}", started.elapsed());
    let mut programs = vec![("ours", PathBuf::from(env!("CARGO_BIN_EXE_agents")))];
    if let Some(before) = std::env::var_os("BENCH_AGENTS_BEFORE") {
        programs.push(("before", PathBuf::from(before)));
    }
    let bench = Bench {
        tmp: tmp.clone(),
        repo,
        xdg: tmp.join("xdg"),
        programs,
    };
    println!("# deep git discovery, median of {runs}\n");
    if run("levels") {
        bench.levels(runs);
    }
    if run("tree") {
        bench.tree(runs);
    }
}

struct Bench {
    tmp: PathBuf,
    repo: PathBuf,
    xdg: PathBuf,
    /// The builds timed: ours, and `BENCH_AGENTS_BEFORE`'s.
    programs: Vec<(&'static str, PathBuf)>,
}

impl Bench {
    /// A fresh home under the bench's directory with the checkout
    /// registered (untimed).
    fn home(&self, program: &Path, label: &str) -> PathBuf {
        let home = self.tmp.join(format!("home-{label}"));
        std::fs::remove_dir_all(&home).ok();
        let path = self.repo.to_str().expect("utf-8");
        agents(
            program,
            &home,
            &self.xdg,
            &[
                "resource",
                "add",
                "git-checkout",
                "local/repo",
                "--path",
                path,
            ],
        );
        home
    }

    fn levels(&self, runs: usize) {
        let heads = git(
            &self.repo,
            &[
                "for-each-ref",
                "--format=%(objectname)",
                "refs/heads/topic/",
            ],
        );
        let commits: String = heads.lines().map(|id| format!("{id}\n")).collect();
        let trees: String = heads.lines().map(|id| format!("{id}^{{tree}}\n")).collect();
        let mut depth2: Vec<Vec<Duration>> = vec![Vec::new(); self.programs.len()];
        let mut depth3: Vec<Vec<Duration>> = vec![Vec::new(); self.programs.len()];
        let (mut git_commits, mut git_trees) = (Vec::new(), Vec::new());
        // Warm: the shared compile cache, git's caches.
        self.home(&self.programs[0].1, "warm");
        cat_file(&self.repo, &commits);
        for _ in 0..runs {
            for (i, (label, program)) in self.programs.iter().enumerate() {
                let home = self.home(program, label);
                let discover = |depth: &str| {
                    agents(
                        program,
                        &home,
                        &self.xdg,
                        &["resource", "discover", "--depth", depth, "local/repo/git"],
                    )
                };
                depth2[i].push(discover("2"));
                depth3[i].push(discover("3"));
            }
            git_commits.push(cat_file(&self.repo, &commits));
            git_trees.push(cat_file(&self.repo, &trees));
        }
        let (git_commits, git_trees) = (median(git_commits), median(git_trees));
        println!("## {COMMITS} branches' head commits and root trees\n");
        println!("| what | time | ratio to git |\n|---|---|---|");
        for (i, (label, _)) in self.programs.iter().enumerate() {
            let (d2, d3) = (median(depth2[i].clone()), median(depth3[i].clone()));
            println!(
                "| {label}: `discover --depth 2 …/git` (head commits) | {} | {:.1}× |",
                ms(d2),
                ratio(d2, git_commits)
            );
            println!(
                "| {label}: then `discover --depth 3 …/git` (and root trees) | {} | {:.1}× |",
                ms(d3),
                ratio(d3, git_trees)
            );
        }
        println!(
            "| git: one `cat-file --batch` reading the {COMMITS} commits | {} | |",
            ms(git_commits)
        );
        println!(
            "| git: one `cat-file --batch` reading the {COMMITS} root trees | {} | |\n",
            ms(git_trees)
        );
    }

    fn tree(&self, runs: usize) {
        let mut ours: Vec<Vec<Duration>> = vec![Vec::new(); self.programs.len()];
        let mut theirs = Vec::new();
        let ls_tree = || {
            let start = Instant::now();
            std::hint::black_box(git(&self.repo, &["ls-tree", "-r", "main"]));
            start.elapsed()
        };
        ls_tree();
        let entries = git(&self.repo, &["ls-tree", "-r", "-t", "main"])
            .lines()
            .count();
        for _ in 0..runs {
            for (i, (label, program)) in self.programs.iter().enumerate() {
                let home = self.home(program, label);
                ours[i].push(agents(
                    program,
                    &home,
                    &self.xdg,
                    &[
                        "resource",
                        "discover",
                        "--recursive",
                        "local/repo/git/branch/main",
                    ],
                ));
            }
            theirs.push(ls_tree());
        }
        let theirs = median(theirs);
        println!("## one branch's tree: {entries} entries\n");
        println!("| what | time | ratio to git |\n|---|---|---|");
        for (i, (label, _)) in self.programs.iter().enumerate() {
            let t = median(ours[i].clone());
            println!(
                "| {label}: `discover --recursive …/branch/main` | {} | {:.1}× |",
                ms(t),
                ratio(t, theirs)
            );
        }
        println!("| git: `ls-tree -r main` | {} | |\n", ms(theirs));
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn git_cmd(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
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

/// One `git cat-file --batch` answering `names` (a line each), timed.
fn cat_file(dir: &Path, names: &str) -> Duration {
    let start = Instant::now();
    let mut child = git_cmd(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("git cat-file");
    let mut stdin = child.stdin.take().expect("stdin");
    let names = names.to_owned();
    let feeding = std::thread::spawn(move || stdin.write_all(names.as_bytes()));
    let out = child.wait_with_output().expect("cat-file");
    feeding.join().expect("feed").expect("write");
    assert!(out.status.success() && !out.stdout.is_empty());
    std::hint::black_box(out.stdout);
    start.elapsed()
}

/// The repository: `COMMITS` commits on `main`, the first adding
/// `DIRS` × `FILES_PER_DIR` files, each later one changing one; a branch
/// `topic/bNNNN` at each commit; checked out and packed.
fn make_repo(dir: &Path) {
    std::fs::create_dir_all(dir).expect("repo dir");
    git(dir, &["-c", "init.defaultBranch=main", "init", "-q"]);
    let files = DIRS * FILES_PER_DIR;
    let path = |f: usize| format!("d{:03}/f{:05}.txt", f / FILES_PER_DIR, f);
    let mut s = String::new();
    for c in 1..=COMMITS {
        let _ = writeln!(s, "commit refs/heads/main\nmark :{c}");
        let _ = writeln!(s, "author a <a@example.com> {} +0000", 1_600_000_000 + c);
        let _ = writeln!(s, "committer a <a@example.com> {} +0000", 1_600_000_000 + c);
        let msg = format!("commit {c}");
        let _ = writeln!(s, "data {}\n{msg}", msg.len());
        let changed: Vec<usize> = if c == 1 {
            (0..files).collect()
        } else {
            vec![c % files]
        };
        for f in changed {
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
    for c in 1..=COMMITS {
        let _ = writeln!(s, "reset refs/heads/topic/b{c:04}\nfrom :{c}\n");
    }
    s.push_str("done\n");
    let mut child = git_cmd(dir)
        .args(["fast-import", "--quiet", "--done"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(s.as_bytes())
        .expect("stream");
    assert!(child.wait().expect("fast-import").success());
    git(dir, &["checkout", "-q", "-f", "main"]);
    git(dir, &["repack", "-adq"]);
    git(dir, &["pack-refs", "--all"]);
}
