//! What installing a plugin from a registry costs against adding the
//! same file: the real `agents` binary, a fresh home per run,
//! interleaved, median of `BENCH_INSTALL_RUNS` (default 9).
//!
//! 1. `agents plugin add python_package.wasm` (checks, compiles, writes);
//! 2. `agents plugin install REGISTRY/…:0.1.0 --allow-unsigned` of the
//!    same bytes, pushed once to the loopback test registry;
//! 3. a plain HTTP GET of the blob (the transfer alone).
//!
//! The goal: install ≤ 1.5 × add + the blob's transfer. Needs the test
//! registry (`eval "$(scripts/test-registry.sh start)"`; it reads
//! `AGENTS_TEST_REGISTRY`); without it, it says so and measures nothing.
//! Run: `cargo bench --bench plugin_install`. Figures, not asserts.

mod support;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{median, timed_agents};

const AGENTS: &str = env!("CARGO_BIN_EXE_agents");

fn main() {
    let Some(registry) = std::env::var("AGENTS_TEST_REGISTRY")
        .ok()
        .filter(|r| !r.is_empty())
    else {
        eprintln!(
            "plugin_install: no test registry; run eval \"$(scripts/test-registry.sh start)\" first"
        );
        return;
    };
    let runs: usize = std::env::var("BENCH_INSTALL_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(9);
    let file = Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("python_package.wasm");
    let tmp = tempfile::tempdir().unwrap();
    let xdg = tmp.path().join("xdg");
    let reference = format!("{registry}/bench/python-package:0.1.0");
    let publisher = tmp.path().join("publisher");
    let out = Command::new(AGENTS)
        .arg("--home")
        .arg(&publisher)
        .args([
            "plugin",
            "push",
            file.to_str().unwrap(),
            &reference,
            "-o",
            "json",
        ])
        .env("DOCKER_CONFIG", tmp.path().join("no-docker"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pushed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let layer = pushed["layer_digest"].as_str().unwrap().to_owned();
    let blob_url = format!("http://{registry}/v2/bench/python-package/blobs/{layer}");
    let (mut add, mut install, mut get) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        let home = tmp.path().join(format!("add-{i}"));
        add.push(timed_agents(
            Path::new(AGENTS),
            &home,
            &xdg,
            &["plugin", "add", file.to_str().unwrap()],
        ));
        let home = tmp.path().join(format!("install-{i}"));
        install.push(timed_agents(
            Path::new(AGENTS),
            &home,
            &xdg,
            &["plugin", "install", &reference, "--allow-unsigned"],
        ));
        let start = Instant::now();
        let bytes = ureq::get(&blob_url)
            .call()
            .unwrap()
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_vec()
            .unwrap();
        get.push(start.elapsed());
        assert_eq!(bytes.len() as u64, pushed["size_bytes"].as_u64().unwrap());
    }
    let (add, install, get) = (median(add), median(install), median(get));
    let goal = add.mul_f64(1.5) + get;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "plugin install vs add ({} KB component, loopback registry, median of {runs}):",
        pushed["size_bytes"].as_u64().unwrap() / 1024
    );
    println!("  agents plugin add FILE           {:8.1} ms", ms(add));
    println!("  agents plugin install REF        {:8.1} ms", ms(install));
    println!("  HTTP GET of the blob             {:8.2} ms", ms(get));
    println!(
        "  goal: install <= 1.5 x add + GET = {:.1} ms: {} (install / add = {:.2})",
        ms(goal),
        if install <= goal { "met" } else { "NOT met" },
        install.as_secs_f64() / add.as_secs_f64()
    );
}
