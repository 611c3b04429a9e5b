//! The example plugin and the runtime's lifecycle, end to end with real
//! components built from `plugins/`: describe, validate, discover,
//! content-hash and inspect on a real Python package; the compile cache;
//! the plugin store's hash check.

use crate::plugin_support;

use plugin_support::{Host, canonical, grant, python_package, view, wasm};
use resource_host::digest::sha256_hex;
use resource_host::model::ModuleName;
use resource_host::plugin::{
    CallErrorKind, ComponentSource, HandlerError, Limits, LoadOrigin, PluginError, PluginRuntime,
};

const MODULE: &str = "myteam.python";
const CLASS: &str = "PythonPackageHandler";

fn args(dir: &std::path::Path) -> Vec<(String, String)> {
    vec![("path".to_owned(), canonical(dir))]
}

#[test]
fn describe_names_the_example_module_its_version_and_class() {
    let host = Host::new(Limits::default());
    let info = host.runtime.describe(&wasm("python_package")).unwrap();
    assert_eq!(info.module.as_str(), MODULE);
    assert_eq!(info.version, "0.1.0");
    assert_eq!(info.class_names(), vec![CLASS]);
    assert!(info.classes[0].description.contains("Python package"));
}

#[test]
fn validate_reports_the_package_name_version_and_path() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let pkg = python_package();
    let props = host
        .runtime
        .validate(&m, CLASS, &args(pkg.path()), &grant(pkg.path()))
        .unwrap();
    let get = |k: &str| {
        props
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("name"), Some("demo"));
    assert_eq!(get("version"), Some("1.2.3"));
    assert_eq!(get("path"), Some(canonical(pkg.path()).as_str()));
    assert_eq!(get("metadata"), Some("pyproject.toml"));
}

#[test]
fn validate_refuses_a_directory_without_pyproject_or_setup_py() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let empty = tempfile::tempdir().unwrap();
    let err = host
        .runtime
        .validate(&m, CLASS, &args(empty.path()), &grant(empty.path()))
        .unwrap_err();
    let CallErrorKind::Handler(HandlerError::InvalidArgs(why)) = &err.kind else {
        panic!("expected invalid-args, got {err}");
    };
    assert!(
        why.contains("holds neither pyproject.toml nor setup.py"),
        "{why}"
    );
    assert!(
        err.to_string().starts_with(
            "handler myteam.python:PythonPackageHandler refused validate: invalid arguments:"
        ),
        "{err}"
    );
}

#[test]
fn discover_returns_the_import_packages_as_fs_directory_children() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let pkg = python_package();
    let root = canonical(pkg.path());
    let children = host
        .runtime
        .discover(&m, CLASS, &view(pkg.path(), &[]), &grant(pkg.path()))
        .unwrap();
    let got: Vec<(&str, Option<&str>, Option<&str>)> = children
        .iter()
        .map(|c| {
            (
                c.type_name.as_str(),
                c.name.as_deref(),
                c.location.as_deref(),
            )
        })
        .collect();
    let demo = format!("{root}/demo");
    let other = format!("{root}/src/other");
    assert_eq!(
        got,
        vec![
            ("fs-directory", Some("demo"), Some(demo.as_str())),
            ("fs-directory", Some("src/other"), Some(other.as_str())),
        ]
    );
}

#[test]
fn content_hash_changes_with_the_metadata_and_not_with_other_files() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let pkg = python_package();
    let hash = || {
        host.runtime
            .content_hash(&m, CLASS, &view(pkg.path(), &[]), &grant(pkg.path()))
            .unwrap()
    };
    let first = hash();
    assert!(
        first.starts_with("sha256:") && first.len() == 7 + 64,
        "{first}"
    );
    std::fs::write(pkg.path().join("README.md"), "changed").unwrap();
    assert_eq!(hash(), first);
    std::fs::write(
        pkg.path().join("pyproject.toml"),
        "[project]\nname = \"demo\"\n",
    )
    .unwrap();
    assert_ne!(hash(), first);
}

#[test]
fn inspect_describes_the_package_or_one_file_in_it() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let pkg = python_package();
    let (v, g) = (view(pkg.path(), &[]), grant(pkg.path()));
    let whole = host.runtime.inspect(&m, CLASS, &v, None, &g).unwrap();
    // The same facts as fields, for `-o json`.
    let field = |k: &str| {
        whole
            .fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(field("name").as_deref(), Some("demo"));
    assert_eq!(field("version").as_deref(), Some("1.2.3"));
    assert_eq!(field("import-packages").as_deref(), Some("demo,src/other"));
    let whole = whole.text;
    assert!(whole.starts_with("Python package demo 1.2.3\n"), "{whole}");
    assert!(
        whole.contains("import packages: demo, src/other"),
        "{whole}"
    );
    let file = host
        .runtime
        .inspect(&m, CLASS, &v, Some("README.md"), &g)
        .unwrap()
        .text;
    assert!(file.contains("size: 16 bytes"), "{file}");
    assert!(file.contains("  # demo\n  line two\n"), "{file}");
    let missing = host
        .runtime
        .inspect(&m, CLASS, &v, Some("nope.txt"), &g)
        .unwrap_err();
    assert!(
        matches!(
            missing.kind,
            CallErrorKind::Handler(HandlerError::NotFound(_))
        ),
        "{missing}"
    );
}

#[test]
fn an_unknown_class_is_unsupported_and_the_message_lists_the_classes() {
    let host = Host::new(Limits::default());
    let m = host.load("python_package", MODULE);
    let pkg = python_package();
    let err = host
        .runtime
        .validate(&m, "NoSuchHandler", &args(pkg.path()), &grant(pkg.path()))
        .unwrap_err();
    assert!(
        err.to_string().ends_with(
            "unsupported: module myteam.python has no class \"NoSuchHandler\"; it provides: PythonPackageHandler"
        ),
        "{err}"
    );
}

#[test]
fn a_second_runtime_loads_the_component_from_the_disk_cache() {
    let first = Host::new(Limits::default());
    assert_eq!(
        first.load("python_package", MODULE).origin(),
        LoadOrigin::Compiled
    );
    assert_eq!(
        first.load("python_package", MODULE).origin(),
        LoadOrigin::Memory
    );
    let second = Host::in_home(first.home, Limits::default());
    let m = second.load("python_package", MODULE);
    assert_eq!(m.origin(), LoadOrigin::DiskCache);
    let pkg = python_package();
    assert!(
        second
            .runtime
            .validate(&m, CLASS, &args(pkg.path()), &grant(pkg.path()))
            .is_ok()
    );
}

#[test]
fn a_corrupted_cache_entry_is_recompiled_and_rewritten() {
    let first = Host::new(Limits::default());
    let m = first.load("python_package", MODULE);
    let entry = first
        .runtime
        .cache_entry_path(m.sha256(), wasm("python_package").len() as u64)
        .unwrap()
        .unwrap();
    let mut bytes = std::fs::read(&entry).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&entry, &bytes).unwrap();

    let second = Host::in_home(first.home, Limits::default());
    let m = second.load("python_package", MODULE);
    assert_eq!(m.origin(), LoadOrigin::Compiled);
    assert_ne!(
        std::fs::read(&entry).unwrap(),
        bytes,
        "the entry was rewritten"
    );
    let third = Host::in_home(second.home, Limits::default());
    assert_eq!(
        third.load("python_package", MODULE).origin(),
        LoadOrigin::DiskCache
    );
}

#[test]
fn a_tampered_plugin_file_is_refused_naming_both_hashes() {
    let host = Host::new(Limits::default());
    let stored = host.files.import(&wasm("python_package")).unwrap();
    let mut bytes = std::fs::read(&stored.path).unwrap();
    bytes.push(0);
    std::fs::write(&stored.path, &bytes).unwrap();
    let module = ModuleName::parse(MODULE).unwrap();
    let err = host
        .runtime
        .load(ComponentSource::Stored {
            module: &module,
            path: &stored.path,
            sha256: &stored.sha256,
        })
        .unwrap_err();
    assert!(matches!(err, PluginError::Tampered { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains(&stored.sha256), "{text}");
    assert!(text.contains(&sha256_hex(&bytes)), "{text}");
}

#[test]
fn an_embedded_component_loads_without_the_plugin_store() {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let bytes: &'static [u8] = BYTES.get_or_init(|| wasm("python_package"));
    let home = tempfile::tempdir().unwrap();
    let runtime = PluginRuntime::new(home.path().join("cache"), Limits::default());
    let module = ModuleName::parse("cleveragents.resource.handlers.python").unwrap();
    let m = runtime
        .load(ComponentSource::Embedded {
            module: &module,
            bytes,
        })
        .unwrap();
    assert_eq!(m.module(), &module);
    assert_eq!(
        m.info().module.as_str(),
        MODULE,
        "describe() still says what the component calls itself"
    );
}
