//! Plugins through a real OCI registry: Debian's
//! `docker-registry` (CNCF Distribution 2.8) started by
//! `scripts/test-registry.sh start`, named by `AGENTS_TEST_REGISTRY`
//! (open), `AGENTS_TEST_REGISTRY_AUTH` (htpasswd basic auth) and
//! `AGENTS_TEST_REGISTRY_STORAGE`. Without them each test says SKIPPED
//! and passes, unless `CI` is set (then it fails).
//!
//! Every test pushes to its own repository (`t<n>/…`), so they run side
//! by side on one registry.

use crate::common::{self, Env, Run, wasm};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The registries, or `None` after saying SKIPPED.
struct Registry {
    open: String,
    auth: String,
    storage: PathBuf,
}

fn registry(test: &str) -> Option<Registry> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        var("AGENTS_TEST_REGISTRY"),
        var("AGENTS_TEST_REGISTRY_AUTH"),
        var("AGENTS_TEST_REGISTRY_STORAGE"),
    ) {
        (Some(open), Some(auth), Some(storage)) => Some(Registry {
            open,
            auth,
            storage: storage.into(),
        }),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test} needs a registry: eval \"$(scripts/test-registry.sh start)\""
            );
            common::skipped(
                test,
                "no test registry; eval \"$(scripts/test-registry.sh start)\" runs them",
            );
            None
        }
    }
}

/// A repository name of its own for each call.
fn repo(reg: &Registry, name: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}/t{}-{}/{name}",
        reg.open,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `agents ARGS…` in `env` with no docker config or registry variables
/// of the machine's, and `extra` variables.
fn run(env: &Env, args: &[&str], extra: &[(&str, &str)]) -> Run {
    let mut cmd = env.command();
    cmd.env("DOCKER_CONFIG", env.path("no-docker"));
    for k in [
        "AGENTS_REGISTRY_TOKEN",
        "AGENTS_REGISTRY_USERNAME",
        "AGENTS_REGISTRY_PASSWORD",
    ] {
        cmd.env_remove(k);
    }
    cmd.envs(extra.iter().copied());
    Run::from(cmd.args(args).output().unwrap())
}

fn example() -> String {
    wasm("python_package.wasm").display().to_string()
}

/// A publisher's home with key `team`; answers it and the public key.
fn new_publisher() -> (Env, String) {
    let env = Env::new();
    let key = run(&env, &["plugin", "key", "new", "team", "-o", "json"], &[]).json();
    (env, key["public_key"].as_str().unwrap().to_owned())
}

/// A fresh home that trusts `public_key` for `prefix`.
fn trusting(public_key: &str, prefix: &str) -> Env {
    let env = Env::new();
    run(
        &env,
        &["plugin", "key", "trust", public_key, "--for", prefix],
        &[],
    )
    .ok();
    env
}

fn push(env: &Env, file: &str, reference: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["plugin", "push", file, reference, "-o", "json"];
    args.extend_from_slice(extra);
    run(env, &args, &[]).json()
}

/// The faulty fixture (class `Healthy`) carrying `type_yaml`, written
/// into `env`'s scratch as `name`.
fn packed_faulty(env: &Env, name: &str, type_yaml: &str) -> String {
    let types = env.write(&format!("{name}.yaml"), type_yaml);
    let out = env.path(&format!("{name}.wasm"));
    run(
        env,
        &[
            "plugin",
            "pack",
            wasm("faulty.wasm").to_str().unwrap(),
            "--types",
            types.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    out.display().to_string()
}

const HEALTHY_V1: &str = "name: test/healthy\nresource_kind: physical\nuser_addable: true\n\
    cli_args:\n  - {name: path, type: path, required: true}\n\
    child_types: [fs-directory]\nhandler: test.faulty:Healthy\n";

fn plugin_modules(env: &Env) -> Vec<String> {
    run(env, &["plugin", "list", "-o", "json"], &[])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["built_in"] == false)
        .map(|p| p["module"].as_str().unwrap().to_owned())
        .collect()
}

mod install;
mod network;
mod over_mcp;
mod refusals;
mod versions;
