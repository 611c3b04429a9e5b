//! The host's own reading of a configuration checked against the real
//! tools': the Dev Containers CLI's `read-configuration` (its variables
//! resolved, the workspace folder and mount it chooses) and Docker
//! Compose's `config` (services, builds, binds, privileges of a project
//! with overrides, `extends` from another folder, `env_file`s). Where they
//! differ, a consent could cover another container than the one that runs.

use crate::common::{Env, commit_all, docker_compose, real_cli_on_stand_in_engine};
use resource_host::devcontainer::{Checked, Mode, UpRequest};
use serde_json::Value;
use std::ffi::OsString;
use std::path::Path;

const LABEL: &str = "agents.resource=01J0TEST";

/// What the CLI's `read-configuration` answers for `config`, run with
/// exactly `vars` (as the host runs it).
fn read_configuration(
    bin: &Path,
    workspace: &Path,
    config: &Path,
    vars: &[(OsString, OsString)],
) -> Value {
    let out = std::process::Command::new(bin.join("devcontainer"))
        .env_clear()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .arg("read-configuration")
        .arg("--workspace-folder")
        .arg(workspace)
        .arg("--config")
        .arg(config)
        .args(["--id-label", LABEL, "--docker-path"])
        .arg(bin.join("docker"))
        .current_dir(workspace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_hosts_resolution_of_variables_is_the_clis() {
    let mut env = Env::new();
    let Some(bin) = real_cli_on_stand_in_engine(&mut env, "the_hosts_resolution_of_variables…")
    else {
        return;
    };
    let repo = env.mkdir("my repo");
    env.write("my repo/README.md", "x\n");
    let workspace = env.mkdir("my repo/sub");
    commit_all(&repo);
    let vars: Vec<(OsString, OsString)> = vec![
        (
            "PATH".into(),
            format!("{}:/usr/bin:/bin", bin.display()).into(),
        ),
        ("HOME".into(), "/home/someone".into()),
        ("TAG".into(), "2.1".into()),
    ];
    for config in [
        r#"{"image": "img:${localEnv:TAG:1}",
            "containerEnv": {"A": "${localEnv:HOME}", "B": "${localEnv:NOPE}",
                "C": "${localEnv:NOPE:dflt:x}", "D": "${containerEnv:PATH}",
                "E": "${containerWorkspaceFolder}|${containerWorkspaceFolderBasename}",
                "F": "${localWorkspaceFolder}|${localWorkspaceFolderBasename}",
                "G": "${env:HOME}", "H": "${a${localEnv:HOME}", "I": "$${localEnv:HOME}",
                "J": "${unknown:x}", "K": "${localEnv:TAG}${localEnv:TAG}"},
            "mounts": ["source=${localWorkspaceFolder}/../cache,target=/c,type=bind"],
            "initializeCommand": ["true", "${localWorkspaceFolder}/x.sh"],
            "${localEnv:HOME}": "a key is never replaced"}"#,
        r#"{"image": "a", "workspaceFolder": "/src/${localWorkspaceFolderBasename}",
            "remoteEnv": {"E": "${containerWorkspaceFolder}"}}"#,
        r#"{"image": "a", "workspaceMount": "", "workspaceFolder": "/w", "postCreateCommand": "echo ${containerWorkspaceFolderBasename}"}"#,
        r#"{"dockerComposeFile": "c.yml", "service": "app", "containerEnv": {"E": "${containerWorkspaceFolder}"}}"#,
        r#"{"build": {"dockerfile": "${localWorkspaceFolder}/Dockerfile", "context": "${localWorkspaceFolder}/..", "args": {"H": "${localEnv:HOME}"}}}"#,
    ] {
        env.write("my repo/sub/.devcontainer/devcontainer.json", config);
        env.write(
            "my repo/sub/.devcontainer/c.yml",
            "services: {app: {image: a}}\n",
        );
        env.write("my repo/sub/Dockerfile", "FROM a\n");
        let config_path = workspace.join(".devcontainer/devcontainer.json");
        let req = UpRequest {
            workspace: workspace.clone(),
            config: config_path.clone(),
            repository: repo.clone(),
            id_label: LABEL.into(),
            private_dir: None,
        };
        let host = Checked::load_with(&req, &vars).unwrap_or_else(|e| panic!("{config}: {e}"));
        let cli = read_configuration(&bin, &workspace, &config_path, &vars);
        let mut theirs = cli["configuration"].clone();
        theirs.as_object_mut().unwrap().remove("configFilePath");
        assert_eq!(host.json, theirs, "{config}");
        assert_eq!(
            host.container_workspace,
            cli["workspace"]["workspaceFolder"].as_str().unwrap(),
            "{config}"
        );
        if let Some(mount) = cli["workspace"]["workspaceMount"]
            .as_str()
            .filter(|m| !m.is_empty())
        {
            let source = format!("source={},", host.mount_source.display());
            assert!(mount.contains(&source), "{config}: {mount} vs {source}");
            assert!(
                mount.contains(&format!("target={}", host.mount_target)),
                "{mount}"
            );
        }
    }
}

#[test]
fn the_hosts_reading_of_a_compose_project_agrees_with_docker_compose() {
    let Some(compose) = docker_compose("the_hosts_reading_of_a_compose_project…") else {
        return;
    };
    let env = Env::new();
    let repo = env.mkdir("repo");
    env.write("repo/README.md", "x\n");
    env.write(
        "repo/.devcontainer/docker-compose.yml",
        "services:\n  app:\n    extends: {file: ../base/common.yml, service: base}\n    image: debian:12\n    env_file: ./app.env\n    pid: host\n    volumes: [\"/:/host\", \"./:/ws\", \"..:/up\", \"cache:/cache\"]\n    build:\n      context: ../ctx\n      dockerfile: Dockerfile.dev\n  db:\n    image: postgres:16\n    build: ./dbctx\nvolumes:\n  cache: {}\n",
    );
    env.write(
        "repo/.devcontainer/docker-compose.override.yml",
        "services:\n  db:\n    privileged: true\n    volumes: [\"./data:/data\"]\n",
    );
    env.write(
        "repo/base/common.yml",
        "services:\n  base:\n    env_file: base.env\n    volumes: [\"./data:/data\"]\n    cap_add: [SYS_ADMIN]\n",
    );
    env.write("repo/.devcontainer/app.env", "A=1\n");
    env.write("repo/base/base.env", "B=2\n");
    env.write("repo/ctx/Dockerfile.dev", "FROM debian\n");
    env.write("repo/.devcontainer/dbctx/Dockerfile", "FROM postgres\n");
    env.write(
        "repo/.devcontainer/devcontainer.json",
        r#"{"dockerComposeFile": ["docker-compose.yml", "docker-compose.override.yml"], "service": "app"}"#,
    );
    commit_all(&repo);
    let dc = repo.join(".devcontainer");
    let req = UpRequest {
        workspace: repo.clone(),
        config: dc.join("devcontainer.json"),
        repository: repo.clone(),
        id_label: LABEL.into(),
        private_dir: None,
    };
    let host = Checked::load(&req).unwrap();
    let Mode::Compose(project) = &host.mode else {
        panic!("{:?}", host.mode)
    };

    // compose 1.29 answers YAML.
    let out = std::process::Command::new(&compose)
        .arg("-f")
        .arg(dc.join("docker-compose.yml"))
        .arg("-f")
        .arg(dc.join("docker-compose.override.yml"))
        .arg("config")
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let yaml: serde_yaml::Value = serde_yaml::from_slice(&out.stdout).unwrap();
    let theirs = serde_json::to_value(yaml).unwrap();
    let services = theirs["services"].as_object().unwrap();
    let names: Vec<&String> = services.keys().collect();
    assert_eq!(project.services.iter().collect::<Vec<_>>(), names);
    for (name, service) in services {
        // The same build: context and Dockerfile.
        if let Some(build) = service.get("build") {
            let context = build["context"].as_str().unwrap();
            let dockerfile = build["dockerfile"].as_str().unwrap_or("Dockerfile");
            let want = (
                name.clone(),
                context.to_owned(),
                Path::new(context).join(dockerfile).display().to_string(),
            );
            assert!(
                project.builds.contains(&want),
                "{want:?} not in {:?}",
                project.builds
            );
        }
        // Every bind compose makes, the host shows.
        for volume in service["volumes"].as_array().into_iter().flatten() {
            let source = match volume {
                Value::String(s) => s.split(':').next().unwrap().to_owned(),
                Value::Object(m) => m["source"].as_str().unwrap_or("").to_owned(),
                _ => continue,
            };
            if source.starts_with('/') {
                let bind = (name.clone(), source);
                assert!(
                    project.binds.contains(&bind),
                    "{bind:?} not in {:?}",
                    project.binds
                );
            }
        }
        // And every privilege.
        let grants: Vec<&str> = project
            .grants
            .iter()
            .filter(|g| &g.service == name)
            .map(|g| g.text.as_str())
            .collect();
        if service.get("privileged") == Some(&Value::Bool(true)) {
            assert!(
                grants.iter().any(|g| g.starts_with("privileged")),
                "{name}: {grants:?}"
            );
        }
        if service.get("pid").and_then(Value::as_str) == Some("host") {
            assert!(
                grants.iter().any(|g| g.starts_with("pid: host")),
                "{name}: {grants:?}"
            );
        }
        for cap in service["cap_add"].as_array().into_iter().flatten() {
            let text = format!("cap_add: the Linux capability {}", cap.as_str().unwrap());
            assert!(grants.contains(&text.as_str()), "{name}: {grants:?}");
        }
    }
    // The files compose read are the ones the digest covers.
    for rel in [
        "base/common.yml",
        "base/base.env",
        ".devcontainer/app.env",
        "ctx/Dockerfile.dev",
    ] {
        assert!(
            host.files.iter().any(|f| f.path == rel),
            "{rel} not covered"
        );
    }
}
