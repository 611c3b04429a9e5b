//! The sandbox's holes, closed, through the real binary: a deadline that
//! holds while a handler waits in the host, files that cannot block when
//! opened, child locations that cannot leave their parent through a
//! symlink (checked again at every use), text that cannot drive a
//! terminal, floods that cannot fill it, one-file views, the compile
//! cache bound to its component, and rediscovery. Timeouts are checked by
//! outcome — the labelled error, the exit, the registry unchanged — never
//! by how long they took.

use crate::common;
use crate::common::{Env, faulty_home, wasm};
use std::os::unix::fs::symlink;
use std::process::Command;

/// `agents [--handler-timeout T] resource add TYPE NAME --path <scratch>/REL [EXTRA…]`.
fn add(env: &Env, ty: &str, name: &str, rel: &str, extra: &[&str]) -> common::Run {
    let path = env.path(rel);
    let mut args = vec!["--handler-timeout", "5", "resource", "add", ty, name];
    args.extend_from_slice(&["--path", path.to_str().unwrap()]);
    args.extend_from_slice(extra);
    env.run(&args)
}

/// Register type `name` handled by `test.faulty:CLASS`, with a required
/// `path` and the `child_types` list `children`.
fn faulty_type(env: &Env, name: &str, class: &str, children: &str) {
    let yaml = format!(
        "name: {name}\nresource_kind: physical\nuser_addable: true\n\
         cli_args:\n  - {{name: path, type: path, required: true}}\n\
         child_types: {children}\nhandler: test.faulty:{class}\n"
    );
    let file = env.write(&format!("{}.yaml", name.replace('/', "-")), &yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
}

#[test]
fn a_handler_sleeping_in_the_host_times_out_and_changes_nothing() {
    let env = faulty_home(&["Sleep"]);
    let before = env.state();
    let loc = env.path("loc");
    env.run(&[
        "--handler-timeout",
        "1",
        "resource",
        "add",
        "test/sleep",
        "local/x",
        "--path",
        loc.to_str().unwrap(),
    ])
    .refused(&["handler test.faulty:Sleep timed out after 1s during validate"]);
    assert_eq!(env.state(), before);
}

#[test]
fn a_describe_that_sleeps_is_ended_at_the_deadline() {
    let env = Env::new();
    env.run(&["resource", "list"]).ok();
    let before = env.state();
    let sleepy = wasm("sleepy.wasm");
    env.run(&[
        "--handler-timeout",
        "1",
        "plugin",
        "add",
        sleepy.to_str().unwrap(),
    ])
    .refused(&["timed out after 1s during describe"]);
    assert_eq!(env.state(), before);
}

#[test]
fn named_pipes_in_a_location_are_never_opened() {
    let env = faulty_home(&["ReadAll", "ReadPipe"]);
    let status = Command::new("mkfifo")
        .arg(env.path("loc/pipe"))
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo");
    // An honest walker finishes: the pipe is refused, the files are read.
    let added = add(&env, "test/readall", "local/walk", "loc", &["-o", "json"]).json();
    let report = added["properties"]["report"].as_str().unwrap();
    assert!(report.contains("file.txt: 6 bytes"), "{report}");
    assert!(report.contains("pipe: error"), "{report}");
    // A handler that insists on the pipe gets an error, not a hang.
    let before = env.state();
    add(&env, "test/readpipe", "local/pipe", "loc", &[])
        .refused(&["handler test.faulty:ReadPipe refused validate", "pipe"]);
    assert_eq!(env.state(), before);
}

/// A home with `test/reader` (ReadAll: inspect lists and reads every file
/// it can see) and `test/parent` (ChildAt: discovers one child, of the
/// type in `loc/type.txt`, where `loc/where.txt` says), and `outside/`
/// holding a secret.
fn symlink_home() -> Env {
    let env = faulty_home(&[]);
    faulty_type(&env, "test/reader", "ReadAll", "[]");
    faulty_type(
        &env,
        "test/parent",
        "ChildAt",
        "[test/reader, fs-directory]",
    );
    env.write("loc/type.txt", "test/reader");
    env.write("outside/secret.txt", "the secret\n");
    env
}

#[test]
fn a_child_location_through_a_symlink_is_refused_in_every_form() {
    let env = symlink_home();
    let real = std::fs::canonicalize(env.path("loc")).unwrap();
    symlink(env.path("outside"), env.path("loc/abs")).unwrap();
    symlink("..", env.path("loc/up")).unwrap();
    let absolute = real.join("abs/later");
    let before = env.state();
    for at in ["abs/later", "up/later", absolute.to_str().unwrap()] {
        env.write("loc/where.txt", at);
        add(&env, "test/parent", "local/p", "loc", &[]).refused(&[
            "handler test.faulty:ChildAt answered discover with a result the host refuses",
            "passes through the symlink",
        ]);
        assert_eq!(env.state(), before, "{at} changed the registry");
    }
}

/// A child at a dangling symlink is refused when the
/// handler answers it (before, it was registered, and resolved outside
/// the parent once its target appeared); nothing is written, and the
/// refusal names the component's module and class.
#[test]
fn a_dangling_symlink_child_is_refused_at_discovery() {
    let env = symlink_home();
    let target = env.path("outside/later");
    symlink(&target, env.path("loc/dangling")).unwrap();
    env.write("loc/where.txt", "dangling");
    let before = env.state();
    add(&env, "test/parent", "local/p", "loc", &[]).refused(&[
        "handler test.faulty:ChildAt answered discover with a result the host refuses",
        "is a symlink that resolves to nothing",
    ]);
    assert_eq!(env.state(), before);
    // Its target appearing later changes nothing: there is no child.
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("secret.txt"), "the secret\n").unwrap();
    env.run(&["resource", "show", "local/p/child"])
        .refused(&["local/p/child"]);
    // A symlink to an entry that exists is still a child (never followed).
    env.write("loc/real/file.txt", "mine\n");
    std::fs::remove_file(env.path("loc/dangling")).unwrap();
    symlink(env.path("loc/real"), env.path("loc/dangling")).unwrap();
    add(&env, "test/parent", "local/p", "loc", &[]).ok();
}

/// A component that answers a child of a built-in type where there is
/// none of that kind (a FIFO or a regular file called an `fs-directory`)
/// is the one the refusal names first: the fs handler refusing to list
/// it is the consequence, not the fault. Nothing is written.
#[test]
fn a_child_its_own_handler_refuses_is_blamed_on_the_component_that_answered_it() {
    let env = symlink_home();
    env.write("loc/type.txt", "fs-directory");
    env.write("loc/file.txt", "not a directory\n");
    crate::devcontainer_hostile::mkfifo(&env.path("loc/fifo"));
    for at in ["fifo", "file.txt"] {
        env.write("loc/where.txt", at);
        let before = env.state();
        let out = add(&env, "test/parent", "local/p", "loc", &[]);
        let err = out.refused(&[
            "handler test.faulty:ChildAt answered discover with local/p/child (fs-directory at",
            "which the handler of its type refuses",
        ]);
        assert!(
            err.find("test.faulty:ChildAt") < err.find("FsDirectoryHandler"),
            "{err}"
        );
        assert_eq!(env.state(), before, "{at} changed the registry");
    }
}

/// A component handling a subtype of a built-in type
/// (which inherits the built-in's handler, discovery rules and children)
/// is the one a refusal of its answer names, not the built-in fs handler.
#[test]
fn a_refused_child_of_a_subtype_of_fs_directory_names_the_component() {
    let env = faulty_home(&[]);
    faulty_type(&env, "test/reader", "ReadAll", "[]");
    let yaml = "name: test/fsish\ninherits: fs-directory\nhandler: test.faulty:ChildAt\n";
    let file = env.write("fsish.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("outside/secret.txt", "the secret\n");
    symlink(env.path("outside"), env.path("loc/abs")).unwrap();
    env.write("loc/type.txt", "fs-directory");
    env.write("loc/where.txt", "abs/later");
    let before = env.state();
    let out = add(&env, "test/fsish", "local/p", "loc", &[]);
    let err = out.refused(&["test.faulty:ChildAt"]);
    assert!(!err.contains("FsDirectoryHandler"), "{err}");
    assert_eq!(env.state(), before);
}

#[test]
fn a_location_is_checked_again_at_every_use() {
    let env = symlink_home();
    env.mkdir("loc/sub");
    env.write("loc/where.txt", "sub/later");
    add(&env, "test/parent", "local/p", "loc", &[]).ok();
    // Later the directory on the path is swapped for a symlink outwards,
    // and what the child names exists there.
    std::fs::remove_dir(env.path("loc/sub")).unwrap();
    symlink(env.path("outside"), env.path("loc/sub")).unwrap();
    std::fs::create_dir(env.path("outside/later")).unwrap();
    std::fs::write(env.path("outside/later/secret.txt"), "the secret\n").unwrap();
    let out = env.run(&["resource", "inspect", "local/p/child"]);
    let err = out.refused(&["test.faulty:ReadAll", "now resolves to"]);
    assert!(!err.contains("the secret"), "{err}");
}

#[test]
fn a_file_resource_sees_its_file_alone() {
    let env = symlink_home();
    env.write("files/notes.txt", "mine\n");
    env.write("files/secret.txt", "the secret\n");
    faulty_type(&env, "test/file", "ReadAll", "[]");
    let added = add(
        &env,
        "test/file",
        "local/notes",
        "files/notes.txt",
        &["-o", "json"],
    )
    .json();
    assert_eq!(added["properties"]["report"], "notes.txt: 5 bytes");
    let inspected = env.run(&["resource", "inspect", "local/notes"]);
    assert_eq!(inspected.ok().trim(), "notes.txt: 5 bytes");
}

/// No byte that could drive a terminal: ESC, BEL, CR, C1 controls.
fn assert_inert(text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(
        bad.is_empty(),
        "control characters {bad:?} reached the terminal: {text}"
    );
}

#[test]
fn handler_text_reaches_the_terminal_escaped_and_programs_exactly() {
    let env = faulty_home(&["Escapes"]);
    // A failing handler: its error, log line and captured output.
    let failed = add(&env, "test/escapes", "local/e", "loc", &[]);
    let err = failed.refused(&["handler test.faulty:Escapes refused validate", "\\u{1b}[2J"]);
    assert_inert(err);
    assert!(
        err.contains("[plugin]"),
        "the error-level log line is shown: {err}"
    );
    let verbose = add(&env, "test/escapes", "local/e", "loc", &["-vv"]);
    assert_inert(&verbose.stderr);
    assert!(
        verbose.stderr.contains("stderr \\u{1b}[2J"),
        "{}",
        verbose.stderr
    );
    // An answering handler: its property and its inspection text.
    add(&env, "test/escapes", "local/e", "loc", &["--answer", "yes"]).ok();
    let shown = env.run(&["resource", "show", "local/e"]);
    assert_inert(shown.ok());
    assert!(
        shown.stdout.contains("motto: \\u{1b}[2J"),
        "{}",
        shown.stdout
    );
    let json = env
        .run(&["resource", "show", "local/e", "-o", "json"])
        .json();
    assert!(
        json["properties"]["motto"]
            .as_str()
            .unwrap()
            .starts_with("\x1b[2J")
    );
    let inspected = env.run(&["resource", "inspect", "local/e"]);
    assert_inert(inspected.ok());
    let exact = env
        .run(&["resource", "inspect", "local/e", "-o", "json"])
        .json();
    assert!(exact["text"].as_str().unwrap().contains("\x1b]0;pwned\x07"));
    // Fields are data too: exact in JSON, escaped by JSON itself.
    assert!(
        exact["fields"]["title"]
            .as_str()
            .unwrap()
            .starts_with("\x1b[2J")
    );
}

#[test]
fn what_one_command_prints_for_handlers_is_capped() {
    let env = faulty_home(&["LogFlood"]);
    let out = add(&env, "test/logflood", "local/f", "loc", &[]);
    out.ok();
    // Three calls × 1,000 lines × 4 KiB were logged at error level.
    assert!(
        out.stderr.len() < 80 * 1024,
        "{} bytes on stderr",
        out.stderr.len()
    );
    let tail = &out.stderr[out.stderr.len().saturating_sub(300)..];
    assert!(
        tail.contains("more lines") && tail.contains("from handlers dropped"),
        "{tail}"
    );
}

#[test]
fn a_huge_refused_value_is_quoted_short() {
    let env = faulty_home(&["HugeKey"]);
    let out = add(&env, "test/hugekey", "local/h", "loc", &[]);
    let err = out.refused(&[
        "answered validate with a result the host refuses",
        "more bytes",
    ]);
    assert!(err.len() < 1024, "{} bytes of error", err.len());
}

#[test]
fn rediscovery_re_adds_a_child_that_kept_its_name_but_moved() {
    let env = symlink_home();
    env.write("loc/type.txt", "fs-directory");
    env.mkdir("loc/a");
    env.mkdir("loc/b");
    env.write("loc/where.txt", "a");
    add(&env, "test/parent", "local/m", "loc", &[]).ok();
    env.write("loc/where.txt", "b");
    let report = env
        .run(&["resource", "discover", "local/m", "-o", "json"])
        .json();
    assert_eq!(report["added"].as_array().unwrap().len(), 1);
    assert_eq!(report["removed"].as_array().unwrap().len(), 1);
    let child = env
        .run(&["resource", "show", "local/m/child", "-o", "json"])
        .json();
    let real = std::fs::canonicalize(env.path("loc/b")).unwrap();
    assert_eq!(child["location"], real.to_str().unwrap());
}

#[test]
fn a_discovered_name_that_is_taken_is_the_handlers_collision() {
    let env = symlink_home();
    env.write("loc/type.txt", "fs-directory");
    env.mkdir("loc/a");
    env.write("loc/where.txt", "a");
    add(&env, "fs-directory", "local/m/child", "loc/a", &[]).ok();
    let before = env.state();
    let out = add(&env, "test/parent", "local/m", "loc", &[]);
    let err = out.refused(&[
        "handler test.faulty:ChildAt discovered local/m/child (child 0)",
        "already exists",
    ]);
    assert!(!err.contains("pick another name"), "{err}");
    assert_eq!(env.state(), before);
}

/// The compile cache entry of `sha256`, whatever the engine digest.
fn cache_entry(env: &Env, sha256: &str) -> std::path::PathBuf {
    let dir = env.home.path().join("cache/components");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with(sha256) && name.ends_with(".cwasm")
        })
        .unwrap_or_else(|| panic!("no cache entry for {sha256} in {}", dir.display()))
}

#[test]
fn a_cache_entry_swapped_in_from_another_module_never_runs() {
    let env = faulty_home(&["Healthy"]);
    let python = wasm("python_package.wasm");
    let python = env
        .run(&["plugin", "add", python.to_str().unwrap(), "-o", "json"])
        .json();
    let faulty = env
        .run(&["plugin", "show", "test.faulty", "-o", "json"])
        .json();
    let (theirs, mine) = (
        cache_entry(&env, python["sha256"].as_str().unwrap()),
        cache_entry(&env, faulty["sha256"].as_str().unwrap()),
    );
    // The entry alone, then the entry with its seal: neither runs.
    std::fs::copy(&theirs, &mine).unwrap();
    let out = add(&env, "test/healthy", "local/h", "loc", &["-o", "json"]);
    assert!(
        out.stderr.contains("changed since it was written"),
        "{}",
        out.stderr
    );
    assert_eq!(out.json()["properties"]["report"], "healthy validate");
    let seal = |p: &std::path::Path| p.with_extension("cwasm.seal");
    std::fs::copy(&theirs, &mine).unwrap();
    std::fs::copy(seal(&theirs), seal(&mine)).unwrap();
    let out = add(
        &env,
        "test/healthy",
        "local/h2",
        "loc",
        &["-vv", "-o", "json"],
    );
    assert!(
        out.stderr.contains("handler module test.faulty compiled"),
        "{}",
        out.stderr
    );
    assert_eq!(out.json()["properties"]["report"], "healthy validate");
}

#[test]
fn code_is_not_loaded_from_a_directory_others_can_write() {
    use std::os::unix::fs::PermissionsExt;
    let env = faulty_home(&["Healthy"]);
    for dir in ["plugins", "cache/components"] {
        let path = env.home.path().join(dir);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let before = env.state();
        add(&env, "test/healthy", "local/h", "loc", &[]).refused(&[
            "refusing to load code from",
            dir,
            "writable by",
            "chmod go-w",
        ]);
        assert_eq!(env.state(), before);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    add(&env, "test/healthy", "local/h", "loc", &[]).ok();
}
