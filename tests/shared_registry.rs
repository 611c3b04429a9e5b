//! One registry, several machines: the same test bodies run on SQLite (two
//! homes pointing at one registry file with `--registry sqlite://…`) and on
//! PostgreSQL (two homes, one schema) — see `common::backend`.
//!
//! Each "machine" is a home of its own (its plugin store, compile cache and
//! sandboxes) and, on PostgreSQL, an `AGENTS_MACHINE_ID` of its own.

use crate::common::{self, Env, wasm};

const TYPE_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/plugins/examples/python-package/python-package.yaml"
);

/// A second machine: its own home, the first one's registry.
fn second_machine(first: &Env) -> Env {
    let mut second = Env::new();
    let registry = match &first.postgres {
        Some(schema) => schema.url.clone(),
        None => format!("sqlite://{}", first.db().display()),
    };
    second.vars.retain(|(k, _)| k != "AGENTS_REGISTRY");
    second.vars.push(("AGENTS_REGISTRY".into(), registry));
    second
        .vars
        .push(("AGENTS_MACHINE_ID".into(), "machine-b-0000000000".into()));
    second
}

fn first_machine() -> Env {
    let mut env = Env::new();
    env.vars
        .push(("AGENTS_MACHINE_ID".into(), "machine-a-0000000000".into()));
    env
}

fn package(env: &Env, rel: &str) -> std::path::PathBuf {
    env.write(
        &format!("{rel}/pyproject.toml"),
        "[project]\nname = \"acme-tools\"\nversion = \"2.4.1\"\n",
    );
    env.write(&format!("{rel}/src/acme/__init__.py"), "");
    env.path(rel)
}

/// A plugin added on one machine runs on another: its bytes come from the
/// registry into the second home's store, verified, once.
#[test]
fn a_plugin_added_on_one_machine_runs_on_another() {
    let a = first_machine();
    a.run(&[
        "plugin",
        "add",
        wasm("python_package.wasm").to_str().unwrap(),
    ])
    .ok();
    a.run(&["resource", "type", "add", TYPE_FILE]).ok();

    let b = second_machine(&a);
    let stored = |env: &Env| -> Vec<String> {
        std::fs::read_dir(env.home.path().join("plugins"))
            .map(|dir| {
                dir.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".wasm"))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(stored(&b).is_empty(), "machine b has no copy yet");
    let pkg = package(&b, "pkg");
    b.add("myteam/python-package", "local/pkg", &pkg, &[]).ok();
    let shown = b
        .run(&["resource", "show", "local/pkg", "-o", "json"])
        .json();
    assert_eq!(shown["properties"]["version"], "2.4.1");
    assert_eq!(stored(&b), stored(&a), "b fetched the same component");

    // A copy that was tampered with is refused on load, naming both hashes.
    let name = &stored(&b)[0];
    let file = b.home.path().join("plugins").join(name);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&file, bytes).unwrap();
    b.run(&["resource", "inspect", "local/pkg"])
        .refused(&["myteam.python", "sha256"]);
}

/// A resource's location is a path on the machine that registered it: on
/// a shared (PostgreSQL) registry another machine sees it but does not run
/// its handler, sandbox it or discover below it. A SQLite home does not
/// tell machines apart, so nothing changes there.
#[test]
fn locations_belong_to_the_machine_that_registered_them() {
    let a = first_machine();
    let dir = a.mkdir("project");
    a.write("project/README.md", "hello\n");
    a.add("fs-directory", "local/project", &dir, &[]).ok();

    let b = second_machine(&a);
    // What anyone may do.
    b.run(&["resource", "list"]).ok();
    b.run(&["resource", "show", "local/project"]).ok();
    b.run(&["resource", "tree", "local/project"]).ok();

    let handled = [
        vec!["resource", "inspect", "local/project"],
        vec!["resource", "discover", "local/project"],
        vec!["resource", "refresh", "local/project"],
        vec!["sandbox", "create", "local/project"],
    ];
    for args in &handled {
        let out = b.run(args);
        if common::backend() == "postgres" {
            let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_owned())
                .unwrap_or_default();
            out.refused(&[
                "local/project is at a location on",
                "machine id machine-a-00",
                "not on this machine",
                &hostname,
            ]);
        } else {
            out.ok();
        }
    }
    // On its own machine all of it works.
    a.run(&["resource", "inspect", "local/project"]).ok();
    a.run(&["resource", "refresh", "local/project"]).ok();
}
