use super::*;

const IMAGE_CONFIG: &str = r#"{ "image": "mcr.microsoft.com/devcontainers/base:ubuntu", }"#;

#[test]
fn up_through_the_cli_passes_workspace_config_and_label_and_reads_the_id() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("next-id", "f00dfeed");
    bench.mark("image", "vsc-ws-1234");
    let req = bench.config(IMAGE_CONFIG);
    let container = bench.runtime().up(&req).unwrap();
    assert_eq!(
        container,
        Container {
            id: "f00dfeed".into(),
            image: "vsc-ws-1234".into(),
            tool: Tool::DevcontainerCli,
            workspace_folder: "/workspaces/ws".into(),
            created: true,
        }
    );
    let up = bench.calls_of("devcontainer", "up");
    assert_eq!(up.len(), 1);
    assert_eq!(
        args(&up[0]),
        [
            "up",
            "--workspace-folder",
            &path_str(&req.workspace),
            "--config",
            &path_str(&req.config),
            "--id-label",
            "agents.resource=01J0TEST",
            "--docker-path",
            &path_str(&bench.bin().join("docker")),
        ]
    );
    // The engine was asked what carried the label before, and the image.
    assert_eq!(
        args(&bench.calls_of("docker", "ps")[0]),
        [
            "ps",
            "-a",
            "-q",
            "--no-trunc",
            "--filter",
            "label=agents.resource=01J0TEST"
        ]
    );
    assert_eq!(
        args(&bench.calls_of("docker", "container")[0]),
        [
            "container",
            "inspect",
            "-f",
            "{{.Config.Image}}",
            "f00dfeed"
        ]
    );
    // Nothing was built or run by hand.
    assert!(bench.calls_of("docker", "run").is_empty());
}

#[test]
fn an_existing_container_is_found_again_not_created() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("containers", "0123abcd\n");
    let req = bench.config(IMAGE_CONFIG);
    let container = bench.runtime().up(&req).unwrap();
    assert_eq!(container.id, "0123abcd");
    assert!(!container.created);
}

#[test]
fn an_error_outcome_reports_its_message_and_removes_what_that_up_made() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("next-id", "badc0ffee");
    bench.mark(
        "out-devcontainer-up",
        r#"{"outcome":"error","message":"Command failed: /bin/sh -c npm ci","description":"The postCreateCommand failed.","containerId":"badc0ffee"}"#,
    );
    bench.mark(
        "fail-devcontainer-up",
        "npm ERR! missing package-lock.json\x1b[31m\n",
    );
    let req = bench.config(IMAGE_CONFIG);
    let err = bench.runtime().up(&req).unwrap_err();
    let DevcontainerError::Tool { stderr, status, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(status.contains('1'), "{status}");
    assert!(
        stderr.contains("Command failed: /bin/sh -c npm ci"),
        "{stderr}"
    );
    assert!(stderr.contains("The postCreateCommand failed."), "{stderr}");
    // The log's tail, escaped: no terminal escape gets through.
    assert!(
        stderr.contains("missing package-lock.json\\u{1b}[31m"),
        "{stderr}"
    );
    let rm = bench.calls_of("docker", "rm");
    assert_eq!(rm.len(), 1, "{:?}", bench.calls());
    assert_eq!(args(&rm[0]), ["rm", "-f", "badc0ffee"]);
    assert!(bench.containers().is_empty());
}

#[test]
fn a_failed_up_leaves_a_container_that_existed_before() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("containers", "0ld\n");
    bench.mark("fail-devcontainer-up", "Error: spawn docker ENOENT\n");
    bench.mark("next-id", "n3w");
    let req = bench.config(IMAGE_CONFIG);
    let err = bench.runtime().up(&req).unwrap_err();
    assert!(err.to_string().contains("spawn docker ENOENT"), "{err}");
    // Only what this up made is removed.
    assert_eq!(bench.containers(), ["0ld"]);
    let rm = bench.calls_of("docker", "rm");
    assert_eq!(
        rm.iter().map(|c| args(c)).collect::<Vec<_>>(),
        [["rm", "-f", "n3w"]]
    );
}

#[test]
fn an_answer_without_its_json_line_is_unexpected() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("out-devcontainer-up", "Usage: devcontainer <command>\n");
    let err = bench.runtime().up(&bench.config(IMAGE_CONFIG)).unwrap_err();
    assert!(
        matches!(err, DevcontainerError::Unexpected { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Usage: devcontainer"), "{err}");
}

#[test]
fn rebuild_through_the_cli_removes_the_existing_container() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark("containers", "0ld\n");
    bench.mark("next-id", "n3w");
    let req = bench.config(IMAGE_CONFIG);
    let container = bench.runtime().rebuild(&req).unwrap();
    assert_eq!((container.id.as_str(), container.created), ("n3w", true));
    let up = bench.calls_of("devcontainer", "up");
    assert_eq!(up[0].last().unwrap(), "--remove-existing-container");
    assert_eq!(bench.containers(), ["n3w"]);
}

#[test]
fn the_cli_runs_on_podman_when_podman_is_the_engine() {
    let bench = Bench::new(&["devcontainer", "podman"]);
    let runtime = bench.runtime();
    runtime.up(&bench.config(IMAGE_CONFIG)).unwrap();
    let up = bench.calls_of("devcontainer", "up");
    let argv = args(&up[0]);
    let at = argv.iter().position(|a| *a == "--docker-path").unwrap();
    assert_eq!(argv[at + 1], path_str(&bench.bin().join("podman")));
    // The state questions go to podman too.
    assert!(runtime.is_running("0123abcd").unwrap());
    assert!(!bench.calls_of("podman", "container").is_empty());
}
