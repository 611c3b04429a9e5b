//! gix vs the git CLI on what registering a checkout asks of git: every
//! ref with its target and peeled target, the remotes' URLs and the
//! stash list, on a repository of 1,302 refs — packed (as in a clone)
//! and loose (as just made). Median of 21 runs, interleaved.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 21;

fn git(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// 1,000 branches, 100 light and 100 annotated tags, 100 remote-tracking
/// branches, two remotes, a stash.
fn make_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"], None);
    for i in 0..3 {
        std::fs::write(dir.join("README.md"), format!("# {i}\n")).unwrap();
        git(dir, &["add", "-A"], None);
        git(dir, &["commit", "-q", "-m", &format!("c{i}")], None);
    }
    let head = git(dir, &["rev-parse", "HEAD"], None);
    let head = head.trim();
    let mut batch = String::new();
    for i in 0..1000 {
        batch.push_str(&format!("create refs/heads/topic/b{i:04} {head}\n"));
    }
    for i in 0..100 {
        batch.push_str(&format!("create refs/tags/light-{i:03} {head}\n"));
        batch.push_str(&format!("create refs/remotes/origin/r{i:03} {head}\n"));
        let tag = format!(
            "object {head}\ntype commit\ntag rel-{i:03}\ntagger b <b@example.com> 1700000000 +0000\n\nrelease {i}\n"
        );
        let id = git(dir, &["mktag"], Some(&tag));
        batch.push_str(&format!("create refs/tags/rel-{i:03} {}\n", id.trim()));
    }
    git(dir, &["update-ref", "--stdin"], Some(&batch));
    git(
        dir,
        &["remote", "add", "origin", "https://example.com/a.git"],
        None,
    );
    git(
        dir,
        &["remote", "add", "upstream", "https://example.com/b.git"],
        None,
    );
    std::fs::write(dir.join("README.md"), "changed\n").unwrap();
    git(dir, &["stash", "-q"], None);
}

fn with_gix(path: &Path) -> usize {
    let repo = gix::open(path).unwrap();
    let mut count = 0;
    for r in repo.references().unwrap().all().unwrap() {
        let mut r = r.unwrap();
        std::hint::black_box(r.name().as_bstr().to_string());
        std::hint::black_box(r.target().try_id().map(|id| id.to_string()));
        std::hint::black_box(r.peel_to_id().ok().map(|id| id.to_string()));
        count += 1;
    }
    let config = repo.config_snapshot();
    for name in repo.remote_names() {
        std::hint::black_box(config.string(format!("remote.{name}.url").as_str()));
    }
    if let Ok(Some(stash)) = repo.try_find_reference("refs/stash") {
        let mut log = stash.log_iter();
        if let Ok(Some(entries)) = log.all() {
            std::hint::black_box(entries.count());
        }
    }
    count
}

/// What the host runs (src/plugin/git.rs).
fn with_cli(path: &Path) {
    for args in [
        &[
            "for-each-ref",
            "--format=%(refname)%00%(objectname)%00%(*objectname)%00%(upstream)",
            "refs/",
        ][..],
        &[
            "config",
            "--null",
            "--get-regexp",
            r"^remote\..*\.(url|pushurl)$",
        ],
        &[
            "reflog",
            "show",
            "--format=%H%x00%gs%x00",
            "refs/stash",
            "--",
        ],
    ] {
        std::hint::black_box(git(path, args, None));
    }
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let tmp = std::env::temp_dir().join(format!("gix-compare-{}", std::process::id()));
    let repo = tmp.join("repo");
    make_repo(&repo);
    println!("| refs | gix (in process) | git CLI (3 processes) | CLI / gix |\n|---|---|---|---|");
    for (label, pack) in [("loose", false), ("packed", true)] {
        if pack {
            git(&repo, &["pack-refs", "--all"], None);
        }
        let (mut g, mut c) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let start = Instant::now();
            assert!(with_gix(&repo) > 1000);
            g.push(start.elapsed());
            let start = Instant::now();
            with_cli(&repo);
            c.push(start.elapsed());
        }
        let (g, c) = (median(g), median(c));
        println!(
            "| 1,302 {label} | {:.1} ms | {:.1} ms | {:.1}× |",
            g.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3,
            c.as_secs_f64() / g.as_secs_f64()
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
}
