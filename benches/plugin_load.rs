//! What loading a plugin costs, for a small component (the Rust
//! example, `python_package.wasm`) and a big one (a trivial Python handler
//! built with componentize-py, ~18 MB: `benches/data/python-trivial/`).
//! Run: `cargo bench --bench plugin_load`.
//!
//! 1. In process: a load from the on-disk compile cache in a fresh runtime
//!    (engine already made), median of 7, and the first load that compiles.
//! 2. A warm trivial call in process (a fresh instance from the
//!    `InstancePre`, as every call): a Rust handler doing nothing vs the
//!    Python one doing nothing.
//! 3. Whole process, the real `agents` binary on a warm home: `resource
//!    inspect` of a resource whose handler is the big component, the same
//!    for the small one, and `resource list` (no handler at all: the floor
//!    of any command), interleaved, median of 11, with the peak memory of
//!    each (`/usr/bin/time -f %M`).
//!
//! 4. Whole process: `agents plugin add` of each component into a fresh
//!    home (it compiles: Winch for the big one where the build has it),
//!    median of `BENCH_ADD_RUNS` (default 3).
//! 5. What making each engine (Cranelift's, then Winch's) adds to the
//!    process's address space: the instance pool's reservations.
//!
//! `BENCH_AGENTS_BEFORE=/path/to/other/agents` adds the same whole-process
//! rows for another build (each binary with its own home), interleaved
//! with this one's: a before/after in one run.
//!
//! The Python component needs componentize-py (`target/py-venv/bin/`,
//! `$COMPONENTIZE_PY` or `PATH`, as the tests find it); without it the big
//! rows are skipped with a message. The build is cached under
//! `target/bench-python/` by the source's hash. Figures, not asserts.

mod support;
use resource_host::model::ModuleName;
use resource_host::plugin::{
    Compiler, ComponentSource, Grant, Limits, LoadOrigin, PluginFiles, PluginRuntime,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{median, root};

const LOADS: usize = 7;
const RUNS: usize = 11;
const CALLS: usize = 500;
const AGENTS: &str = env!("CARGO_BIN_EXE_agents");

/// One load in a fresh runtime over `cache` (engine made before timing).
fn timed_load(
    cache: &Path,
    file: &Path,
    sha256: &str,
    module: &str,
) -> (Duration, LoadOrigin, Compiler) {
    let rt = PluginRuntime::new(cache.to_path_buf(), Limits::default());
    let size = std::fs::metadata(file).unwrap().len();
    rt.cache_entry_path(sha256, size).unwrap(); // creates the engine
    let module = ModuleName::parse(module).unwrap();
    let start = Instant::now();
    let m = rt
        .load(ComponentSource::Stored {
            module: &module,
            path: file,
            sha256,
        })
        .unwrap();
    (start.elapsed(), m.origin(), m.compiler())
}

/// The process's address space (`VmSize`), in bytes.
fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib << 10)
}

/// What making each engine adds to the address space (the pooling
/// allocator's reservations) and its resident memory: one runtime, the
/// Cranelift engine then the Winch one.
fn engine_reservations() {
    let rt = PluginRuntime::without_cache(Limits::default());
    let sha = "0".repeat(64);
    println!(
        "\n| engine made (default limits: {} calls) | address space added |",
        Limits::default().concurrent_calls
    );
    println!("|---|---|");
    for size in [0, Compiler::WINCH_THRESHOLD] {
        let compiler = rt.compiler_for(size);
        let before = vm_size();
        rt.cache_entry_path(&sha, size).unwrap();
        println!(
            "| {compiler} | {:.1} GiB |",
            (vm_size().saturating_sub(before)) as f64 / f64::from(1u32 << 30)
        );
    }
}

struct Component {
    label: &'static str,
    wasm: PathBuf,
    module: &'static str,
    type_file: PathBuf,
    type_name: &'static str,
}

fn agents(binary: &Path, home: &Path, args: &[&str]) -> (Duration, u64) {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(binary)
        .args(args)
        .env("AGENTS_HOME", home)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "agents {args:?}: {stderr}");
    let kib = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    (took, kib)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let tmp = std::fs::canonicalize(tmp.path()).unwrap();
    let mut components = vec![Component {
        label: "small: Rust example",
        wasm: Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("python_package.wasm"),
        module: "myteam.python",
        type_file: root().join("plugins/examples/python-package/python-package.yaml"),
        type_name: "myteam/python-package",
    }];
    if let Some(wasm) = support::python_component("benches/data/python-trivial") {
        components.push(Component {
            label: "big: trivial Python",
            wasm,
            module: "bench.python",
            type_file: root().join("benches/data/python-trivial/type.yaml"),
            type_name: "bench/trivial",
        });
    }

    println!("# plugin load\n");
    engine_reservations();
    println!();
    println!(
        "| component | size | compiler | first load (compile) | cached load, in process (median of {LOADS}) |"
    );
    println!("|---|---|---|---|---|");
    for c in &components {
        let files = PluginFiles::new(tmp.join(format!("store-{}", c.module)));
        let stored = files.import(&std::fs::read(&c.wasm).unwrap()).unwrap();
        let cache = tmp.join(format!("cache-{}", c.module));
        let (first, origin, compiler) = timed_load(&cache, &stored.path, &stored.sha256, c.module);
        assert_eq!(origin, LoadOrigin::Compiled);
        let cached: Vec<Duration> = (0..LOADS)
            .map(|_| {
                let (took, origin, _) = timed_load(&cache, &stored.path, &stored.sha256, c.module);
                assert_eq!(origin, LoadOrigin::DiskCache);
                took
            })
            .collect();
        println!(
            "| {} | {:.1} MB | {compiler} | {:.0} ms | {:.1} ms |",
            c.label,
            std::fs::metadata(&c.wasm).unwrap().len() as f64 / 1e6,
            first.as_secs_f64() * 1e3,
            median(cached).as_secs_f64() * 1e3
        );
    }

    // A warm trivial call, in process: a Rust handler that does nothing
    // (the faulty fixture's `Healthy.validate`) vs the trivial Python one.
    let mut trivial: Vec<(&str, PathBuf, &str, &str)> = vec![(
        "Rust (`test.faulty` `Healthy.validate`)",
        Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("faulty.wasm"),
        "test.faulty",
        "Healthy",
    )];
    if let Some(big) = components.get(1) {
        trivial.push((
            "Python (`bench.python` `TrivialHandler.validate`)",
            big.wasm.clone(),
            "bench.python",
            "TrivialHandler",
        ));
    }
    println!("\n| warm trivial call, in process (mean of {CALLS}, fresh instance each) | time |");
    println!("|---|---|");
    for (label, wasm, module, class) in trivial {
        let files = PluginFiles::new(tmp.join(format!("store-call-{module}")));
        let stored = files.import(&std::fs::read(&wasm).unwrap()).unwrap();
        let rt = PluginRuntime::new(tmp.join(format!("cache-{module}")), Limits::default());
        let module = ModuleName::parse(module).unwrap();
        let m = rt
            .load(ComponentSource::Stored {
                module: &module,
                path: &stored.path,
                sha256: &stored.sha256,
            })
            .unwrap();
        let none = Grant::none();
        for _ in 0..20 {
            rt.validate(&m, class, &[], &none).unwrap();
        }
        let start = Instant::now();
        for _ in 0..CALLS {
            std::hint::black_box(rt.validate(&m, class, &[], &none).unwrap());
        }
        let per = start.elapsed() / CALLS as u32;
        println!("| {label} | {:.1} µs |", per.as_secs_f64() * 1e6);
    }

    // A warm home per binary with one resource per component: this build,
    // and `BENCH_AGENTS_BEFORE` (another build's `agents`, for a
    // before/after in one run) if given.
    let mut binaries: Vec<(String, PathBuf)> = vec![("".into(), PathBuf::from(AGENTS))];
    if let Some(before) = std::env::var_os("BENCH_AGENTS_BEFORE") {
        binaries.push((" [before]".into(), PathBuf::from(before)));
    }
    let pkg = tmp.join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("pyproject.toml"),
        "[project]\nname = \"demo\"\nversion = \"1.0\"\n",
    )
    .unwrap();
    // (label, binary, home, args)
    let mut commands: Vec<(String, PathBuf, PathBuf, Vec<String>)> = Vec::new();
    // `plugin add` times, per binary and component.
    let mut adds: Vec<Vec<Vec<Duration>>> =
        vec![vec![Vec::new(); components.len()]; binaries.len()];
    for (b, (tag, binary)) in binaries.iter().enumerate() {
        let home = tmp.join(format!("home-{b}"));
        for (i, c) in components.iter().enumerate() {
            let started = Instant::now();
            agents(binary, &home, &["plugin", "add", c.wasm.to_str().unwrap()]);
            adds[b][i].push(started.elapsed());
            agents(
                binary,
                &home,
                &["resource", "type", "add", c.type_file.to_str().unwrap()],
            );
            let name = format!("local/r{i}");
            agents(
                binary,
                &home,
                &[
                    "resource",
                    "add",
                    c.type_name,
                    &name,
                    "--path",
                    pkg.to_str().unwrap(),
                ],
            );
            commands.push((
                format!("`resource inspect` ({}){tag}", c.label),
                binary.clone(),
                home.clone(),
                vec!["resource".into(), "inspect".into(), name],
            ));
        }
        commands.push((
            format!("`resource list` (no handler){tag}"),
            binary.clone(),
            home.clone(),
            vec!["resource".into(), "list".into()],
        ));
    }
    // More `plugin add`s, each into a fresh home, the binaries interleaved.
    let add_runs: usize = std::env::var("BENCH_ADD_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    for run in 1..add_runs {
        for (i, c) in components.iter().enumerate() {
            for (b, (_, binary)) in binaries.iter().enumerate() {
                let home = tmp.join(format!("add-{run}-{b}-{i}"));
                let started = Instant::now();
                agents(binary, &home, &["plugin", "add", c.wasm.to_str().unwrap()]);
                adds[b][i].push(started.elapsed());
            }
        }
    }
    println!(
        "\n| `agents plugin add`, whole process, fresh home (median of {add_runs}) | time | each |"
    );
    println!("|---|---|---|");
    for (i, c) in components.iter().enumerate() {
        for (b, (tag, _)) in binaries.iter().enumerate() {
            let each: Vec<String> = adds[b][i]
                .iter()
                .map(|d| format!("{:.2}", d.as_secs_f64()))
                .collect();
            println!(
                "| {}{tag} | {:.2} s | {} |",
                c.label,
                median(adds[b][i].clone()).as_secs_f64(),
                each.join(", ")
            );
        }
    }

    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); commands.len()];
    let mut peaks: Vec<u64> = vec![0; commands.len()];
    for _ in 0..RUNS {
        for (i, (_, binary, home, args)) in commands.iter().enumerate() {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (took, kib) = agents(binary, home, &args);
            times[i].push(took);
            peaks[i] = peaks[i].max(kib);
        }
    }
    println!("\n| whole process, warm home (median of {RUNS}) | time | peak memory |");
    println!("|---|---|---|");
    for (i, (label, ..)) in commands.iter().enumerate() {
        println!(
            "| {label} | {:.1} ms | {:.0} MB |",
            median(times[i].clone()).as_secs_f64() * 1e3,
            peaks[i] as f64 / 1024.0
        );
    }
}
