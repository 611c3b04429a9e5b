//! The Python package (`python/`, `import resource_host`) built for real
//! and its pytest suite (`python/tests/`) run against it: maturin builds
//! the abi3 wheel in the dev profile into the project's own target
//! directory (the binding is a member of this workspace, so wasmtime and
//! everything else already built is reused), pip installs that wheel
//! file into `target/py-venv`, and pytest runs with the `agents` binary
//! and the built components named, so the errors are checked against the
//! CLI's words and the plugins are the real ones. With
//! `AGENTS_TEST_POSTGRES` naming a server (inherited), the suite's
//! team-registry test runs on it too.
//!
//! Its own test binary (not a suite of `integration`): it runs once per
//! `cargo test`, not again in `.ci/run`'s PostgreSQL pass, and links none
//! of the host. Without maturin and pytest in `target/py-venv` the test
//! skips with a message — and fails when `CI` is set; `.ci/run` installs
//! both, and mypy, whose `--strict` and `stubtest` runs on the installed
//! package are tests of the suite (`python/tests/test_typing.py`): one
//! skipped for want of mypy fails this test as any skip does.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const HOW: &str = "python3 -m venv target/py-venv && target/py-venv/bin/pip install \
                   maturin==1.16.0 pytest==9.2.0 mypy==2.4.1 (or run .ci/run)";

/// The virtual environment's Python and maturin, when both it and pytest
/// are there.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let venv = Path::new(ROOT).join("target/py-venv/bin");
    let (python, maturin) = (venv.join("python"), venv.join("maturin"));
    let pytest = Command::new(&python)
        .args(["-c", "import pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if pytest && maturin.is_file() {
        return Some((python, maturin));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "maturin and pytest were not found in target/py-venv: install them: {HOW}"
    );
    eprintln!("\n*** SKIPPED python wheel tests: maturin and pytest are not installed: {HOW} ***");
    None
}

/// Build the wheel; answers its path.
fn build_wheel(maturin: &Path, python: &Path) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-wheel");
    let _ = std::fs::remove_dir_all(&out);
    let built = Command::new(maturin)
        .args(["build", "--profile", "dev", "--interpreter"])
        .arg(python)
        .arg("--out")
        .arg(&out)
        .current_dir(Path::new(ROOT).join("python"))
        .output()
        .expect("maturin runs");
    assert!(
        built.status.success(),
        "maturin build failed:\n{}\n{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)
        .expect("maturin wrote its output directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    assert_eq!(wheels.len(), 1, "one wheel: {wheels:?}");
    let name = wheels[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with("resource_host-") && name.contains("-cp39-abi3-"),
        "an abi3 wheel for CPython 3.9 and later: {name}"
    );
    wheels[0].clone()
}

#[test]
fn the_python_package_builds_as_an_abi3_wheel_and_its_suite_passes() {
    let Some((python, maturin)) = tools() else {
        return;
    };
    let wheel = build_wheel(&maturin, &python);
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--force-reinstall",
        ])
        .arg(&wheel)
        .output()
        .expect("pip runs");
    assert!(
        installed.status.success(),
        "pip install {} failed:\n{}",
        wheel.display(),
        String::from_utf8_lossy(&installed.stderr)
    );
    let tests = Path::new(ROOT).join("python/tests");
    let ran = Command::new("timeout")
        .arg("600")
        .arg(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(&tests)
        .current_dir(&tests)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("AGENTS_BIN", env!("CARGO_BIN_EXE_agents"))
        .env("RESOURCE_HOST_WASM_DIR", env!("RESOURCE_HOST_WASM_DIR"))
        .env(
            "XDG_CACHE_HOME",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache"),
        )
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .output()
        .expect("pytest runs");
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "the pytest suite failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(stdout.contains(" passed"), "pytest ran tests:\n{stdout}");
    // Nothing skipped, but the team-registry test without a PostgreSQL
    // server (`.ci/run` starts one and names it).
    let allowed = usize::from(std::env::var_os("AGENTS_TEST_POSTGRES").is_none());
    assert!(skipped(&stdout) <= allowed, "nothing skipped:\n{stdout}");
}

/// How many tests pytest's summary line says it skipped.
fn skipped(stdout: &str) -> usize {
    let Some(at) = stdout.rfind(" skipped") else {
        return 0;
    };
    let before = &stdout[..at];
    let start = before
        .rfind(|c: char| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    before[start..].parse().unwrap_or(0)
}
