//! `show_resource` from Python vs the same Rust library call, in one run
//! (goal: ≤ 2×). Run: `cargo bench --bench python`.
//!
//! Builds the wheel with maturin in the profile this bench was built in
//! (`release` for `cargo bench`, `dev` for `cargo bench --profile dev`:
//! both sides of the ratio in one profile; sharing `target/`), installs it into its own virtual environment
//! (`target/bench-py-venv`, made from `target/py-venv`'s maturin), times
//! the library call here, then the same call from Python on the same
//! home (`benches/python/show_resource.py`, `time.perf_counter_ns`
//! around each call), and prints both medians and their ratio. Skipped,
//! saying so, without maturin.

use resource_host::registry::Registry;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CALLS: usize = 2000;
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

mod support;
use support::median;

fn run(what: &str, command: &mut Command) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The release wheel installed into the bench's own environment; its
/// Python.
fn python_with_wheel() -> Option<PathBuf> {
    let maturin = Path::new(ROOT).join("target/py-venv/bin/maturin");
    if !maturin.is_file() {
        eprintln!(
            "skipped: no maturin in target/py-venv (run .ci/run, or pip install maturin there)"
        );
        return None;
    }
    let venv = Path::new(ROOT).join("target/bench-py-venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        run(
            "python3 -m venv",
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
        );
    }
    let out = Path::new(ROOT).join("target/bench-wheel");
    let _ = std::fs::remove_dir_all(&out);
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    run(
        "maturin build",
        Command::new(&maturin)
            .args(["build", "--profile", profile, "--interpreter"])
            .arg(&python)
            .arg("--out")
            .arg(&out)
            .current_dir(Path::new(ROOT).join("python")),
    );
    let wheel = std::fs::read_dir(&out)
        .expect("maturin's output")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel");
    run(
        "pip install",
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--force-reinstall",
                "--no-deps",
            ])
            .args(["--disable-pip-version-check"])
            .arg(&wheel),
    );
    Some(python)
}

fn main() {
    let Some(python) = python_with_wheel() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let (home, mut registry, key) = support::show_fixture(tmp.path());
    let library = |registry: &mut Registry| {
        let times: Vec<Duration> = (0..CALLS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(registry.show_resource(&key).expect("show"));
                start.elapsed()
            })
            .collect();
        median(times)
    };
    // Library, Python, library again: a machine that got busier in
    // between shows as two library figures far apart.
    let before = library(&mut registry);
    let script = Path::new(ROOT).join("benches/python/show_resource.py");
    let printed = run(
        "show_resource.py",
        Command::new(&python)
            .arg(&script)
            .arg(&home)
            .arg("local/dir")
            .arg(CALLS.to_string())
            .env("XDG_CACHE_HOME", tmp.path().join("cache")),
    );
    let nanos: u64 = printed
        .trim()
        .parse()
        .expect("the script prints nanoseconds");
    let python = Duration::from_nanos(nanos);
    let after = library(&mut registry);
    let lib = before.min(after);
    println!("show_resource, median of {CALLS} calls:");
    println!("  Rust library call     {before:>10.1?} (before) {after:>10.1?} (after)");
    println!("  Python (resource_host){python:>10.1?}");
    println!(
        "  ratio Python / library {:.2}× (goal ≤ 2×)",
        python.as_secs_f64() / lib.as_secs_f64()
    );
}
