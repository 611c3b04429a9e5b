//! The lifecycle against the real docker, when its daemon answers (these
//! machines have the client, not the daemon: then the test says SKIPPED).
//! It pulls `alpine:3.20` if missing.

use super::*;

/// Removes the container whatever the test's outcome.
struct Removed<'a>(&'a Runtime, String);

impl Drop for Removed<'_> {
    fn drop(&mut self) {
        let _ = self.0.remove(&self.1);
    }
}

#[test]
fn the_real_docker_runs_stops_and_removes_a_devcontainer() {
    // A test may read the environment; the library is handed it.
    let search_path = std::env::var_os("PATH").unwrap_or_default();
    let env: Vec<(OsString, OsString)> = ENGINE_ENV_VARS
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (OsString::from(k), v)))
        .collect();
    let mut found = detect_with(&search_path, &env, std::time::Duration::from_secs(20));
    if !matches!(
        found.docker,
        Some(Found {
            status: Status::Ready { .. },
            ..
        })
    ) {
        let found = found.to_string().trim_end().replace('\n', "; ");
        eprintln!(
            "SKIPPED the_real_docker_runs_stops_and_removes_a_devcontainer: no docker daemon answers ({found})"
        );
        return;
    }
    // The direct mode, whatever else is installed.
    found.devcontainer_cli = None;
    found.podman = None;
    let runtime = found.runtime().unwrap();
    let bench = Bench::new(&[]);
    let mut req = bench.config(
        r#"{"image": "alpine:3.20", "containerEnv": {"GREETING": "hi"},
            "postCreateCommand": "echo \"$GREETING\" > created"}"#,
    );
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    req.id_label = format!("agents.test={}-{unique}", std::process::id());
    let container = runtime.up(&req).unwrap();
    let _cleanup = Removed(&runtime, container.id.clone());
    assert!(container.created);
    assert!(runtime.is_running(&container.id).unwrap());
    // postCreateCommand ran in the workspace, which is the host's folder.
    let created = std::fs::read_to_string(bench.workspace().join("created")).unwrap();
    assert_eq!(created.trim(), "hi");
    // up again finds the same container.
    assert_eq!(runtime.up(&req).unwrap().id, container.id);
    runtime.stop(&container.id).unwrap();
    assert_eq!(
        runtime.state(&container.id).unwrap(),
        ContainerState::Stopped
    );
    runtime.remove(&container.id).unwrap();
    assert_eq!(
        runtime.state(&container.id).unwrap(),
        ContainerState::Missing
    );
}
