//! `agents resource add` of a plugin-backed `myteam/python-package`
//! resource, whole process (start to exit), with a cold compile cache (the
//! component is compiled in the process) and a warm one (deserialised from
//! `<home>/cache/components`); a built-in type without a handler
//! (`fs-directory`) as the floor. Run: `cargo bench --bench resource_add`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 9;

fn agents(home: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_agents"))
        .arg("--home")
        .arg(home)
        .args(args)
        .output()
        .expect("run agents");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
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
        "| fs-directory (no handler), for reference | {:.1} ms |",
        ms(median(plain))
    );
}
