//! What goes wrong in the direct mode: failing steps leave nothing
//! behind, deadlines kill, refusals name what to do.

use super::*;
use std::time::Duration;

#[test]
fn a_failing_build_returns_its_stderr_and_leaves_no_container() {
    let bench = Bench::new(&["docker"]);
    bench.file(".devcontainer/Dockerfile", "FROM alpine\nRUN false\n");
    bench.mark(
        "fail-docker-build",
        "#5 [2/2] RUN false\nERROR: process \"/bin/sh -c false\" did not complete successfully: exit code: 1\n",
    );
    let req = bench.config(r#"{"build": {"dockerfile": "Dockerfile"}}"#);
    let err = bench.runtime().up(&req).unwrap_err();
    let DevcontainerError::Tool {
        program,
        args: shown,
        stderr,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(program.ends_with("/docker"), "{program}");
    assert!(shown.starts_with("build -f "), "{shown}");
    assert!(
        stderr.contains("did not complete successfully: exit code: 1"),
        "{stderr}"
    );
    // One line: the line feed is escaped.
    assert!(stderr.contains("RUN false\\nERROR"), "{stderr}");
    assert!(bench.calls_of("docker", "run").is_empty());
    assert!(bench.calls_of("docker", "rm").is_empty());
    assert!(bench.containers().is_empty());
}

#[test]
fn a_failing_post_create_removes_the_container_it_ran_in() {
    let bench = Bench::new(&["docker"]);
    bench.mark("fail-docker-exec", "sh: npm: not found\n");
    let req = bench.config(r#"{"image": "alpine", "postCreateCommand": "npm ci"}"#);
    let err = bench.runtime().up(&req).unwrap_err();
    assert!(err.to_string().contains("sh: npm: not found"), "{err}");
    let rm = bench.calls_of("docker", "rm");
    assert_eq!(args(&rm[0]), ["rm", "-f", "0123abcd"]);
    assert!(bench.containers().is_empty());
}

#[test]
fn a_failing_run_removes_the_container_the_engine_left_behind() {
    let bench = Bench::new(&["docker"]);
    bench.mark(
        "fail-docker-run",
        "docker: Error response from daemon: failed to create task: exec: \"/bin/sh\": no such file\n",
    );
    let err = bench
        .runtime()
        .up(&bench.config(r#"{"image": "scratch-ish"}"#))
        .unwrap_err();
    assert!(err.to_string().contains("failed to create task"), "{err}");
    assert_eq!(
        args(&bench.calls_of("docker", "rm")[0]),
        ["rm", "-f", "0123abcd"]
    );
    assert!(bench.containers().is_empty());
}

#[test]
fn an_engine_that_stops_answering_is_an_error_not_a_stopped_container() {
    let bench = Bench::new(&["docker"]);
    let runtime = bench.runtime();
    bench.mark(
        "fail-docker-inspect",
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
    );
    let err = runtime.is_running("0123abcd").unwrap_err();
    assert!(
        matches!(err, DevcontainerError::EngineNotRunning { .. }),
        "{err:?}"
    );
    bench.mark(
        "fail-docker-inspect",
        "permission denied while trying to connect\n",
    );
    let err = runtime.is_running("0123abcd").unwrap_err();
    assert!(matches!(err, DevcontainerError::Tool { .. }), "{err:?}");
}

#[test]
fn a_tool_past_its_deadline_is_killed_with_what_it_started() {
    let bench = Bench::new(&["docker"]);
    let runtime = bench.runtime().with_timeouts(Timeouts {
        up: Duration::from_secs(30),
        quick: Duration::from_secs(5),
    });
    bench.mark("hang-docker-stop", "");
    let err = runtime.stop("0123abcd").unwrap_err();
    let DevcontainerError::Timeout { limit, args, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (*limit, args.as_str()),
        (Duration::from_secs(5), "stop 0123abcd")
    );
    assert!(
        err.to_string().contains("did not finish within 5s"),
        "{err}"
    );
    // The stand-in and its `sleep` (same process group) were killed. A
    // killed process closes its pipes (which is what the call waited
    // for) a moment before it becomes a zombie, and on a loaded machine
    // that moment is visible: wait for it, up to 10 s.
    for file in ["hang.pid", "sleep.pid"] {
        let pid = bench.read(file).trim().to_owned();
        assert!(!pid.is_empty(), "{file} was not written");
        let gone = || {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next()
                .map(str::to_owned);
            (
                matches!(state.as_deref(), None | Some("Z") | Some("X")),
                stat,
            )
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut last = gone();
        while !last.0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            last = gone();
        }
        assert!(last.0, "{file} still alive: {}", last.1);
    }
}

#[test]
fn what_only_the_cli_can_do_is_refused_by_name() {
    let bench = Bench::new(&["docker"]);
    let req = bench.config(
        r#"{"image": "alpine", "features": {"ghcr.io/devcontainers/features/node:1": {}},
            "mounts": [], "customizations": {"vscode": {}}, "forwardPorts": [3000]}"#,
    );
    let err = bench.runtime().up(&req).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, DevcontainerError::Config { .. }), "{err:?}");
    assert!(message.contains("\"features\", \"mounts\""), "{message}");
    assert!(
        message.contains("npm install -g @devcontainers/cli"),
        "{message}"
    );
    assert!(!message.contains("customizations"), "{message}");

    bench.file(
        ".devcontainer/compose.yml",
        "services: {app: {image: alpine}}\n",
    );
    let req = bench.config(r#"{"dockerComposeFile": "compose.yml", "service": "app"}"#);
    let message = bench.runtime().up(&req).unwrap_err().to_string();
    assert!(
        message.contains("\"dockerComposeFile\", \"service\""),
        "{message}"
    );

    // A variable resolved only inside the container: docker alone cannot.
    let req =
        bench.config(r#"{"image": "alpine", "containerEnv": {"T": "${containerEnv:TOKEN}"}}"#);
    let message = bench.runtime().up(&req).unwrap_err().to_string();
    assert!(
        message.contains("containerEnv.T uses ${containerEnv:TOKEN}"),
        "{message}"
    );
    assert!(bench.calls_of("docker", "run").is_empty());
}

#[test]
fn the_hosts_variables_are_those_the_runtime_was_handed() {
    let bench = Bench::new(&["docker"]);
    let runtime = detect_with(
        &bench.search_path(),
        &[("TOKEN".into(), "s3cret".into())],
        Timeouts::default().quick,
    )
    .runtime()
    .unwrap();
    let req = bench.config(
        r#"{"image": "alpine", "containerEnv": {"T": "${localEnv:TOKEN}", "U": "${localEnv:NOPE:dflt}"}}"#,
    );
    runtime.up(&req).unwrap();
    let run = bench.calls_of("docker", "run");
    let argv = args(&run[0]);
    assert!(
        argv.contains(&"T=s3cret") && argv.contains(&"U=dflt"),
        "{argv:?}"
    );
}

#[test]
fn malformed_requests_and_ids_are_refused_before_any_tool_runs() {
    let bench = Bench::new(&["docker"]);
    let runtime = bench.runtime();
    bench.forget_calls();
    for id in ["-rf", "", "a b", "../x"] {
        let err = runtime.stop(id).unwrap_err();
        assert!(
            matches!(err, DevcontainerError::Request(_)),
            "{id}: {err:?}"
        );
    }
    let mut req = bench.config(r#"{"image": "alpine"}"#);
    req.id_label = "no-equals-sign".into();
    assert!(matches!(
        runtime.up(&req),
        Err(DevcontainerError::Request(_))
    ));
    req.id_label = "agents.config-hash=x".into();
    assert!(matches!(
        runtime.up(&req),
        Err(DevcontainerError::Request(_))
    ));
    req.id_label = "agents.resource=1".into();
    req.workspace = "ws".into();
    assert!(matches!(
        runtime.up(&req),
        Err(DevcontainerError::Request(_))
    ));
    assert!(bench.calls().is_empty(), "{:?}", bench.calls());
}
