//! Registering a wide tree, whole process, against `find` and `sha256sum`
//! on the same files in the same run. Run: `cargo bench --bench wide_tree`
//! (`BENCH_FILES=N` files, default 100,000; `BENCH_RUNS=N` runs, default
//! 3; `BENCH_KEEP=DIR` makes the tree in DIR once and reuses it;
//! `BENCH_AGENTS_BEFORE=/path/to/other/agents` adds another build's
//! figures to the same run, interleaved).
//!
//! The tree is `BENCH_FILES` files of ~220 bytes, 100 to a directory, ten
//! directories to a parent (`a0/b0/file-000.txt` …, as `builtin`'s
//! tree). Ours: `agents resource add fs-directory` (two levels) on a fresh
//! home, then the timed `agents resource discover --recursive`, which
//! finds the files (an lstat and a sha256 of each, a row and a link
//! each, one transaction); its peak memory is the process's maximum RSS
//! (`/usr/bin/time -f %M`). The baseline: `find -printf` of every entry's
//! path, size, mtime and mode, then `sha256sum` of every file (`find
//! -print0 | xargs -0`).
//!
//! Runs are interleaved (ours, baseline, ours, …) so that drift in the
//! machine's speed touches both alike. Figures, not asserts.

mod support;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::median;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let keep = std::env::var_os("BENCH_KEEP").map(std::path::PathBuf::from);
    if let Some(keep) = &keep {
        std::fs::create_dir_all(keep).expect("BENCH_KEEP dir");
    }
    let tmp = std::fs::canonicalize(keep.as_deref().unwrap_or(dir.path())).expect("canonical dir");
    let files: usize = env_or("BENCH_FILES", 100_000);
    let runs: usize = env_or("BENCH_RUNS", 3);
    let root = tmp.join(format!("wide-{files}"));
    if !root.join(".made").is_file() {
        let started = Instant::now();
        make_tree(&root, files);
        std::fs::write(root.join(".made"), "").expect("mark");
        eprintln!("made the tree in {:.1?}", started.elapsed());
    }
    let xdg = tmp.join("wide-xdg");
    let ours = Path::new(env!("CARGO_BIN_EXE_agents")).to_owned();
    let before = std::env::var_os("BENCH_AGENTS_BEFORE").map(std::path::PathBuf::from);
    let mut programs = vec![("ours", ours)];
    if let Some(before) = before {
        programs.push(("`BENCH_AGENTS_BEFORE`", before));
    }
    // Warm: the shared cache gets the fs component, the page cache the tree.
    discover(&programs[0].1, &tmp, &xdg, &root, 999);
    baseline(&root);
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); programs.len()];
    let mut peaks: Vec<Vec<u64>> = vec![Vec::new(); programs.len()];
    let mut theirs = Vec::new();
    let mut rows = 0;
    for i in 0..runs {
        for (p, (_, program)) in programs.iter().enumerate() {
            let (took, kib, n) = discover(program, &tmp, &xdg, &root, i);
            times[p].push(took);
            peaks[p].push(kib);
            rows = n;
        }
        theirs.push(baseline(&root));
    }
    let theirs = median(theirs);
    println!(
        "## `discover --recursive` of {files} files in {} directories ({rows} resources found), median of {runs}\n",
        files.div_ceil(100) + files.div_ceil(1000)
    );
    println!("| path | time | peak RSS | × the baseline |\n|---|---|---|---|");
    for (p, (label, _)) in programs.iter().enumerate() {
        let took = median(times[p].clone());
        let mut kib = peaks[p].clone();
        kib.sort();
        println!(
            "| {label}: `agents resource discover --recursive` (runs: {}) | {} | {:.0} MB (max {:.0}) | {:.2}× |",
            times[p]
                .iter()
                .map(|d| format!("{:.2}", d.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(", "),
            secs(took),
            kib[kib.len() / 2] as f64 / 1024.0,
            kib[kib.len() - 1] as f64 / 1024.0,
            took.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    println!(
        "| baseline: `find -printf` + `sha256sum` of every file | {} | | 1× |\n",
        secs(theirs)
    );
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// `files` files, 100 to a directory, ten directories to a parent.
fn make_tree(root: &Path, files: usize) {
    for d in 0..files.div_ceil(100) {
        let dir = root.join(format!("a{}/b{}", d / 10, d % 10));
        std::fs::create_dir_all(&dir).expect("dir");
        for f in 0..100.min(files - d * 100) {
            std::fs::write(
                dir.join(format!("file-{f:03}.txt")),
                format!("file {d}/{f}\n").repeat(20),
            )
            .expect("file");
        }
    }
}

/// `program ARGS` on `home`, under `/usr/bin/time -f %M`: its time, its
/// peak RSS in KiB and its stdout.
fn timed(program: &Path, home: &Path, xdg: &Path, args: &[&str]) -> (Duration, u64, String) {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .arg("--home")
        .arg(home)
        .args(args)
        .env("XDG_CACHE_HOME", xdg)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run agents under /usr/bin/time");
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "agents {args:?}: {stderr}");
    let kib = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    (took, kib, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A fresh home: the tree registered (untimed), then discovered
/// recursively (timed); its time, peak RSS and how many it found.
fn discover(
    program: &Path,
    tmp: &Path,
    xdg: &Path,
    root: &Path,
    i: usize,
) -> (Duration, u64, usize) {
    let home = tmp.join(format!("wide-home-{i}"));
    std::fs::remove_dir_all(&home).ok();
    let path = root.to_str().expect("utf-8");
    timed(
        program,
        &home,
        xdg,
        &[
            "resource",
            "add",
            "fs-directory",
            "local/tree",
            "--path",
            path,
        ],
    );
    let (took, kib, out) = timed(
        program,
        &home,
        xdg,
        &["resource", "discover", "--recursive", "local/tree"],
    );
    // "discovered local/tree: N new, …"
    let found = out
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    std::fs::remove_dir_all(&home).ok();
    (took, kib, found)
}

/// `find -printf` of every entry, then `sha256sum` of every file.
fn baseline(root: &Path) -> Duration {
    let start = Instant::now();
    let find = Command::new("find")
        .arg(root)
        .args(["-printf", "%p %s %T@ %m\\n"])
        .stdout(Stdio::piped())
        .output()
        .expect("find");
    assert!(find.status.success());
    std::hint::black_box(find.stdout.len());
    let hash = Command::new("sh")
        .arg("-c")
        .arg("find \"$1\" -type f -print0 | xargs -0 sha256sum")
        .arg("sh")
        .arg(root)
        .stdout(Stdio::piped())
        .output()
        .expect("sha256sum");
    assert!(hash.status.success());
    std::hint::black_box(hash.stdout.len());
    start.elapsed()
}
