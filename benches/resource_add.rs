//! `agents resource add`, whole process (start to exit): a plugin-backed
//! `myteam/python-package` resource with a cold compile cache (the
//! component is compiled in the process) and a warm one (deserialised from
//! `<home>/cache/components`); the built-in `fs-directory` (the fs
//! component: validate, two levels of discovery) and `git-checkout` of a
//! small repository (the git and fs components, eight git processes), with
//! `git status` as a floor for anything that asks git; and the first
//! command on a fresh home — `fs-directory` with the built-in components
//! read from the per-user shared compile cache, and with that cache cold
//! (compiling them, as every new home did before there was one) — against
//! the same command on a warm home, interleaved. Run:
//! `cargo bench --bench resource_add`.

mod support;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::median;

const RUNS: usize = 9;

/// The per-user cache directory (`XDG_CACHE_HOME`) of every run: the
/// bench's own, never the user's.
static XDG: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

fn agents(home: &Path, args: &[&str]) -> Duration {
    support::timed_agents(
        Path::new(env!("CARGO_BIN_EXE_agents")),
        home,
        XDG.get().expect("set in main"),
        args,
    )
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    XDG.set(tmp.path().join("xdg")).expect("once");
    let home = tmp.path().join("home");
    let pkg = tmp.path().join("pkg");
    std::fs::create_dir_all(pkg.join("src/acme")).expect("pkg");
    std::fs::write(
        pkg.join("pyproject.toml"),
        "[project]\nname = \"acme\"\nversion = \"1.0\"\n",
    )
    .expect("pyproject");
    std::fs::write(pkg.join("src/acme/__init__.py"), "").expect("init");
    let wasm = Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("python_package.wasm");
    let type_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/plugins/examples/python-package/python-package.yaml"
    );
    agents(&home, &["plugin", "add", wasm.to_str().expect("utf-8")]);
    agents(&home, &["resource", "type", "add", type_file]);
    let path = pkg.to_str().expect("utf-8");
    let cache = home.join("cache/components");

    let run = |n: usize, cold: bool| {
        if cold {
            std::fs::remove_dir_all(&cache).ok();
        }
        let name = format!("local/pkg{n}");
        agents(
            &home,
            &[
                "resource",
                "add",
                "myteam/python-package",
                &name,
                "--path",
                path,
            ],
        )
    };
    let cold: Vec<Duration> = (0..RUNS).map(|i| run(i, true)).collect();
    let warm: Vec<Duration> = (0..RUNS).map(|i| run(100 + i, false)).collect();
    let plain: Vec<Duration> = (0..RUNS)
        .map(|i| {
            let name = format!("local/dir{i}");
            agents(
                &home,
                &["resource", "add", "fs-directory", &name, "--path", path],
            )
        })
        .collect();
    // The first command on a fresh home, interleaved with the same
    // command on the warm one: the built-ins read from the shared cache,
    // and compiled (a cold shared cache, as every new home did before).
    let (mut warm_home, mut fresh_home, mut cold_home) = (Vec::new(), Vec::new(), Vec::new());
    let cold_xdg = tmp.path().join("xdg-cold");
    for i in 0..RUNS {
        let name = format!("local/w{i}");
        warm_home.push(agents(
            &home,
            &["resource", "add", "fs-directory", &name, "--path", path],
        ));
        let fresh = tmp.path().join(format!("fresh{i}"));
        fresh_home.push(agents(
            &fresh,
            &["resource", "add", "fs-directory", "local/d", "--path", path],
        ));
        std::fs::remove_dir_all(&cold_xdg).ok();
        let cold = tmp.path().join(format!("cold{i}"));
        cold_home.push(support::timed_agents(
            Path::new(env!("CARGO_BIN_EXE_agents")),
            &cold,
            &cold_xdg,
            &["resource", "add", "fs-directory", "local/d", "--path", path],
        ));
    }
    let repo = tmp.path().join("repo");
    small_repo(&repo);
    let repo_path = repo.to_str().expect("utf-8");
    let checkout: Vec<Duration> = (0..RUNS)
        .map(|i| {
            let name = format!("local/repo{i}");
            agents(
                &home,
                &[
                    "resource",
                    "add",
                    "git-checkout",
                    &name,
                    "--path",
                    repo_path,
                ],
            )
        })
        .collect();
    let status: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let out = Command::new("git")
                .args(["status", "--porcelain"])
                .current_dir(&repo)
                .output()
                .expect("git status");
            assert!(out.status.success());
            start.elapsed()
        })
        .collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("# agents resource add, whole process, median of {RUNS}\n");
    println!("| case | wall time |\n|---|---|");
    println!(
        "| myteam/python-package, cold compile cache | {:.1} ms |",
        ms(median(cold))
    );
    println!(
        "| myteam/python-package, warm compile cache | {:.1} ms |",
        ms(median(warm))
    );
    println!(
        "| fs-directory (fs component, two levels) | {:.1} ms |",
        ms(median(plain))
    );
    println!(
        "| git-checkout of a small repository (git and fs components) | {:.1} ms |",
        ms(median(checkout))
    );
    let (warm_home, fresh_home, cold_home) =
        (median(warm_home), median(fresh_home), median(cold_home));
    println!(
        "| fs-directory, warm home | {:.1} ms |\n\
         | fs-directory, first command on a fresh home, warm shared cache | {:.1} ms ({:.2}× the warm home) |\n\
         | fs-directory, first command on a fresh home, cold shared cache (compiles) | {:.1} ms ({:.2}×) |",
        ms(warm_home),
        ms(fresh_home),
        fresh_home.as_secs_f64() / warm_home.as_secs_f64(),
        ms(cold_home),
        cold_home.as_secs_f64() / warm_home.as_secs_f64(),
    );
    println!(
        "| `git status --porcelain` on it, for reference | {:.1} ms |",
        ms(median(status))
    );
}

/// A repository of a few files, two branches and a tag.
fn small_repo(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("repo");
    std::fs::write(dir.join("README.md"), "# small\n").expect("file");
    std::fs::write(dir.join("src/main.py"), "print('hi')\n").expect("file");
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "first"],
        &["tag", "v0.1"],
        &["branch", "feature"],
    ] {
        let out = Command::new("git")
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "b")
            .env("GIT_AUTHOR_EMAIL", "b@example.com")
            .env("GIT_COMMITTER_NAME", "b")
            .env("GIT_COMMITTER_EMAIL", "b@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}");
    }
}
