//! Shared by the plugin integration tests: the components the build script
//! built from `plugins/`, runtimes over temp dirs, a Python package made on
//! disk, and a logger that keeps what handlers sent to the `plugin` target.

#![allow(dead_code)] // each test binary uses a different part

use resource_host::model::ModuleName;
use resource_host::plugin::{
    Compiler, ComponentSource, Grant, Limits, LoadedModule, PluginFiles, PluginRuntime,
    ResourceView,
};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use tempfile::TempDir;

/// The bytes of `plugins/`'s component `name` (`python_package`, `faulty`).
pub fn wasm(name: &str) -> Vec<u8> {
    let path = Path::new(env!("RESOURCE_HOST_WASM_DIR")).join(format!("{name}.wasm"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A runtime with its own cache dir and plugin store.
pub struct Host {
    pub runtime: PluginRuntime,
    pub files: PluginFiles,
    pub home: TempDir,
}

impl Host {
    pub fn new(limits: Limits) -> Self {
        let home = tempfile::tempdir().unwrap();
        Self::in_home(home, limits)
    }

    /// A runtime over an existing home (to share its cache).
    pub fn in_home(home: TempDir, limits: Limits) -> Self {
        let runtime = PluginRuntime::new(home.path().join("cache"), limits);
        let files = PluginFiles::new(home.path().join("plugins"));
        Self {
            runtime,
            files,
            home,
        }
    }

    /// A runtime that compiles every component with `compiler`.
    pub fn with_compiler(limits: Limits, compiler: Compiler) -> Self {
        let mut host = Self::new(limits);
        host.runtime = host.runtime.with_compiler(compiler);
        host
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.home.path().join("cache")
    }

    /// Import component `name` into the store and load it as `module`.
    pub fn load(&self, name: &str, module: &str) -> LoadedModule {
        self.load_bytes(&wasm(name), module)
    }

    /// Import the component `bytes` into the store and load it as `module`.
    pub fn load_bytes(&self, bytes: &[u8], module: &str) -> LoadedModule {
        let stored = self.files.import(bytes).unwrap();
        let module = ModuleName::parse(module).unwrap();
        self.runtime
            .load(ComponentSource::Stored {
                module: &module,
                path: &stored.path,
                sha256: &stored.sha256,
            })
            .unwrap()
    }
}

/// A resource view of `dir` with `properties`.
pub fn view(dir: &Path, properties: &[(&str, &str)]) -> ResourceView {
    ResourceView {
        id: "01JDQX0000000000000000TEST".into(),
        name: Some("local/pkg".into()),
        type_name: "myteam/python-package".into(),
        location: Some(canonical(dir)),
        properties: properties
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

pub fn canonical(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

pub fn grant(dir: &Path) -> Grant {
    Grant::read_only(dir)
}

/// A Python package: pyproject.toml (demo 1.2.3), import packages `demo`
/// and `src/other`, a directory that is not a package, and a README.
pub fn python_package() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"demo\"\nversion = \"1.2.3\"\n",
    )
    .unwrap();
    std::fs::write(p.join("README.md"), "# demo\nline two\n").unwrap();
    for package in ["demo", "src/other"] {
        std::fs::create_dir_all(p.join(package)).unwrap();
        std::fs::write(p.join(package).join("__init__.py"), "").unwrap();
    }
    std::fs::create_dir(p.join("notes")).unwrap();
    dir
}

/// What handlers sent to the `plugin` log target in this test process.
static LINES: Mutex<Vec<(log::Level, String)>> = Mutex::new(Vec::new());

struct Keep;

impl log::Log for Keep {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.target() == "plugin"
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let line = record.args().to_string();
            LINES.lock().unwrap().push((record.level(), line));
        }
    }
    fn flush(&self) {}
}

/// Keep `plugin` log lines from now on (idempotent).
pub fn keep_logs() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        log::set_logger(&Keep).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
    });
}

/// The kept `plugin` log lines that contain `needle`.
pub fn logged(needle: &str) -> Vec<String> {
    LINES
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, line)| line.contains(needle))
        .map(|(_, line)| line.clone())
        .collect()
}
