//! Winch (wasmtime's baseline compiler) against Cranelift: what each costs to compile a component, to load it from the compile
//! cache, and what a warm call of the compiled code then takes.
//! Run: `cargo bench --bench compiler` (`BENCH_RUNS=N` compiles per
//! compiler and component, default 3).
//!
//! Components: the Python example (`plugins/examples/node-package`, built
//! with componentize-py, ~18 MB: CPython and its standard library) and the
//! Rust example (`python_package.wasm`, ~0.2 MB). In process, a fresh
//! runtime (engine made before timing) for each load; the compilers'
//! compiles interleaved, median of the runs. The calls: the example's
//! `validate` of a tiny package (guest code runs: the Python one parses a
//! `package.json`), mean of many after a warm-up, fresh instance each, as
//! every call is. Without componentize-py the Python rows are skipped.
//! Figures, not asserts.

mod support;
use resource_host::model::ModuleName;
use resource_host::plugin::{
    Compiler, ComponentSource, Grant, Limits, LoadOrigin, LoadedModule, PluginFiles, PluginRuntime,
    StoredFile,
};
use std::path::Path;
use std::time::{Duration, Instant};
use support::median;

const COMPILERS: [(Compiler, &str); 2] = [
    (Compiler::Cranelift, "Cranelift"),
    (Compiler::Winch, "Winch"),
];

struct Subject {
    label: &'static str,
    module: ModuleName,
    stored: StoredFile,
    class: &'static str,
    /// The file `validate` looks for and its content.
    manifest: (&'static str, &'static str),
}

/// The component's size (which picks the engine's compiler when none is
/// forced; here one always is).
fn size(s: &Subject) -> u64 {
    std::fs::metadata(&s.stored.path).unwrap().len()
}

fn runtime(cache: &Path, compiler: Compiler, s: &Subject) -> PluginRuntime {
    let rt = PluginRuntime::new(cache.to_path_buf(), Limits::default()).with_compiler(compiler);
    rt.cache_entry_path(&s.stored.sha256, size(s)).unwrap(); // creates the engine
    rt
}

fn load(rt: &PluginRuntime, s: &Subject) -> (Duration, LoadedModule) {
    let start = Instant::now();
    let m = rt
        .load(ComponentSource::Stored {
            module: &s.module,
            path: &s.stored.path,
            sha256: &s.stored.sha256,
        })
        .unwrap();
    (start.elapsed(), m)
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let tmp = tempfile::tempdir().unwrap();
    let tmp = std::fs::canonicalize(tmp.path()).unwrap();
    let files = PluginFiles::new(tmp.join("store"));
    let import = |wasm: &Path| files.import(&std::fs::read(wasm).unwrap()).unwrap();
    let mut subjects = vec![Subject {
        label: "Rust example (`python_package.wasm`)",
        module: ModuleName::parse("myteam.python").unwrap(),
        stored: import(&Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("python_package.wasm")),
        class: "PythonPackageHandler",
        manifest: (
            "pyproject.toml",
            "[project]\nname = \"demo\"\nversion = \"1.0\"\n",
        ),
    }];
    if let Some(wasm) = support::python_component("plugins/examples/node-package") {
        subjects.push(Subject {
            label: "Python example (`node_package.wasm`)",
            module: ModuleName::parse("myteam.node").unwrap(),
            stored: import(&wasm),
            class: "NodePackageHandler",
            manifest: (
                "package.json",
                "{\"name\": \"demo\", \"version\": \"1.0.0\"}\n",
            ),
        });
    }

    println!("# Winch vs Cranelift ({runs} compiles each, interleaved)\n");
    println!(
        "| component | size | compiler | compile (median) | cache entry | cached load (median) | warm `validate` (mean) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for s in &subjects {
        let mut compiles = vec![Vec::new(); COMPILERS.len()];
        for run in 0..runs {
            for (c, (compiler, _)) in COMPILERS.iter().enumerate() {
                let rt = runtime(
                    &tmp.join(format!("cache-{c}-{run}-{}", s.module)),
                    *compiler,
                    s,
                );
                let (took, m) = load(&rt, s);
                assert_eq!(m.origin(), LoadOrigin::Compiled);
                compiles[c].push(took);
            }
        }
        let pkg = tmp.join(format!("pkg-{}", s.module));
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join(s.manifest.0), s.manifest.1).unwrap();
        let args = vec![("path".to_owned(), pkg.display().to_string())];
        let grant = Grant::read_only(&pkg);
        for (c, (compiler, name)) in COMPILERS.iter().enumerate() {
            let cache = tmp.join(format!("cache-{c}-0-{}", s.module));
            let entry = runtime(&cache, *compiler, s)
                .cache_entry_path(&s.stored.sha256, size(s))
                .unwrap()
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len());
            let cached: Vec<Duration> = (0..7)
                .map(|_| {
                    let (took, m) = load(&runtime(&cache, *compiler, s), s);
                    assert_eq!(m.origin(), LoadOrigin::DiskCache);
                    took
                })
                .collect();
            let rt = runtime(&cache, *compiler, s);
            let (_, m) = load(&rt, s);
            let call = || {
                std::hint::black_box(rt.validate(&m, s.class, &args, &grant).unwrap());
            };
            for _ in 0..20 {
                call();
            }
            // About a second of calls.
            let probe = Instant::now();
            call();
            let n = (1.0 / probe.elapsed().as_secs_f64()).clamp(50.0, 5000.0) as u32;
            let start = Instant::now();
            for _ in 0..n {
                call();
            }
            let per = start.elapsed() / n;
            println!(
                "| {} | {:.1} MB | {name} | {:.2} s | {:.1} MB | {:.1} ms | {:.0} µs |",
                s.label,
                std::fs::metadata(&s.stored.path).unwrap().len() as f64 / 1e6,
                median(compiles[c].clone()).as_secs_f64(),
                entry as f64 / 1e6,
                median(cached).as_secs_f64() * 1e3,
                per.as_secs_f64() * 1e6,
            );
        }
    }
}
