//! The direct mode's argv: what docker is asked to build, run and exec.

use super::*;
use crate::devcontainer::direct::KEEP_ALIVE;

fn hash_label(req: &UpRequest) -> String {
    format!("agents.config-hash={}", config_hash(req))
}

fn mount(bench: &Bench) -> String {
    format!(
        "type=bind,source={},target=/workspaces/ws",
        path_str(&bench.workspace())
    )
}

#[test]
fn up_with_an_image_runs_it_labelled_mounted_and_kept_alive() {
    let bench = Bench::new(&["docker"]);
    let req = bench.config(r#"{"image": "alpine:3.20"}"#);
    let container = bench.runtime().up(&req).unwrap();
    assert_eq!(
        container,
        Container {
            id: "0123abcd".into(),
            image: "alpine:3.20".into(),
            tool: Tool::Docker,
            workspace_folder: "/workspaces/ws".into(),
            created: true,
        }
    );
    let run = bench.calls_of("docker", "run");
    assert_eq!(
        args(&run[0]),
        [
            "run",
            "-d",
            "--label",
            "agents.resource=01J0TEST",
            "--label",
            &hash_label(&req),
            "--mount",
            &mount(&bench),
            "-w",
            "/workspaces/ws",
            "--entrypoint",
            "/bin/sh",
            "alpine:3.20",
            "-c",
            KEEP_ALIVE,
            "-",
        ]
    );
    assert!(bench.calls_of("docker", "build").is_empty());
    assert!(bench.calls_of("docker", "exec").is_empty());
}

#[test]
fn the_keep_alive_is_the_dev_containers_clis() {
    assert_eq!(
        KEEP_ALIVE,
        "echo Container started\ntrap \"exit 0\" 15\n\nexec \"$@\"\nwhile sleep 1 & wait $!; do :; done"
    );
}

#[test]
fn up_with_a_dockerfile_builds_it_with_its_args_and_runs_the_tag() {
    let bench = Bench::new(&["docker"]);
    bench.file(".devcontainer/Dockerfile", "FROM alpine:3.20\nARG V\n");
    let req = bench.config(
        r#"{
        "build": {
            "dockerfile": "Dockerfile",
            "context": "..",
            "args": {"V": "1.2", "W": "${localWorkspaceFolderBasename}"},
        },
        "overrideCommand": false,
    }"#,
    );
    let hash = config_hash(&req);
    let tag = format!("agents-devcontainer-{}", &hash[..12]);
    let container = bench.runtime().up(&req).unwrap();
    assert_eq!(container.image, tag);
    let build = bench.calls_of("docker", "build");
    // The Dockerfile the host checked, handed on stdin: docker reads no
    // file of the repository's again.
    assert_eq!(bench.read("stdin-build"), "FROM alpine:3.20\nARG V\n");
    assert_eq!(
        args(&build[0]),
        [
            "build",
            "-f",
            "-",
            "-t",
            &tag,
            "--build-arg",
            "V=1.2",
            "--build-arg",
            "W=ws",
            &path_str(&bench.workspace()),
        ]
    );
    // overrideCommand false: the image's own command, no keep-alive.
    let run = bench.calls_of("docker", "run");
    assert_eq!(args(&run[0]).last().unwrap(), &tag);
    assert!(!args(&run[0]).contains(&"--entrypoint"));
}

#[test]
fn container_env_user_and_run_args_reach_docker_run_with_variables_replaced() {
    let bench = Bench::new(&["docker"]);
    let req = bench.config(
        r#"{
        "image": "alpine:3.20",
        "workspaceFolder": "/src/${localWorkspaceFolderBasename}",
        "workspaceMount": "source=${localWorkspaceFolder},target=/src/ws,type=bind",
        "containerEnv": {"A": "1", "WS": "${containerWorkspaceFolder}"},
        "containerUser": "dev",
        "runArgs": ["--cap-add=SYS_PTRACE", "--network=none"],
    }"#,
    );
    let container = bench.runtime().up(&req).unwrap();
    assert_eq!(container.workspace_folder, "/src/ws");
    let run = &bench.calls_of("docker", "run")[0];
    let argv = args(run);
    let at = argv.iter().position(|a| *a == "--mount").unwrap();
    assert_eq!(
        argv[at..at + 13],
        [
            "--mount",
            &format!(
                "source={},target=/src/ws,type=bind",
                path_str(&bench.workspace())
            ),
            "-w",
            "/src/ws",
            "-e",
            "A=1",
            "-e",
            "WS=/src/ws",
            "-u",
            "dev",
            "--cap-add=SYS_PTRACE",
            "--network=none",
            "--entrypoint",
        ]
    );
}

#[test]
fn post_create_strings_run_under_sh_and_arrays_as_they_are() {
    let bench = Bench::new(&["docker"]);
    let req = bench.config(
        r#"{"image": "alpine", "remoteUser": "vscode",
            "postCreateCommand": "npm ci && echo ${containerWorkspaceFolder}"}"#,
    );
    bench.runtime().up(&req).unwrap();
    let exec = bench.calls_of("docker", "exec");
    assert_eq!(
        exec.iter().map(|c| args(c)).collect::<Vec<_>>(),
        [[
            "exec",
            "-u",
            "vscode",
            "-w",
            "/workspaces/ws",
            "0123abcd",
            "/bin/sh",
            "-c",
            "npm ci && echo /workspaces/ws",
        ]]
    );

    let bench = Bench::new(&["docker"]);
    let req = bench.config(r#"{"image": "alpine", "postCreateCommand": ["make", "a b"]}"#);
    bench.runtime().up(&req).unwrap();
    let exec = bench.calls_of("docker", "exec");
    assert_eq!(
        args(&exec[0]),
        ["exec", "-w", "/workspaces/ws", "0123abcd", "make", "a b"]
    );

    // The object form: each, in name order.
    let bench = Bench::new(&["docker"]);
    let req = bench
        .config(r#"{"image": "alpine", "postCreateCommand": {"z": "echo z", "a": ["echo", "a"]}}"#);
    bench.runtime().up(&req).unwrap();
    let exec = bench.calls_of("docker", "exec");
    let tails: Vec<Vec<&str>> = exec.iter().map(|c| args(c)[4..].to_vec()).collect();
    assert_eq!(tails, [vec!["echo", "a"], vec!["/bin/sh", "-c", "echo z"]]);
}

#[test]
fn up_starts_a_stopped_container_with_the_label_instead_of_making_one() {
    let bench = Bench::new(&["docker"]);
    bench.mark("containers", "0ld\n");
    bench.mark("stopped-0ld", "");
    let req = bench.config(r#"{"image": "alpine", "postCreateCommand": "make"}"#);
    let runtime = bench.runtime();
    let container = runtime.up(&req).unwrap();
    assert_eq!((container.id.as_str(), container.created), ("0ld", false));
    assert_eq!(container.image, "img:1");
    assert_eq!(
        args(&bench.calls_of("docker", "start")[0]),
        ["start", "0ld"]
    );
    assert!(bench.calls_of("docker", "run").is_empty());
    assert!(bench.calls_of("docker", "exec").is_empty());
    assert!(runtime.is_running("0ld").unwrap());
}

#[test]
fn stop_remove_and_is_running_follow_the_container() {
    let bench = Bench::new(&["docker"]);
    let runtime = bench.runtime();
    let id = runtime
        .up(&bench.config(r#"{"image": "alpine"}"#))
        .unwrap()
        .id;
    assert!(runtime.is_running(&id).unwrap());
    runtime.stop(&id).unwrap();
    assert_eq!(runtime.state(&id).unwrap(), ContainerState::Stopped);
    assert!(!runtime.is_running(&id).unwrap());
    runtime.remove(&id).unwrap();
    assert_eq!(runtime.state(&id).unwrap(), ContainerState::Missing);
    assert!(!runtime.is_running(&id).unwrap());
    assert!(matches!(
        runtime.stop(&id),
        Err(DevcontainerError::NoSuchContainer { id: gone }) if gone == id
    ));
    assert!(matches!(
        runtime.remove(&id),
        Err(DevcontainerError::NoSuchContainer { .. })
    ));
    let calls = bench.calls();
    let asked: Vec<Vec<&str>> = calls.iter().map(|c| args(c)).collect();
    assert!(asked.contains(&vec![
        "container",
        "inspect",
        "-f",
        "{{.State.Running}}",
        "0123abcd"
    ]));
    assert!(asked.contains(&vec!["stop", "0123abcd"]));
    assert!(asked.contains(&vec!["rm", "-f", "0123abcd"]));
}

#[test]
fn rebuild_removes_the_labelled_container_then_makes_a_new_one() {
    let bench = Bench::new(&["docker"]);
    bench.mark("containers", "0ld\n");
    bench.mark("next-id", "n3w");
    let req = bench.config(r#"{"image": "alpine"}"#);
    let container = bench.runtime().rebuild(&req).unwrap();
    assert_eq!((container.id.as_str(), container.created), ("n3w", true));
    assert_eq!(
        args(&bench.calls_of("docker", "rm")[0]),
        ["rm", "-f", "0ld"]
    );
    assert_eq!(bench.containers(), ["n3w"]);
}

#[test]
fn only_the_workspace_variables_are_replaced() {
    use crate::devcontainer::direct::substitute;
    let vars = [
        ("localWorkspaceFolder", "/w"),
        ("containerWorkspaceFolder", "/c"),
    ];
    assert_eq!(
        substitute(
            "${localWorkspaceFolder}:${containerWorkspaceFolder}/x",
            &vars
        )
        .unwrap(),
        "/w:/c/x"
    );
    assert_eq!(
        substitute("$HOME ${ unclosed", &vars).unwrap(),
        "$HOME ${ unclosed"
    );
    assert_eq!(
        substitute("a ${localEnv:HOME} b", &vars).unwrap_err(),
        "localEnv:HOME"
    );
}
