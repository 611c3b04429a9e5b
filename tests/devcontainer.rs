//! Devcontainer detection through the real binary: a checkout or a
//! directory holding a devcontainer configuration has a
//! `devcontainer-instance` in the `detected` state, named beside it, with
//! what its configuration (JSON with comments) says; edits are followed
//! by `refresh`.

use crate::common;
use crate::common::{Env, git, git_repo};
use serde_json::Value;

fn show(env: &Env, name: &str) -> Value {
    env.run(&["resource", "show", name, "-o", "json"]).json()
}

fn of_type(env: &Env, ty: &str) -> Vec<Value> {
    env.run(&["resource", "list", "--type", ty, "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .clone()
}

const CONFIG: &str = r#"{
    // What the Dev Containers CLI reads: JSON with comments.
    "name": "api",
    "image": "mcr.microsoft.com/devcontainers/rust:1", /* pinned */
    "forwardPorts": [3000,],
}
"#;

#[test]
fn a_checkout_with_a_devcontainer_has_one_detected_beside_it() {
    let env = Env::new();
    let repo = env.path("my-repo");
    git_repo(&repo);
    std::fs::create_dir_all(repo.join(".devcontainer")).unwrap();
    std::fs::write(repo.join(".devcontainer/devcontainer.json"), CONFIG).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "devcontainer"]);
    env.add(
        "git-checkout",
        "local/my-repo",
        &repo,
        &["--branch", "main"],
    )
    .ok();
    // One, though the work tree is a directory that holds it too.
    let found = of_type(&env, "devcontainer-instance");
    assert_eq!(found.len(), 1, "{found:#?}");
    let dc = show(&env, "local/my-repo-devcontainer");
    assert_eq!(dc["properties"]["state"], "detected");
    assert_eq!(
        dc["properties"]["image"],
        "mcr.microsoft.com/devcontainers/rust:1"
    );
    assert_eq!(dc["properties"]["name"], "api");
    assert_eq!(
        dc["properties"]["config-path"],
        repo.join(".devcontainer/devcontainer.json")
            .to_str()
            .unwrap()
    );
    assert_eq!(
        dc["parents"],
        serde_json::json!([show(&env, "local/my-repo")["resource_id"]])
    );
    let tree = env.run(&["resource", "tree", "local/my-repo"]);
    assert!(
        tree.ok()
            .contains("local/my-repo-devcontainer (devcontainer-instance)")
    );
    // An edit is followed by refresh, even of a file already modified.
    std::fs::write(
        repo.join(".devcontainer/devcontainer.json"),
        CONFIG.replace("rust:1", "rust:2"),
    )
    .unwrap();
    env.run(&["resource", "refresh"]).ok();
    std::fs::write(
        repo.join(".devcontainer/devcontainer.json"),
        CONFIG.replace("rust:1", "rust:3"),
    )
    .unwrap();
    env.run(&["resource", "refresh"]).ok();
    assert_eq!(
        show(&env, "local/my-repo-devcontainer")["properties"]["image"],
        "mcr.microsoft.com/devcontainers/rust:3"
    );
    // It goes with the checkout.
    env.run(&["resource", "remove", "local/my-repo"]).ok();
    assert!(of_type(&env, "devcontainer-instance").is_empty());
}

#[test]
fn a_directory_with_a_root_config_has_one_and_loses_it_when_it_goes() {
    let env = Env::new();
    env.write(
        "cfg/.devcontainer.json",
        r#"{"build": {"dockerfile": "Dockerfile", "context": "."}}"#,
    );
    env.write("cfg/Dockerfile", "FROM debian\n");
    let cfg = env.path("cfg");
    env.add("fs-directory", "local/config-dir", &cfg, &[]).ok();
    let dc = show(&env, "local/config-dir-devcontainer");
    assert_eq!(dc["properties"]["dockerfile"], "Dockerfile");
    assert_eq!(dc["properties"]["build-context"], ".");
    // A configuration that does not parse is still detected, saying why.
    env.write("cfg/.devcontainer.json", "{ \"image\": ");
    env.run(&["resource", "refresh"]).ok();
    let dc = show(&env, "local/config-dir-devcontainer");
    assert!(
        dc["properties"]["config-error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{dc}"
    );
    // Gone from disk, gone from the registry.
    std::fs::remove_file(env.path("cfg/.devcontainer.json")).unwrap();
    let report = env.run(&["resource", "refresh", "-o", "json"]).json();
    let removed = common::sorted(&report["changed"][0]["removed"]);
    assert_eq!(
        removed,
        [
            "local/config-dir-devcontainer",
            "local/config-dir/.devcontainer.json"
        ]
    );
    assert!(of_type(&env, "devcontainer-instance").is_empty());
}
