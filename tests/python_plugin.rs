//! The Python example handler (`plugins/examples/node-package`, module
//! `myteam.node`) built for real with componentize-py, added, registered
//! and called through the real `agents` binary.
//!
//! The component is ~18 MB and compiling it takes seconds, so it is built
//! once per test run, and added once, to a template home each test copies
//! (the compile cache comes along). Without componentize-py (see
//! [`common::componentize_py`]) the tests fail when `CI` is set and skip
//! with a message otherwise; `.ci/run` installs it.

use crate::common;
use crate::common::Env;
use resource_host::plugin::Compiler;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const TYPE: &str = "myteam/node-package";
const HANDLER: &str = "handler myteam.node:NodePackageHandler";

/// The built component and a home where it and its type are registered.
#[derive(Debug)]
struct Built {
    template: PathBuf,
    wasm: PathBuf,
    yaml: PathBuf,
}

fn built() -> Option<&'static Built> {
    static BUILT: OnceLock<Option<Built>> = OnceLock::new();
    BUILT.get_or_init(build).as_ref()
}

fn build() -> Option<Built> {
    let Some(tool) = common::componentize_py() else {
        let how = "python3 -m venv target/py-venv && \
                   target/py-venv/bin/pip install componentize-py==0.25.1 (or run .ci/run)";
        assert!(
            std::env::var_os("CI").is_none(),
            "componentize-py not found (looked for target/py-venv/bin/componentize-py, \
             $COMPONENTIZE_PY, PATH): the Python handler tests cannot run; install it: {how}"
        );
        crate::common::skipped(
            "python_plugin tests",
            &format!("componentize-py not found; install it: {how}"),
        );
        return None;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = scratch_dir();
    let wasm = work.join("node_package.wasm");
    let out = Command::new(&tool)
        .arg("-d")
        .arg(root.join("wit/v0.2.0"))
        .args(["-w", "resource-handler", "componentize", "-p"])
        .arg(root.join("plugins/examples/node-package"))
        .arg("app")
        .arg("-o")
        .arg(&wasm)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed:\n{}{}",
        tool.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let template = work.join("home");
    let agents = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_agents"))
            .arg("--home")
            .arg(&template)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "agents {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let added = agents(&["plugin", "add", wasm.to_str().unwrap()]);
    assert!(
        added.contains("added plugin myteam.node 0.1.0 (classes: NodePackageHandler"),
        "{added}"
    );
    let yaml = root.join("plugins/examples/node-package/node-package.yaml");
    agents(&["resource", "type", "add", yaml.to_str().unwrap()]);
    Some(Built {
        template,
        wasm,
        yaml,
    })
}

/// `target/tmp/python-plugin-<pid>`, fresh; those of earlier runs whose
/// process is gone are removed.
fn scratch_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for entry in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix("python-plugin-")
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = tmp.join(format!("python-plugin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A home with the plugin and its type registered (a copy of the
/// template), or `None` when the tests are skipped.
fn home() -> Option<Env> {
    let built = built()?;
    let env = Env::new();
    copy_dir(&built.template, env.home.path());
    if common::backend() == "postgres" {
        // The template's rows are in its own registry; this test's schema
        // starts empty (the copied compile cache still saves the compile).
        env.run(&["plugin", "add", built.wasm.to_str().unwrap()])
            .ok();
        env.run(&["resource", "type", "add", built.yaml.to_str().unwrap()])
            .ok();
    }
    Some(env)
}

/// Copy a home, keeping modes (the plugin store and compile cache must
/// stay private to be trusted).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::set_permissions(to, std::fs::metadata(from).unwrap().permissions()).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A workspace root `mono/` with two packages under `packages/` and a
/// directory there that is not one.
fn monorepo(env: &Env) -> PathBuf {
    env.write(
        "mono/package.json",
        r#"{"name": "mono", "version": "1.0.0", "private": true,
            "workspaces": ["packages/*"],
            "scripts": {"build": "tsc -b", "test": "node --test"},
            "devDependencies": {"typescript": "^5"}}"#,
    );
    env.write(
        "mono/packages/web/package.json",
        r#"{"name": "@mono/web", "version": "0.1.0"}"#,
    );
    env.write(
        "mono/packages/api/package.json",
        r#"{"name": "@mono/api", "version": "0.2.0", "dependencies": {"express": "^4"}}"#,
    );
    env.mkdir("mono/packages/notes");
    env.path("mono")
}

#[test]
fn a_python_handler_validates_discovers_inspects_and_refreshes() {
    let Some(env) = home() else { return };
    let mono = monorepo(&env);

    // validate + discover + content-hash, at registration.
    env.add(TYPE, "local/mono", &mono, &[]).ok();
    let shown = env
        .run(&["resource", "show", "local/mono", "-o", "json"])
        .json();
    assert_eq!(shown["properties"]["name"], "mono");
    assert_eq!(shown["properties"]["version"], "1.0.0");
    assert_eq!(shown["properties"]["private"], "true");
    let hash = shown["content_hash"].as_str().unwrap().to_owned();
    assert!(hash.starts_with("sha256:"), "{hash}");
    let tree = env.run(&["resource", "tree", "local/mono"]);
    assert!(tree.ok().contains("── packages/api (myteam/node-package)"));
    assert!(tree.ok().contains("── packages/web (myteam/node-package)"));
    assert!(!tree.ok().contains("notes"), "{}", tree.stdout);
    let api = env.run(&["resource", "show", "local/mono/packages/api", "-o", "json"]);
    assert_eq!(api.json()["properties"]["name"], "@mono/api");

    // inspect: text for people, the same facts as fields.
    let inspected = env.run(&["resource", "inspect", "local/mono"]);
    assert!(
        inspected.ok().contains("package mono@1.0.0"),
        "{}",
        inspected.stdout
    );
    let fields = &env
        .run(&["resource", "inspect", "local/mono", "-o", "json"])
        .json()["fields"];
    assert_eq!(fields["scripts"], "build, test");
    assert_eq!(fields["devDependencies"], "1");
    assert_eq!(fields["workspace-packages"], "packages/api, packages/web");
    let file = env.run(&[
        "resource",
        "inspect",
        "local/mono",
        "--file",
        "packages/web/package.json",
        "-o",
        "json",
    ]);
    assert!(
        file.json()["fields"]["digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"),
        "{}",
        file.stdout
    );

    // A refusal the handler answers (raise Err(...)): clear, and nothing
    // is written.
    let before = env.state();
    let empty = env.mkdir("empty");
    env.add(TYPE, "local/empty", &empty, &[]).refused(&[
        &format!("{HANDLER} refused validate: invalid arguments:"),
        "has no package.json; point --path at the package root",
    ]);
    let nameless = env.write("nameless/package.json", r#"{"version": "1.0.0"}"#);
    env.add(TYPE, "local/nameless", nameless.parent().unwrap(), &[])
        .refused(&[r#"package.json has no "name"; add one"#]);
    assert_eq!(env.state(), before);

    // content-hash: a new workspace package is seen by refresh.
    env.write(
        "mono/packages/notes/package.json",
        r#"{"name": "@mono/notes"}"#,
    );
    let refreshed = env.run(&["resource", "refresh", "local/mono"]);
    assert!(
        refreshed.ok().contains("changed local/mono: 1 new, 0 gone"),
        "{}",
        refreshed.stdout
    );
    assert!(
        refreshed.ok().contains("+ local/mono/packages/notes"),
        "{}",
        refreshed.stdout
    );
    // The children's hashes came with discover: they read as unchanged.
    assert!(
        !refreshed.stdout.contains("changed local/mono/packages/api"),
        "{}",
        refreshed.stdout
    );
    let shown = env
        .run(&["resource", "show", "local/mono", "-o", "json"])
        .json();
    assert_ne!(shown["content_hash"].as_str().unwrap(), hash);
    let again = env.run(&["resource", "refresh", "local/mono"]);
    assert!(
        again.ok().contains(" 0 changed, 0 stale"),
        "{}",
        again.stdout
    );
}

#[test]
fn a_raised_python_exception_is_quoted_by_its_traceback_line_not_the_runtime() {
    let Some(env) = home() else { return };
    let mono = monorepo(&env);
    env.add(TYPE, "local/mono", &mono, &[]).ok();
    env.write("mono/package.json", "{\"name\": \"mono\",\n");

    // The error quotes the exception, not componentize-py's panic.
    let out = env.run(&["resource", "inspect", "local/mono"]);
    let stderr = out.refused(&[
        &format!("{HANDLER} trapped during inspect: ValueError: "),
        "package.json is not valid JSON: Expecting property name",
    ]);
    assert!(!stderr.contains("Python function threw"), "{stderr}");
    assert!(!stderr.contains("panicked at"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    // refresh says the same about content-hash, per resource.
    let refreshed = env.run(&["resource", "refresh", "local/mono"]);
    assert!(
        refreshed.ok().contains(&format!(
            "stale local/mono: {HANDLER} trapped during content-hash: ValueError: "
        )),
        "{}",
        refreshed.stdout
    );

    // -v: the whole traceback, once, labelled.
    let verbose = env.run(&["-v", "resource", "inspect", "local/mono"]);
    assert_eq!(verbose.code, 1, "{verbose:?}");
    let log = &verbose.stderr;
    let traceback = "[plugin] myteam.node:NodePackageHandler inspect stderr: \
                     Traceback (most recent call last):";
    assert_eq!(log.matches(traceback).count(), 1, "{log}");
    assert!(log.contains("in read_manifest"), "{log}");

    // -vv: the guest's stack, never the host's backtrace (which wasmtime
    // captures when RUST_BACKTRACE is set).
    let out = env
        .command()
        .env("RUST_BACKTRACE", "1")
        .args(["-vv", "resource", "inspect", "local/mono"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(log.matches(traceback).count(), 1, "{log}");
    assert!(log.contains("the guest's stack when it failed"), "{log}");
    // Big (~18 MB): Winch's code where the build has Winch, from the
    // cache `plugin add` compiled it into.
    let compiler = if Compiler::WINCH_AVAILABLE {
        "Winch"
    } else {
        "Cranelift"
    };
    let loaded =
        format!("handler module myteam.node loaded from the compile cache ({compiler} code)");
    assert!(log.contains(&loaded), "{log}");
    for host_frame in ["Stack backtrace", "tokio::runtime", "std::rt::lang_start"] {
        assert!(!log.contains(host_frame), "{host_frame} in {log}");
    }
}
