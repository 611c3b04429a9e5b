//! `agents plugin new` end to end: scaffold a project in a temp directory
//! (outside this repository), build it with the real toolchain (cargo and
//! crates.io for Rust, componentize-py for Python), add it, register its
//! type and a resource of it.

use crate::common::{Env, componentize_py};
use std::path::{Path, PathBuf};
use std::process::Command;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run a build command in `dir`; panic with its output if it fails.
fn build(mut cmd: Command, dir: &Path) {
    let out = cmd.current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `agents plugin new ARGS… -o json` in `env`; answers the scaffold.
fn scaffold(env: &Env, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["plugin", "new"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    let made = env.run(&all).json();
    let dir = PathBuf::from(made["dir"].as_str().unwrap());
    // The copied contract is the newest one, byte for byte.
    let wit = Path::new(env!("CARGO_MANIFEST_DIR")).join("wit/v0.2.0/resource.wit");
    assert_eq!(
        std::fs::read_to_string(dir.join("wit/resource.wit")).unwrap(),
        std::fs::read_to_string(wit).unwrap()
    );
    // The README gives every command it printed: build, add, register.
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for command in made["commands"].as_array().unwrap() {
        assert!(readme.contains(command.as_str().unwrap()), "{command}");
    }
    made
}

/// The scaffold's build command (the first it printed) after `program`.
fn build_command(made: &serde_json::Value, program: &str) -> Vec<String> {
    let command = made["commands"][0].as_str().unwrap();
    let mut words = command.split_whitespace().map(str::to_owned);
    assert_eq!(words.next().as_deref(), Some(program), "{command}");
    words.collect()
}

/// Add the built component — it carries the scaffold's type files, so
/// adding it registers them —, register a directory of two entries as
/// `type_name`, and inspect it.
fn add_and_register(env: &Env, component: &Path, type_name: &str, types: &[&str]) {
    let added = env
        .run(&["plugin", "add", path(component), "-o", "json"])
        .json();
    assert_eq!(added["module"], "myteam.node");
    assert_eq!(added["types"], serde_json::json!(types), "{added}");
    let data = env.mkdir("data/one");
    env.mkdir("data/two");
    let data = data.parent().unwrap();
    env.add(type_name, "local/data", data, &[]).ok();
    let shown = env
        .run(&["resource", "show", "local/data", "-o", "json"])
        .json();
    assert_eq!(shown["resource_type_name"], type_name);
    assert_eq!(shown["properties"]["entries"], "2", "{shown}");
    let inspected = env.run(&["resource", "inspect", "local/data"]);
    assert!(inspected.ok().contains(" at /"), "{}", inspected.stdout);
}

#[test]
fn a_rust_scaffold_builds_from_crates_io_alone_and_its_classes_register_resources() {
    let env = Env::new();
    let dir = env.path("node-plugin");
    let made = scaffold(
        &env,
        &[
            "myteam.node",
            "--class",
            "NodeHandler",
            "--class",
            "LockFile",
            "--dir",
            path(&dir),
        ],
    );
    assert_eq!(made["lang"], "rust");
    assert_eq!(
        made["types"],
        serde_json::json!(["myteam/node", "myteam/lock-file"])
    );

    // A target dir kept between runs (dependencies compile once); the
    // project itself is built from the temp directory.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scaffold-rust");
    let mut cargo = Command::new(option_env!("CARGO").unwrap_or("cargo"));
    cargo
        .args(build_command(&made, "cargo"))
        .env("CARGO_TARGET_DIR", &target);
    for var in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"] {
        cargo.env_remove(var);
    }
    build(cargo, &dir);
    let component = target.join("wasm32-wasip2/release/myteam_node.wasm");

    let checked = env
        .run(&["plugin", "check", path(&component), "-o", "json"])
        .json();
    let classes: Vec<&str> = checked["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["NodeHandler", "LockFile"]);

    add_and_register(
        &env,
        &component,
        "myteam/lock-file",
        &["myteam/lock-file", "myteam/node"],
    );
    let inspected = env.run(&["resource", "inspect", "local/data"]);
    assert!(
        inspected.ok().starts_with("LockFile at "),
        "{}",
        inspected.stdout
    );

    // The directory is taken now: a second scaffold there is refused.
    env.run(&["plugin", "new", "myteam.other", "--dir", path(&dir)])
        .refused(&["exists and is not an empty directory", "--dir"]);
}

#[test]
fn a_python_scaffold_builds_with_componentize_py_and_registers_a_resource() {
    let Some(componentize) = componentize_py() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "componentize-py not found (target/py-venv/bin, $COMPONENTIZE_PY, PATH): \
             CI must run the Python scaffold test; .ci/run installs it into target/py-venv"
        );
        crate::common::skipped(
            "a_python_scaffold_builds_with_componentize_py_and_registers_a_resource",
            "componentize-py not found; `pip install componentize-py==0.25.1` into \
             target/py-venv, or set COMPONENTIZE_PY",
        );
        return;
    };
    let env = Env::new();
    let dir = env.path("node-py");
    let made = scaffold(
        &env,
        &["myteam.node", "--lang", "python", "--dir", path(&dir)],
    );
    assert_eq!(made["classes"], serde_json::json!(["NodeHandler"]));
    // The scaffold's own build command, run with the componentize-py found,
    // then its `plugin pack` of the type files.
    let command = build_command(&made, "componentize-py");
    let mut cpy = Command::new(componentize);
    cpy.args(command);
    build(cpy, &dir);
    let pack = made["commands"][1].as_str().unwrap();
    let words: Vec<&str> = pack.split_whitespace().collect();
    assert_eq!(&words[..3], ["agents", "plugin", "pack"], "{pack}");
    let mut agents = env.command();
    agents.args(&words[1..]);
    build(agents, &dir);
    add_and_register(
        &env,
        &dir.join("myteam_node.wasm"),
        "myteam/node",
        &["myteam/node"],
    );
}
