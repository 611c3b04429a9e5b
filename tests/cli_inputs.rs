//! The CLI's own inputs: the files its verbs read (type files, plugin
//! components, registry documents, `--config`) and write (`registry
//! export --out`), and the global limits it takes (`--handler-memory`,
//! `--handler-timeout`). A FIFO, a device or anything but a regular file
//! is refused without blocking and without being read or replaced; a
//! limit out of range is a usage error (exit 2) naming the range.

use crate::common::Env;

#[test]
fn handler_limits_out_of_range_are_usage_errors_naming_the_range() {
    let env = Env::new();
    env.run(&["--handler-memory", "99999999999", "resource", "list"])
        .usage(&["--handler-memory", "16..=4096"]);
    env.run(&["--handler-memory", "1", "resource", "list"])
        .usage(&["16..=4096"]);
    for bad in ["1e30", "0", "-1", "NaN", "inf", "86401"] {
        let flag = format!("--handler-timeout={bad}");
        env.run(&[&flag, "resource", "list"])
            .usage(&["--handler-timeout", "from 0.005 to 86400"]);
    }
    let run = crate::common::Run::from(
        env.command()
            .env("AGENTS_HANDLER_MEMORY", "99999999999")
            .args(["resource", "list"])
            .output()
            .unwrap(),
    );
    run.usage(&["16..=4096"]);
    env.run(&[
        "--handler-memory",
        "4096",
        "--handler-timeout",
        "0.5",
        "resource",
        "list",
    ])
    .ok();
}

/// Run `agents ARGS…`, killing it if it has not finished within a minute
/// (a command blocked on a pipe never would): the run, or `None`.
fn run_unless_blocked(env: &Env, args: &[&str]) -> Option<crate::common::Run> {
    use std::process::Stdio;
    let mut child = env
        .command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(crate::common::Run::from(child.wait_with_output().unwrap()))
}

fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

#[test]
fn every_file_the_cli_reads_must_be_a_regular_file_and_a_pipe_or_device_is_refused_at_once() {
    let env = Env::new();
    let fifo = env.path("pipe");
    mkfifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["resource", "type", "add", fifo], "type file"),
        (
            vec!["resource", "type", "add", "--config", fifo],
            "type file",
        ),
        (vec!["resource", "type", "add", "/dev/zero"], "type file"),
        (vec!["plugin", "add", fifo], "plugin file"),
        (vec!["plugin", "add", "/dev/zero"], "plugin file"),
        (vec!["plugin", "check", "/dev/urandom"], "plugin file"),
        (vec!["plugin", "check", fifo], "plugin file"),
        (vec!["registry", "import", fifo], "registry document"),
        (vec!["registry", "import", "/dev/zero"], "registry document"),
    ];
    for (args, what) in cases {
        let run = run_unless_blocked(&env, &args)
            .unwrap_or_else(|| panic!("agents {args:?} blocked (killed after a minute)"));
        let stderr = run.refused(&[&format!("cannot read {what}"), "not a regular file"]);
        assert!(
            stderr.contains("a named pipe") || stderr.contains("a character device"),
            "{stderr}"
        );
    }
    // `plugin wit --out` compares what is there before writing: a pipe
    // where a contract file goes is something else, refused, not read.
    let wit = env.mkdir("wit/v0.2.0");
    mkfifo(&wit.join("resource.wit"));
    let run = run_unless_blocked(
        &env,
        &["plugin", "wit", "--out", env.path("wit").to_str().unwrap()],
    )
    .expect("plugin wit --out blocked on a pipe");
    assert_eq!(run.code, 1, "{run:?}");
    // A symlink to a regular file is the person's choice and is followed.
    let yaml = env.write("real.yaml", "name: acme/linked\nresource_kind: physical\n");
    let link = env.path("link.yaml");
    std::os::unix::fs::symlink(&yaml, &link).unwrap();
    env.run(&["resource", "type", "add", link.to_str().unwrap()])
        .ok();
}

#[test]
fn an_oversized_type_file_is_refused_by_its_bound_without_being_read_whole() {
    let env = Env::new();
    let big = env.path("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    env.run(&["resource", "type", "add", big.to_str().unwrap()])
        .refused(&["cannot read type file", "more than 1048576 bytes"]);
}

/// `export --out` at what is not a regular file: refused, and what was
/// there is as it was.
#[test]
fn export_writes_only_to_a_regular_file_or_a_new_path_and_never_through_a_symlink() {
    use std::os::unix::fs::FileTypeExt;
    let env = Env::new();
    env.run(&["resource", "list"]).ok();
    let out =
        |path: &std::path::Path| env.run(&["registry", "export", "--out", path.to_str().unwrap()]);
    // A FIFO.
    let fifo = env.path("pipe.json");
    mkfifo(&fifo);
    out(&fifo).refused(&["cannot write", "it is a named pipe", "left as it is"]);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // A symlink to our own stdout, and one to someone's file.
    let to_stdout = env.path("stdout.json");
    std::os::unix::fs::symlink("/proc/self/fd/1", &to_stdout).unwrap();
    let run = out(&to_stdout);
    run.refused(&["it is a symlink"]);
    assert_eq!(run.stdout, "", "nothing reached stdout");
    assert!(
        std::fs::symlink_metadata(&to_stdout)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let theirs = env.write("theirs.txt", "keep me");
    let to_file = env.path("backup.json");
    std::os::unix::fs::symlink(&theirs, &to_file).unwrap();
    out(&to_file).refused(&["it is a symlink"]);
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "keep me");
    // A directory.
    out(&env.mkdir("dir.json")).refused(&["it is a directory"]);
    // A device: a private node of /dev/full's (1, 7), where this process
    // may make one (root).
    let full = env.path("full.json");
    let made = std::process::Command::new("mknod")
        .arg(&full)
        .args(["c", "1", "7"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        out(&full).refused(&["it is a character device"]);
        assert!(
            std::fs::symlink_metadata(&full)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    } else {
        crate::common::skipped(
            "export_writes_only_to_a_regular_file_… (a device)",
            "cannot mknod here (needs root)",
        );
    }
    // A new path and a regular file are written; no temporary file stays.
    let fresh = env.path("fresh.json");
    out(&fresh).ok();
    std::fs::write(&fresh, "old").unwrap();
    out(&fresh).ok();
    let text = std::fs::read_to_string(&fresh).unwrap();
    assert!(text.contains("\"format\": \"agents-registry\""), "{text}");
    let leftovers: Vec<String> = std::fs::read_dir(env.scratch.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
}

/// `--read-only` means no write at all: `agents mcp --read-only --watch`
/// (whose refreshes would write rows) is a usage error, not a server.
#[test]
fn mcp_read_only_refuses_watch() {
    let env = Env::new();
    let run = env.run(&["mcp", "--read-only", "--watch"]);
    run.usage(&["--watch", "--read-only"]);
}
