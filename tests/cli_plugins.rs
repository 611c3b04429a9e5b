//! Plugin-backed custom types end to end with the real binary and the
//! example component compiled from `plugins/examples/python-package`.

use crate::common;
use crate::common::{Env, wasm};

const TYPE_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/plugins/examples/python-package/python-package.yaml"
);

/// A real Python package: `pyproject.toml` and two import packages.
fn python_package(env: &Env, rel: &str) -> std::path::PathBuf {
    env.write(
        &format!("{rel}/pyproject.toml"),
        "[project]\nname = \"acme-tools\"\nversion = \"2.4.1\"\n",
    );
    env.write(&format!("{rel}/src/acme/__init__.py"), "");
    env.write(&format!("{rel}/src/acme_cli/__init__.py"), "");
    env.write(&format!("{rel}/docs/index.md"), "# docs\n");
    env.path(rel)
}

/// `agents resource add myteam/python-package local/pkg --path PKG`.
fn add_package(env: &Env, pkg: &std::path::Path) -> common::Run {
    env.run(&[
        "resource",
        "add",
        "myteam/python-package",
        "local/pkg",
        "--path",
        pkg.to_str().unwrap(),
    ])
}

/// The two commands of the README: add the plugin, add the type.
fn plugin_home() -> Env {
    let env = Env::new();
    let added = env.run(&[
        "plugin",
        "add",
        wasm("python_package.wasm").to_str().unwrap(),
    ]);
    assert!(
        added.ok().contains("added plugin myteam.python"),
        "{}",
        added.stdout
    );
    env.run(&["resource", "type", "add", TYPE_FILE]).ok();
    env
}

#[test]
fn a_plugin_backed_type_registers_a_resource_with_discovered_children() {
    let env = plugin_home();
    let pkg = python_package(&env, "pkg");
    let out = add_package(&env, &pkg);
    out.ok();
    let shown = env
        .run(&["resource", "show", "local/pkg", "-o", "json"])
        .json();
    assert_eq!(shown["properties"]["name"], "acme-tools");
    assert_eq!(shown["properties"]["version"], "2.4.1");
    assert!(
        shown["content_hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"),
        "{shown}"
    );
    assert_eq!(shown["children"].as_array().unwrap().len(), 2);

    let tree = env.run(&["resource", "tree", "local/pkg"]);
    let text = tree.ok();
    assert!(text.contains("── src/acme (fs-directory)"), "{text}");
    assert!(text.contains("── src/acme_cli (fs-directory)"), "{text}");
    let child = env
        .run(&["resource", "show", "local/pkg/src/acme", "-o", "json"])
        .json();
    assert_eq!(child["auto_discovered"], true);
    let canonical = std::fs::canonicalize(pkg.join("src/acme")).unwrap();
    assert_eq!(child["location"], canonical.to_str().unwrap());

    // Registration explored two levels: the packages, and their files
    // (through the built-in fs handler).
    let init = env
        .run(&[
            "resource",
            "show",
            "local/pkg/src/acme/__init__.py",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(init["resource_type_name"], "fs-file");
    // Removing the package takes everything discovered below it.
    let removed = env.run(&["resource", "remove", "local/pkg"]);
    assert_eq!(removed.ok().lines().count(), 5, "{}", removed.stdout);
    assert_eq!(
        env.run(&["resource", "list", "-o", "json"]).json(),
        serde_json::json!([])
    );
}

#[test]
fn the_handler_refuses_a_directory_that_is_not_a_package_and_nothing_is_written() {
    let env = plugin_home();
    let dir = env.mkdir("not-a-package");
    let before = env.state();
    env.run(&[
        "resource",
        "add",
        "myteam/python-package",
        "local/x",
        "--path",
        dir.to_str().unwrap(),
    ])
    .refused(&[
        "handler myteam.python:PythonPackageHandler refused validate",
        "pyproject.toml",
    ]);
    assert_eq!(env.state(), before);
}

#[test]
fn discover_again_follows_the_package_as_it_changes() {
    let env = plugin_home();
    let pkg = python_package(&env, "pkg");
    add_package(&env, &pkg).ok();
    let hash_before = env
        .run(&["resource", "show", "local/pkg", "-o", "json"])
        .json()["content_hash"]
        .clone();
    env.write("pkg/src/acme_web/__init__.py", "");
    std::fs::remove_dir_all(pkg.join("src/acme_cli")).unwrap();
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme-tools\"\nversion = \"2.5.0\"\n",
    );
    let report = env
        .run(&[
            "resource",
            "discover",
            "--depth",
            "2",
            "local/pkg",
            "-o",
            "json",
        ])
        .json();
    let names = |key: &str| -> Vec<String> {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names("added"),
        [
            "local/pkg/src/acme_web",
            "local/pkg/src/acme_web/__init__.py"
        ]
    );
    assert_eq!(
        names("removed"),
        [
            "local/pkg/src/acme_cli",
            "local/pkg/src/acme_cli/__init__.py"
        ]
    );
    assert_eq!(report["kept"], 2);
    assert_ne!(report["resource"]["content_hash"], hash_before);
    let names: Vec<String> = env
        .run(&["resource", "list", "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
}

#[test]
fn inspect_describes_the_package_or_one_file_inside_it() {
    let env = plugin_home();
    let pkg = python_package(&env, "pkg");
    add_package(&env, &pkg).ok();
    let whole = env.run(&["resource", "inspect", "local/pkg"]);
    assert!(whole.ok().contains("acme-tools 2.4.1"), "{}", whole.stdout);
    let file = env.run(&[
        "resource",
        "inspect",
        "--file",
        "pyproject.toml",
        "local/pkg",
    ]);
    assert!(file.ok().contains("version = \"2.4.1\""), "{}", file.stdout);
    env.run(&["resource", "inspect", "--file", "../secret", "local/pkg"])
        .refused(&[
            "--file \"../secret\" is refused before any handler ran",
            "must be a relative path inside local/pkg",
        ]);
    let dir = env.mkdir("plain");
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/plain",
        "--path",
        dir.to_str().unwrap(),
    ])
    .ok();
    let plain = env.run(&["resource", "inspect", "local/plain"]);
    assert!(plain.ok().contains("0 entries"), "{}", plain.stdout);
    // A type that names no handler has none to inspect with.
    env.write(
        "bare.yaml",
        "name: acme/bare\nresource_kind: physical\nuser_addable: true\n",
    );
    env.run(&["resource", "type", "add", "bare.yaml"]).ok();
    env.run(&["resource", "add", "acme/bare", "local/bare"])
        .ok();
    env.run(&["resource", "inspect", "local/bare"]).refused(&[
        "local/bare of type acme/bare has no handler to inspect with",
        "its type names none",
    ]);
}

#[test]
fn plugins_are_listed_shown_and_removed_only_when_unused() {
    let env = plugin_home();
    let all = env.run(&["plugin", "list", "-o", "json"]).json();
    // The built-in modules come first, marked.
    assert_eq!(all[0]["module"], "cleveragents.resource.handlers.fs");
    assert_eq!(all[0]["built_in"], true);
    let list: Vec<&serde_json::Value> = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["built_in"] == false)
        .collect();
    assert_eq!(list[0]["module"], "myteam.python");
    assert_eq!(list[0]["classes"][0]["name"], "PythonPackageHandler");
    assert_eq!(list[0]["used_by"][0], "myteam/python-package");
    let shown = env.run(&["plugin", "show", "myteam.python"]);
    assert!(
        shown.ok().contains("PythonPackageHandler"),
        "{}",
        shown.stdout
    );
    let sha = list[0]["sha256"].as_str().unwrap().to_owned();
    let stored = env.home.path().join("plugins").join(format!("{sha}.wasm"));
    assert!(stored.exists());

    env.run(&["plugin", "remove", "myteam.python"]).refused(&[
        "cannot remove plugin myteam.python",
        "myteam/python-package",
    ]);
    env.run(&["resource", "type", "remove", "myteam/python-package"])
        .ok();
    env.run(&["plugin", "remove", "myteam.python"]).ok();
    assert!(
        !stored.exists(),
        "the unused file should go with the module"
    );
    env.run(&["plugin", "show", "myteam.python"])
        .refused(&["no plugin module myteam.python"]);
}

#[test]
fn a_type_naming_a_missing_module_or_class_is_refused_listing_what_exists() {
    let env = plugin_home();
    let yaml = std::fs::read_to_string(TYPE_FILE).unwrap();
    let missing_module = env.write(
        "a.yaml",
        &yaml
            .replace("myteam/python-package", "myteam/a")
            .replace("myteam.python:", "myteam.nope:"),
    );
    env.run(&["resource", "type", "add", missing_module.to_str().unwrap()])
        .refused(&[
            "myteam.nope is not in the plugin store",
            "added: myteam.python",
            "agents plugin add",
        ]);
    let missing_class = env.write(
        "b.yaml",
        &yaml
            .replace("myteam/python-package", "myteam/b")
            .replace("PythonPackageHandler", "RubyGemHandler"),
    );
    env.run(&["resource", "type", "add", missing_class.to_str().unwrap()])
        .refused(&[
            "has no class RubyGemHandler",
            "it provides: PythonPackageHandler",
        ]);
}

#[test]
fn a_module_name_can_be_chosen_and_a_re_add_needs_replace() {
    let env = Env::new();
    let file = wasm("python_package.wasm");
    let file = file.to_str().unwrap();
    env.run(&["plugin", "add", file, "--module", "acme.py"])
        .ok();
    // The same bytes again: nothing to do.
    env.run(&["plugin", "add", file, "--module", "acme.py"])
        .ok();
    // Other bytes under the same module need --replace.
    let faulty = wasm("faulty.wasm");
    env.run(&[
        "plugin",
        "add",
        faulty.to_str().unwrap(),
        "--module",
        "acme.py",
    ])
    .refused(&["acme.py is already added", "--replace"]);
    env.run(&[
        "plugin",
        "add",
        file,
        "--module",
        "cleveragents.resource.handlers.fs",
    ])
    .refused(&["reserved for the built-in handlers"]);
}

#[test]
fn a_tampered_plugin_file_is_refused_with_both_hashes() {
    let env = plugin_home();
    let pkg = python_package(&env, "pkg");
    let sha = env
        .run(&["plugin", "show", "myteam.python", "-o", "json"])
        .json()["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    let stored = env.home.path().join("plugins").join(format!("{sha}.wasm"));
    let mut bytes = std::fs::read(&stored).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&stored, &bytes).unwrap();
    let before = env.state();
    add_package(&env, &pkg).refused(&[
        "cannot load handler module myteam.python",
        &sha,
        "changed after `agents plugin add`",
    ]);
    assert_eq!(env.state(), before);
}

#[test]
fn registering_with_a_warm_cache_compiles_nothing() {
    let env = plugin_home();
    let cache = env.home.path().join("cache/components");
    let entries = || compiled(&cache).len();
    // `plugin add` compiled the component once, into the cache.
    assert_eq!(entries(), 1);
    // The built-in fs handler the registration also runs is compiled into
    // the cache shared by every home, not this one (`shared_cache`).
    let warm = env.mkdir("warm");
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/warm",
        "--path",
        warm.to_str().unwrap(),
    ])
    .ok();
    assert_eq!(entries(), 1);
    let pkg = python_package(&env, "pkg");
    let out = env.run(&[
        "-vv",
        "resource",
        "add",
        "myteam/python-package",
        "local/pkg",
        "--path",
        pkg.to_str().unwrap(),
    ]);
    out.ok();
    assert_eq!(entries(), 1);
    assert!(
        out.stderr
            .contains("myteam.python loaded from the compile cache"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("compiled"), "{}", out.stderr);
}

/// The compile cache's entries (`<wasm sha256>-<engine>.cwasm`), by the
/// wasm's sha256.
fn compiled(cache: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(cache)
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let sha = name.strip_suffix(".cwasm")?.split('-').next()?.to_owned();
                    assert!(
                        cache.join(format!("{name}.seal")).is_file(),
                        "{name} is sealed"
                    );
                    Some(sha)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn replacing_or_removing_a_plugin_removes_its_compiled_forms() {
    let env = Env::new();
    let cache = env.home.path().join("cache/components");
    let sha = |module: &str| {
        env.run(&["plugin", "show", module, "-o", "json"]).json()["sha256"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let python = wasm("python_package.wasm");
    let faulty = wasm("faulty.wasm");
    env.run(&[
        "plugin",
        "add",
        python.to_str().unwrap(),
        "--module",
        "acme.py",
    ])
    .ok();
    env.run(&[
        "plugin",
        "add",
        python.to_str().unwrap(),
        "--module",
        "acme.same",
    ])
    .ok();
    let old = sha("acme.py");
    assert_eq!(compiled(&cache), [old.as_str()]);
    // Replaced while another module still uses the old bytes: kept.
    env.run(&[
        "plugin",
        "add",
        faulty.to_str().unwrap(),
        "--module",
        "acme.py",
        "--replace",
    ])
    .ok();
    let new = sha("acme.py");
    let mut both = vec![old.clone(), new.clone()];
    both.sort();
    assert_eq!(compiled(&cache), both);
    // The last user of the old bytes goes: so do their compiled forms.
    env.run(&["plugin", "remove", "acme.same"]).ok();
    assert_eq!(compiled(&cache), [new.as_str()]);
    // Replaced by the old bytes again, then removed: nothing left.
    env.run(&[
        "plugin",
        "add",
        python.to_str().unwrap(),
        "--module",
        "acme.py",
        "--replace",
    ])
    .ok();
    assert_eq!(compiled(&cache), [old]);
    env.run(&["plugin", "remove", "acme.py"]).ok();
    assert!(compiled(&cache).is_empty());
    assert!(
        std::fs::read_dir(&cache).unwrap().next().is_none(),
        "no seal left behind"
    );
}
