//! Plugin host figures, in one run (`cargo bench --bench plugin`):
//!
//! * loading the example component: first load (compile, write the cache)
//!   vs a cached load from disk in a fresh runtime, in ms;
//! * a warm handler call (fresh `Store` from the `InstancePre`) vs the same
//!   logic as a native Rust function, in µs, with the ratio — for a call
//!   that does nothing, on two components — the `faulty` fixture
//!   (`Healthy.validate`; 87 lowered imports, it probes every corner of
//!   the sandbox) and the contract-0.1.0 fixture (`Pinned.validate`; 26,
//!   about what the built-ins import: fs 31, git 40) — timed interleaved,
//!   because instantiation grows with the lowered imports, and for the
//!   example's `validate` on a tiny package (WASI file reads).
//!
//! Figures, not asserts: printed as a table. For a profiler:
//! `BENCH_ONLY=call BENCH_CALLS=50000` runs (almost) only the calls,
//! `BENCH_ONLY=trivial` only the trivial one.

mod support;
use resource_host::plugin::{
    ComponentSource, Grant, Limits, LoadOrigin, LoadedModule, PluginFiles, PluginRuntime,
    StoredFile,
};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use support::median;

const LOADS: usize = 7;
const CALLS: usize = 2_000;

/// Calls per figure: `CALLS`, or `BENCH_CALLS` (more, for a profiler).
fn calls() -> usize {
    std::env::var("BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CALLS)
}

fn wasm(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("RESOURCE_HOST_WASM_DIR")).join(format!("{name}.wasm"))).unwrap()
}

fn load(rt: &PluginRuntime, stored: &StoredFile, module: &str) -> LoadedModule {
    let module = resource_host::model::ModuleName::parse(module).unwrap();
    rt.load(ComponentSource::Stored {
        module: &module,
        path: &stored.path,
        sha256: &stored.sha256,
    })
    .unwrap()
}

/// The stored file's size (which picks its compiler).
fn stored_size(stored: &StoredFile) -> u64 {
    std::fs::metadata(&stored.path).unwrap().len()
}

/// Time one load in a fresh runtime over `cache`, the engine already made.
fn timed_load(cache: &Path, stored: &StoredFile, expect: LoadOrigin) -> Duration {
    let rt = PluginRuntime::new(cache.to_path_buf(), Limits::default());
    rt.cache_entry_path(&stored.sha256, stored_size(stored))
        .unwrap(); // creates the engine
    let start = Instant::now();
    let m = load(&rt, stored, "myteam.python");
    let took = start.elapsed();
    assert_eq!(m.origin(), expect);
    took
}

/// Mean time of `CALLS` runs of `f`, after a few warm-up runs.
fn per_call(mut f: impl FnMut()) -> Duration {
    for _ in 0..20 {
        f();
    }
    let start = Instant::now();
    for _ in 0..calls() {
        f();
    }
    start.elapsed() / calls() as u32
}

/// Mean time per run of each of `fs`, interleaved: blocks of 100 runs
/// in turn, the median block of each (a busy machine slows all alike).
fn interleaved<const N: usize>(mut fs: [&mut dyn FnMut(); N]) -> [Duration; N] {
    const BLOCK: usize = 100;
    for f in fs.iter_mut() {
        for _ in 0..20 {
            f();
        }
    }
    let mut blocks: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::new());
    for _ in 0..calls().div_ceil(BLOCK) {
        for (f, times) in fs.iter_mut().zip(blocks.iter_mut()) {
            let start = Instant::now();
            for _ in 0..BLOCK {
                f();
            }
            times.push(start.elapsed() / BLOCK as u32);
        }
    }
    blocks.map(median)
}

/// What the example's `validate` does, natively: look for the metadata
/// files, read pyproject.toml, take name and version from `[project]`.
fn native_validate(root: &Path) -> Vec<(String, String)> {
    let files: Vec<&str> = ["pyproject.toml", "setup.cfg", "setup.py"]
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect();
    let mut props = vec![("path".to_owned(), root.display().to_string())];
    let text = std::fs::read_to_string(root.join("pyproject.toml")).unwrap();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[project]";
        } else if inside && let Some((k, v)) = line.split_once('=') {
            let v = v.trim().trim_matches('"');
            props.push((k.trim().to_owned(), v.to_owned()));
        }
    }
    props.push(("metadata".to_owned(), files.join(",")));
    props
}

fn main() {
    let home = tempfile::tempdir().unwrap();
    let files = PluginFiles::new(home.path().join("plugins"));
    let python = files.import(&wasm("python_package")).unwrap();
    let faulty = files.import(&wasm("faulty")).unwrap();
    let pinned = files.import(&wasm("contract_v0_1_0")).unwrap();

    // `BENCH_ONLY=call` skips the loads (for a profiler: only calls run).
    let loads = if matches!(
        std::env::var("BENCH_ONLY").as_deref(),
        Ok("call" | "trivial")
    ) {
        1
    } else {
        LOADS
    };
    let compile: Vec<Duration> = (0..loads)
        .map(|i| {
            timed_load(
                &home.path().join(format!("cold-{i}")),
                &python,
                LoadOrigin::Compiled,
            )
        })
        .collect();
    let warm_cache = home.path().join("cold-0");
    let cached: Vec<Duration> = (0..loads)
        .map(|_| timed_load(&warm_cache, &python, LoadOrigin::DiskCache))
        .collect();

    let rt = PluginRuntime::new(home.path().join("cache"), Limits::default());
    let py = load(&rt, &python, "myteam.python");
    let fx = load(&rt, &faulty, "test.faulty");
    let v010 = load(&rt, &pinned, "test.contract-v0-1-0");
    let pkg = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(pkg.path()).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"demo\"\nversion = \"1.0\"\n",
    )
    .unwrap();
    let args = vec![("path".to_owned(), root.display().to_string())];
    let grant = Grant::read_only(&root);
    let none = Grant::none();

    let [wasm_trivial, wasm_few_imports] = interleaved([
        &mut || {
            black_box(rt.validate(&fx, "Healthy", &[], &none).unwrap());
        },
        &mut || {
            black_box(rt.validate(&v010, "Pinned", &[], &none).unwrap());
        },
    ]);
    let native_trivial = per_call(|| {
        black_box(vec![(
            "report".to_owned(),
            format!("healthy {}", black_box("validate")),
        )]);
    });
    let trivial_only = std::env::var("BENCH_ONLY").as_deref() == Ok("trivial");
    let wasm_validate = per_call(|| {
        if trivial_only {
            return;
        }
        black_box(
            rt.validate(&py, "PythonPackageHandler", &args, &grant)
                .unwrap(),
        );
    });
    let native_validate = per_call(|| {
        black_box(native_validate(black_box(&root)));
    });

    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
    let us = |d: Duration| format!("{:.2} µs", d.as_secs_f64() * 1e6);
    let ratio = |a: Duration, b: Duration| format!("{:.0}×", a.as_secs_f64() / b.as_secs_f64());
    println!(
        "plugin host ({} bytes python_package.wasm)",
        wasm("python_package").len()
    );
    println!();
    let row = |what: &str, cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| format!(" {c:>11} |")).collect();
        println!("| {what:<44} |{}", cells.concat());
    };
    let rule = |n: usize| println!("|{}|{}", "-".repeat(46), "-------------|".repeat(n));
    row(
        &format!("component load (median of {LOADS})"),
        &["time".into()],
    );
    rule(1);
    row("first load: compile + write cache", &[ms(median(compile))]);
    row(
        "cached load from disk (fresh runtime)",
        &[ms(median(cached))],
    );
    println!();
    let head = format!("warm call ({} calls, fresh Store each)", calls());
    row(&head, &["wasm".into(), "native".into(), "ratio".into()]);
    rule(3);
    row(
        "trivial, 87 imports: faulty Healthy.validate",
        &[
            us(wasm_trivial),
            us(native_trivial),
            ratio(wasm_trivial, native_trivial),
        ],
    );
    row(
        "trivial, 26 imports: v0.1.0 Pinned.validate",
        &[
            us(wasm_few_imports),
            us(native_trivial),
            ratio(wasm_few_imports, native_trivial),
        ],
    );
    if !trivial_only {
        row(
            "PythonPackageHandler.validate, tiny dir",
            &[
                us(wasm_validate),
                us(native_validate),
                ratio(wasm_validate, native_validate),
            ],
        );
    }
}
