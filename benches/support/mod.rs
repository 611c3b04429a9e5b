//! What several benches share: the median they report, the repository's
//! root, componentize-py, a timed `agents` process, and the small
//! registry the front-end benches (`mcp`, `python`) time `show_resource`
//! on. A bench takes it with `mod support;` (a directory module, so cargo
//! does not take it for a bench of its own).

#![allow(dead_code)] // each bench uses its own part

use resource_host::home::Home;
use resource_host::model::ResourceKey;
use resource_host::registry::{NewResource, Registry};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The median of `xs` (the upper one of an even count).
pub fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// The repository's root (where `Cargo.toml` is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// componentize-py: `target/py-venv`'s (what `.ci/run` installs),
/// `$COMPONENTIZE_PY`, or one on `PATH`; `None` without.
pub fn componentize_py() -> Option<PathBuf> {
    let venv = root().join("target/py-venv/bin/componentize-py");
    if venv.is_file() {
        return Some(venv);
    }
    if let Some(p) = std::env::var_os("COMPONENTIZE_PY") {
        return Some(PathBuf::from(p));
    }
    let found = Command::new("componentize-py")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    found.then(|| PathBuf::from("componentize-py"))
}

/// The componentize-py component of the Python app in `dir` (relative to
/// the root), built into `target/bench-python/` once per change of its
/// `app.py` or the WIT; `None`, saying so, without componentize-py.
pub fn python_component(dir: &str) -> Option<PathBuf> {
    let src = root().join(dir);
    let app = std::fs::read(src.join("app.py")).unwrap();
    let wit = std::fs::read(root().join("wit/v0.2.0/resource.wit")).unwrap();
    let key = resource_host::digest::sha256_hex(&[dir.as_bytes().to_vec(), app, wit].concat());
    let out = root().join(format!("target/bench-python/{}.wasm", &key[..16]));
    if out.is_file() {
        return Some(out);
    }
    let Some(tool) = componentize_py() else {
        eprintln!(
            "componentize-py not found (target/py-venv, $COMPONENTIZE_PY, PATH): skipping {dir}"
        );
        return None;
    };
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let status = Command::new(tool)
        .arg("-d")
        .arg(root().join("wit/v0.2.0"))
        .args(["-w", "resource-handler", "componentize", "app", "-o"])
        .arg(&out)
        .current_dir(&src)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "componentize-py failed on {dir}");
    Some(out)
}

/// `program --home HOME ARGS` with the shared compile cache in `xdg`,
/// timed; it must succeed.
pub fn timed_agents(program: &Path, home: &Path, xdg: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(program)
        .arg("--home")
        .arg(home)
        .args(args)
        .env("XDG_CACHE_HOME", xdg)
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

/// A home under `tmp` holding `local/dir`, a directory of 20
/// subdirectories with a file each, registered with its children; the
/// home's path, the open registry and the key of `local/dir`.
pub fn show_fixture(tmp: &Path) -> (PathBuf, Registry, ResourceKey) {
    let home = tmp.join("home");
    let dir = tmp.join("dir");
    for i in 0..20 {
        std::fs::create_dir_all(dir.join(format!("d{i}"))).expect("dir");
        std::fs::write(dir.join(format!("d{i}/f.txt")), "f\n").expect("file");
    }
    let mut registry = Registry::open(&Home::new(&home)).expect("open");
    registry
        .register_resource(
            NewResource {
                type_name: "fs-directory".into(),
                name: Some("local/dir".into()),
                args: vec![("path".into(), dir.to_str().expect("utf-8").into())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .expect("register");
    let key = "local/dir".parse().expect("key");
    (home, registry, key)
}
