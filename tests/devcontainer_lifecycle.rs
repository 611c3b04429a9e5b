//! The devcontainer lifecycle through the real binary, against stand-in
//! `docker` and `devcontainer` executables put first on `PATH` (these
//! machines have a docker client but no daemon). The stand-in logs every
//! argv and answers like the real tools (`src/devcontainer/tests/stand_in.sh`).

use crate::common::{Env, commit_all, stand_ins, tool_log as log};
use std::path::PathBuf;

fn repo(env: &Env, config: &str) -> PathBuf {
    let repo = env.mkdir("repo");
    env.write("repo/.devcontainer/devcontainer.json", config);
    env.write("repo/README.md", "# repo\n");
    commit_all(&repo);
    env.add("git-checkout", "local/my-repo", &repo, &[]).ok();
    repo
}

const DC: &str = "local/my-repo-devcontainer";

/// `agents resource trust DC --yes`: what a person does after reading
/// the summary (tests/devcontainer_trust.rs covers the decision itself).
fn trust(env: &Env) {
    env.run(&["resource", "trust", DC, "--yes"]).ok();
}

fn container(env: &Env) -> serde_json::Value {
    env.run(&["resource", "show", DC, "-o", "json"]).json()["container"].clone()
}

#[test]
fn a_devcontainer_starts_stops_and_rebuilds_through_docker() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = repo(
        &env,
        "{ \"image\": \"debian:12\", \"containerEnv\": { \"A\": \"1\" } }\n",
    );
    assert_eq!(container(&env)["state"], "detected");
    trust(&env);

    // The reference's commands; start is the lazy activation's first step.
    let started = env.run(&["resource", "start", DC, "-o", "json"]).json();
    assert_eq!(started["state"], "running", "{started}");
    assert_eq!(started["container_id"], "0123abcd");
    assert_eq!(started["tool"], "docker");
    let calls = log(&bin);
    assert!(calls.contains("docker run"), "{calls}");
    assert!(calls.contains("agents.resource="), "{calls}");
    assert!(
        calls.contains("debian:12") && calls.contains("A=1"),
        "{calls}"
    );

    // A second start finds it running and builds nothing.
    let runs = log(&bin).matches("docker run").count();
    env.run(&["resource", "start", DC]).ok();
    assert_eq!(log(&bin).matches("docker run").count(), runs);

    env.run(&["resource", "stop", DC]).ok();
    assert_eq!(container(&env)["state"], "stopped");
    assert!(log(&bin).contains("docker stop 0123abcd"), "{}", log(&bin));

    // devcontainer.json changed: show says so, rebuild brings it up to date.
    std::fs::write(
        repo.join(".devcontainer/devcontainer.json"),
        "{ \"image\": \"debian:13\" }\n",
    )
    .unwrap();
    assert_eq!(container(&env)["out_of_date"], true);
    let human = env.run(&["resource", "show", DC]);
    assert!(
        human.ok().contains(&format!(
            "changed since it was built: agents resource rebuild {DC}"
        )),
        "{}",
        human.stdout
    );
    // Its state is the container's (stopped), not discovery's `detected`.
    assert!(!human.stdout.contains("detected"), "{}", human.stdout);
    assert!(human.stdout.contains("state: stopped"), "{}", human.stdout);
    std::fs::write(bin.join("next-id"), "4567cdef\n").unwrap();
    // A changed configuration is trusted again before it is rebuilt.
    env.run(&["resource", "rebuild", DC])
        .refused(&["changed since", "agents resource trust"]);
    trust(&env);
    let rebuilt = env.run(&["resource", "rebuild", DC, "-o", "json"]).json();
    assert_eq!(rebuilt["state"], "running");
    assert_eq!(rebuilt["container_id"], "4567cdef");
    assert_eq!(rebuilt["out_of_date"], false);
    assert!(log(&bin).contains("docker rm"), "{}", log(&bin));
}

#[test]
fn a_failed_build_is_recorded_and_retryable() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    env.write("repo/.devcontainer/Dockerfile", "FROM debian\n");
    repo(
        &env,
        "{ \"build\": { \"dockerfile\": \"Dockerfile\" }, \"postCreateCommand\": \"echo hi\" }\n",
    );
    trust(&env);
    std::fs::write(
        bin.join("fail-docker-build"),
        "step 2/3: E: Unable to locate package nope\n",
    )
    .unwrap();
    env.run(&["resource", "start", DC])
        .refused(&["cannot start", "Unable to locate package"]);
    let state = container(&env);
    assert_eq!(state["state"], "failed", "{state}");
    assert!(
        state["last_error"]
            .as_str()
            .unwrap()
            .contains("Unable to locate"),
        "{state}"
    );

    std::fs::remove_file(bin.join("fail-docker-build")).unwrap();
    env.run(&["resource", "start", DC]).ok();
    let state = container(&env);
    assert_eq!(state["state"], "running", "{state}");
    assert!(state.get("last_error").is_none(), "{state}");
    assert!(
        log(&bin).contains("echo hi"),
        "postCreateCommand ran: {}",
        log(&bin)
    );
}

#[test]
fn the_dev_containers_cli_is_preferred_when_installed() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
    repo(
        &env,
        "{ \"image\": \"debian:12\", \"features\": { \"ghcr.io/x/y:1\": {} } }\n",
    );
    trust(&env);
    let started = env.run(&["resource", "start", DC, "-o", "json"]).json();
    assert_eq!(started["tool"], "devcontainer-cli", "{started}");
    let calls = log(&bin);
    assert!(
        calls.contains("devcontainer up --workspace-folder"),
        "{calls}"
    );
}

#[test]
fn the_router_activates_the_devcontainer_it_selects() {
    let mut env = Env::new();
    stand_ins(&mut env, &["docker"]);
    repo(&env, "{ \"image\": \"debian:12\" }\n");
    trust(&env);
    // Without --activate, resolve only answers.
    let r = env
        .run(&["env", "resolve", "local/my-repo", "-o", "json"])
        .json();
    assert_eq!(r["environment"]["name"], DC);
    assert_eq!(container(&env)["state"], "detected");
    let r = env
        .run(&[
            "env",
            "resolve",
            "local/my-repo",
            "--activate",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(r["container"]["state"], "running", "{r}");
    assert_eq!(container(&env)["state"], "running");
}

#[test]
fn without_a_container_runtime_activation_is_refused_saying_what_to_install() {
    let mut env = Env::new();
    // git and sh, but no docker, podman or devcontainer.
    let bin = env.mkdir("only-git");
    for tool in ["git", "sh"] {
        let found = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
        std::os::unix::fs::symlink(path, bin.join(tool)).unwrap();
    }
    env.vars
        .push(("PATH".to_owned(), bin.display().to_string()));
    repo(&env, "{ \"image\": \"debian:12\" }\n");
    trust(&env);
    env.run(&["resource", "start", DC])
        .refused(&["no container runtime", "@devcontainers/cli"]);
    assert_eq!(
        container(&env)["state"],
        "detected",
        "a refusal changes no state"
    );
    // Stopping what never started is no error (as `docker stop`), and
    // asks no engine: there is none here.
    let stop = env.run(&["resource", "stop", DC]);
    assert!(
        stop.ok().contains("is not running (state detected)"),
        "{}",
        stop.stdout
    );
    env.run(&["resource", "start", "local/my-repo"])
        .refused(&["devcontainer-instance"]);
}

#[test]
fn removing_a_resource_does_not_orphan_its_running_container() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = repo(&env, "{ \"image\": \"debian:12\" }\n");
    trust(&env);
    env.run(&["resource", "start", DC]).ok();

    // Refused while the engine holds it, naming it and the way out; the
    // dry run says so too, and nothing is removed.
    let dry = env
        .run(&[
            "resource",
            "remove",
            "--dry-run",
            "local/my-repo",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(
        dry["containers"][0],
        format!("{DC} (running, 0123abcd)"),
        "{dry}"
    );
    env.run(&["resource", "remove", "local/my-repo"]).refused(&[
        DC,
        "containers the engine still holds",
        "--force",
    ]);
    assert_eq!(container(&env)["state"], "running");
    assert!(!log(&bin).contains("docker rm"), "{}", log(&bin));

    // A refresh after `.devcontainer/` went would drop it: refused the
    // same way (the checkout is marked stale with the reason).
    std::fs::remove_dir_all(repo.join(".devcontainer")).unwrap();
    let refresh = env.run(&["resource", "refresh", "-o", "json"]).json();
    let stale = refresh["stale"].to_string();
    assert!(
        stale.contains("containers the engine still holds"),
        "{refresh}"
    );
    assert_eq!(container(&env)["state"], "running");

    // --force stops and removes it (saying so), then removes the rows.
    let forced = env.run(&["resource", "remove", "--force", "local/my-repo"]);
    forced.ok();
    assert!(
        forced
            .stderr
            .contains("stopped and removed container 0123abcd of local/my-repo-devcontainer"),
        "{}",
        forced.stderr
    );
    assert!(log(&bin).contains("docker rm -f 0123abcd"), "{}", log(&bin));
    env.run(&["resource", "show", DC])
        .refused(&["no resource named"]);
}
