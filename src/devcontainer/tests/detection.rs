use super::*;

const NO_DAEMON: &str = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n";

#[test]
fn nothing_on_the_path_says_to_install_the_cli_and_an_engine() {
    let bench = Bench::new(&[]);
    let found = detect(&bench.search_path());
    assert_eq!(
        (&found.devcontainer_cli, &found.docker, &found.podman),
        (&None, &None, &None)
    );
    assert_eq!(found.tool(), None);
    let err = found.runtime().unwrap_err();
    assert!(
        matches!(err, DevcontainerError::NoRuntime { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    for needle in [
        "npm install -g @devcontainers/cli",
        "Docker Engine",
        "Podman",
    ] {
        assert!(message.contains(needle), "{message}");
    }
    assert_eq!(found.problem(), Some(message));
}

#[test]
fn a_docker_client_without_its_daemon_is_present_but_not_running() {
    let bench = Bench::new(&["docker"]);
    bench.mark("fail-docker-version", NO_DAEMON);
    let found = detect(&bench.search_path());
    let docker = found.docker.clone().unwrap();
    assert_eq!(docker.path, bench.bin().join("docker"));
    let Status::NotReady { reason } = &docker.status else {
        panic!("{docker:?}")
    };
    assert!(
        reason.contains("Cannot connect to the Docker daemon"),
        "{reason}"
    );
    let err = found.runtime().unwrap_err();
    assert!(
        matches!(&err, DevcontainerError::EngineNotRunning { program, .. } if *program == docker.path),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("start the Docker daemon"), "{message}");
    assert!(
        message.contains("is installed but its engine does not answer"),
        "{message}"
    );
    assert!(found.to_string().contains("docker: installed ("), "{found}");
}

#[test]
fn the_devcontainer_cli_is_preferred_and_both_engines_are_probed() {
    let bench = Bench::new(&["devcontainer", "docker", "podman"]);
    let found = detect(&bench.search_path());
    let ready = |f: &Option<Found>, v: &str| {
        assert_eq!(
            f.as_ref().map(|f| f.status.clone()),
            Some(Status::Ready { version: v.into() })
        )
    };
    ready(&found.devcontainer_cli, "0.80.0");
    ready(&found.docker, "27.0.3");
    ready(&found.podman, "27.0.3");
    assert_eq!(found.tool(), Some(Tool::DevcontainerCli));
    let runtime = found.runtime().unwrap();
    assert_eq!(
        runtime.engine(),
        (bench.bin().join("docker").as_path(), Tool::Docker)
    );
    let calls = bench.calls();
    let argv: Vec<Vec<&str>> = calls
        .iter()
        .map(|c| c.iter().map(String::as_str).collect())
        .collect();
    assert!(
        argv.contains(&vec!["devcontainer", "--version"]),
        "{argv:?}"
    );
    for engine in ["docker", "podman"] {
        assert!(
            argv.contains(&vec![engine, "version", "--format", "{{.Server.Version}}"]),
            "{argv:?}"
        );
    }
}

#[test]
fn docker_comes_before_podman_and_podman_serves_alone() {
    let both = Bench::new(&["docker", "podman"]);
    assert_eq!(detect(&both.search_path()).tool(), Some(Tool::Docker));
    let podman = Bench::new(&["podman"]);
    assert_eq!(detect(&podman.search_path()).tool(), Some(Tool::Podman));
    // A docker without its daemon gives way to a podman that answers.
    let down = Bench::new(&["docker", "podman"]);
    down.mark("fail-docker-version", NO_DAEMON);
    assert_eq!(detect(&down.search_path()).tool(), Some(Tool::Podman));
}

#[test]
fn the_cli_uses_podman_when_docker_does_not_answer() {
    let bench = Bench::new(&["devcontainer", "docker", "podman"]);
    bench.mark("fail-docker-version", NO_DAEMON);
    let runtime = bench.runtime();
    assert_eq!(runtime.tool(), Tool::DevcontainerCli);
    assert_eq!(runtime.engine().1, Tool::Podman);
}

#[test]
fn the_cli_without_an_engine_says_to_install_one() {
    let bench = Bench::new(&["devcontainer"]);
    let message = detect(&bench.search_path()).problem().unwrap();
    assert!(
        message.contains("the Dev Containers CLI is installed"),
        "{message}"
    );
    assert!(message.contains("install Docker Engine"), "{message}");
}

#[test]
fn a_cli_that_does_not_answer_leaves_docker_in_charge() {
    let bench = Bench::new(&["devcontainer", "docker"]);
    bench.mark(
        "fail-devcontainer---version",
        "env: 'node': No such file or directory\n",
    );
    let found = detect(&bench.search_path());
    assert!(matches!(
        found.devcontainer_cli.as_ref().map(|f| &f.status),
        Some(Status::NotReady { reason }) if reason.contains("node")
    ));
    assert_eq!(found.tool(), Some(Tool::Docker));
}

#[test]
fn only_absolute_path_entries_are_searched() {
    let bench = Bench::new(&["docker"]);
    let relative = std::env::join_paths(["bin", "."]).unwrap();
    // Relative to the current directory, which is not the bench: nothing.
    assert_eq!(detect(&relative).docker, None);
    let mut both = OsString::from("relative:");
    both.push(bench.search_path());
    assert!(detect(&both).docker.is_some());
}
