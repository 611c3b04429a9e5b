//! `agents sandbox …` end to end: the real binary, real directories, real
//! git repositories and real SQLite files; every command a new process, so
//! each test also shows that sandboxes survive restarts.

use crate::common::{Env, Run};
use resource_host::registry::SandboxesError;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every entry below `root` (not followed through symlinks): its kind,
/// permission bits, and bytes or link target — what "byte for byte the
/// same tree" means here.
pub fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                walk(root, &path, out);
                format!("dir {mode:o}")
            } else {
                let bytes = std::fs::read(&path).unwrap();
                format!(
                    "file {mode:o} {}",
                    resource_host::digest::sha256_hex(&bytes)
                )
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A directory with nested files, a binary file, an executable and a
/// symlink.
fn project(env: &Env) -> PathBuf {
    let root = env.mkdir("project");
    env.write("project/README.md", "# project\n");
    env.write("project/src/lib/deep.txt", "deep\n");
    env.write("project/src/main.py", "print('hi')\n");
    std::fs::write(
        root.join("blob.bin"),
        (0..=255u8).cycle().take(70_000).collect::<Vec<_>>(),
    )
    .unwrap();
    let run = env.write("project/run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("src/main.py", root.join("entry")).unwrap();
    root
}

struct Sandbox {
    id: String,
    workdir: PathBuf,
}

fn create(env: &Env, resource: &str, extra: &[&str]) -> Sandbox {
    let mut args = vec!["sandbox", "create", resource, "-o", "json"];
    args.extend_from_slice(extra);
    let made = env.run(&args).json();
    assert_eq!(made["state"], "active", "{made}");
    Sandbox {
        id: made["sandbox_id"].as_str().unwrap().to_owned(),
        workdir: PathBuf::from(made["workdir"].as_str().unwrap()),
    }
}

fn sandbox(env: &Env, verb: &str, id: &str, extra: &[&str]) -> Run {
    let mut args = vec!["sandbox", verb, id];
    args.extend_from_slice(extra);
    env.run(&args)
}

#[test]
fn strategy_none_warns_and_refuses_rollback() {
    let env = Env::new();
    let dir = env.mkdir("plain");
    env.add(
        "fs-directory",
        "local/plain",
        &dir,
        &["--sandbox-strategy", "none"],
    )
    .ok();
    let run = env.run(&["sandbox", "create", "local/plain", "-o", "json"]);
    let made = run.json();
    assert!(run.stderr.contains("own risk"), "{}", run.stderr);
    assert_eq!(made["isolated"], false);
    assert_eq!(made["workdir"], dir.to_str().unwrap());
    let id = made["sandbox_id"].as_str().unwrap();
    sandbox(&env, "checkpoint", id, &[]).refused(&["no isolation", "own risk"]);
    sandbox(&env, "rollback", id, &[]).refused(&["no isolation"]);
    sandbox(&env, "destroy", id, &[]).ok();
    assert!(
        dir.exists(),
        "destroying a none sandbox leaves the original"
    );
}

#[test]
fn refusals_name_their_rule() {
    let env = Env::new();
    let dir = project(&env);
    env.add("fs-directory", "local/ro", &dir, &["--read-only"])
        .ok();
    // A discovered file inherits its parent's sandbox.
    env.run(&["sandbox", "create", "local/ro/README.md"])
        .refused(&["inherit", "local/ro"]);
    let sb = create(&env, "local/ro", &[]);
    sandbox(&env, "checkpoint", &sb.id, &[]).refused(&["read-only"]);
    sandbox(&env, "apply", &sb.id, &[]).refused(&["read-only"]);
    // Labels must not read as numbers; unknown checkpoints list the known.
    env.add("fs-directory", "local/rw", &dir, &[]).ok();
    let rw = create(&env, "local/rw", &[]);
    sandbox(&env, "checkpoint", &rw.id, &["--label", "7"]).refused(&["number"]);
    sandbox(&env, "rollback", &rw.id, &[]).refused(&["none yet"]);
    sandbox(&env, "checkpoint", &rw.id, &["--label", "a"]).ok();
    sandbox(&env, "rollback", &rw.id, &["b"]).refused(&["no checkpoint b", "#1 (a)"]);
    // git_worktree only isolates checkouts.
    env.run(&[
        "sandbox",
        "create",
        "local/rw",
        "--strategy",
        "git_worktree",
    ])
    .refused(&["git checkouts"]);
    env.run(&["sandbox", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"])
        .refused(&["no sandbox"]);
    env.run(&["sandbox", "show", "nope"]).usage(&["sandbox id"]);
}

#[test]
fn removal_waits_for_sandboxes_unless_forced() {
    let env = Env::new();
    let dir = project(&env);
    env.add("fs-directory", "local/p", &dir, &[]).ok();
    let sb = create(&env, "local/p", &[]);
    let plan = env.run(&["resource", "remove", "--dry-run", "local/p"]);
    assert!(plan.ok().contains(&sb.id), "{}", plan.stdout);
    env.run(&["resource", "remove", "local/p"])
        .refused(&["live sandbox", &sb.id, "--force"]);
    env.run(&["resource", "show", "local/p"]).ok();
    let forced = env.run(&["resource", "remove", "--force", "local/p"]);
    forced.ok();
    assert!(forced.stderr.contains(&sb.id), "{}", forced.stderr);
    assert!(!sb.workdir.exists());
    env.run(&["resource", "show", "local/p"])
        .refused(&["no resource"]);
    assert_eq!(
        env.run(&["sandbox", "list", "-o", "json"]).json(),
        serde_json::json!([])
    );
}

/// A crash leaves a `creating` (or `destroying`) row: it is listed,
/// refused for work, and `destroy` cleans it up.
#[test]
fn interrupted_sandboxes_are_listed_and_destroyable() {
    let env = Env::new();
    let dir = project(&env);
    env.add("fs-directory", "local/p", &dir, &[]).ok();
    let sb = create(&env, "local/p", &[]);
    env.sql("UPDATE sandboxes SET state = 'creating'");
    let listed = env.run(&["sandbox", "list", "-o", "json"]).json();
    assert_eq!(listed[0]["state"], "creating");
    sandbox(&env, "checkpoint", &sb.id, &[]).refused(&["creating", "destroy"]);
    sandbox(&env, "destroy", &sb.id, &[]).ok();
    assert!(!sb.workdir.exists());
    env.run(&["resource", "remove", "local/p"]).ok();
}

/// The same operations through the library, with typed errors an agent
/// runtime can match on.
#[test]
fn the_library_hands_out_sandboxes_and_typed_refusals() {
    use resource_host::home::Home;
    use resource_host::model::{ResourceKey, SandboxStrategy};
    use resource_host::registry::{
        NewResource, Registry, RegistryError, RemoveOptions, SandboxRefusal,
    };
    use resource_host::sandbox::Applied;

    let env = Env::new();
    let dir = project(&env);
    let mut registry = Registry::open(&Home::new(env.home.path())).unwrap();
    let add = |registry: &mut Registry, name: &str, read_only: bool| {
        registry
            .register_resource(
                NewResource {
                    type_name: "fs-directory".into(),
                    name: Some(name.into()),
                    args: vec![("path".into(), dir.display().to_string())],
                    read_only,
                    ..NewResource::default()
                },
                Default::default(),
            )
            .unwrap()
    };
    add(&mut registry, "local/lib", false);
    add(&mut registry, "local/frozen", true);
    let key = |name: &str| ResourceKey::parse(name).unwrap();

    let sb = registry.create_sandbox(&key("local/lib"), None).unwrap();
    assert_eq!(sb.strategy, SandboxStrategy::CopyOnWrite);
    let work = PathBuf::from(sb.workdir.as_ref().unwrap());
    std::fs::write(work.join("README.md"), "# changed\n").unwrap();
    let cp = registry
        .checkpoint_sandbox(sb.sandbox_id, Some("one"))
        .unwrap();
    assert_eq!(cp.number, 1);
    std::fs::write(work.join("README.md"), "# changed twice\n").unwrap();
    registry.rollback_sandbox(sb.sandbox_id, None).unwrap();
    assert_eq!(
        std::fs::read_to_string(work.join("README.md")).unwrap(),
        "# changed\n"
    );
    match registry.apply_sandbox(sb.sandbox_id).unwrap() {
        Applied::CopiedBack(diff) => assert_eq!(diff.modified, vec!["README.md".to_owned()]),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("README.md")).unwrap(),
        "# changed\n"
    );

    let frozen = registry.create_sandbox(&key("local/frozen"), None).unwrap();
    match registry.checkpoint_sandbox(frozen.sandbox_id, None) {
        Err(RegistryError::Sandboxes(SandboxesError::SandboxRefused {
            reason: SandboxRefusal::ReadOnly,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
    match registry.remove_resource(&key("local/lib"), RemoveOptions::default()) {
        Err(RegistryError::HasSandboxes { sandboxes, .. }) => {
            assert_eq!(sandboxes, vec![sb.sandbox_id]);
        }
        other => panic!("{other:?}"),
    }
    // Rows survive a new registry on the same home.
    drop(registry);
    let mut again = Registry::open(&Home::new(env.home.path())).unwrap();
    assert_eq!(again.list_sandboxes(None).unwrap().len(), 2);
    again.destroy_sandbox(sb.sandbox_id).unwrap();
    // A forced removal destroys the sandboxes on what goes first, and
    // says which.
    let report = again
        .remove_resource(&key("local/frozen"), RemoveOptions::forced())
        .unwrap();
    let destroyed: Vec<_> = report
        .forced
        .sandboxes
        .iter()
        .map(|s| s.sandbox_id)
        .collect();
    assert_eq!(destroyed, vec![frozen.sandbox_id]);
    assert_eq!(report.removed[0].label(), "local/frozen");
    assert!(again.list_sandboxes(None).unwrap().is_empty());
}

mod containment;
mod full_disk;
mod hostile_git;
mod round_trips;
mod rows;
mod transaction;
