//! `agents sandbox …` end to end: the real binary, real directories, real
//! git repositories and real SQLite files; every command a new process, so
//! each test also shows that sandboxes survive restarts.

use crate::common::{Env, Run, git, git_repo};
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

/// Change a working copy every way the tests care about; `round` makes
/// each call's changes different.
fn change(work: &Path, round: u32) {
    std::fs::write(
        work.join("src/lib/deep.txt"),
        format!("deep, round {round}\n"),
    )
    .unwrap();
    let mut blob = std::fs::read(work.join("blob.bin")).unwrap();
    blob[100] ^= 0xff;
    blob.extend_from_slice(&round.to_le_bytes());
    std::fs::write(work.join("blob.bin"), blob).unwrap();
    std::fs::write(work.join(format!("new-{round}.txt")), "new\n").unwrap();
    std::fs::create_dir_all(work.join(format!("newdir-{round}/inner"))).unwrap();
    let _ = std::fs::remove_file(work.join("README.md"));
    let mode = if round % 2 == 1 { 0o700 } else { 0o644 };
    std::fs::set_permissions(work.join("run.sh"), std::fs::Permissions::from_mode(mode)).unwrap();
    let _ = std::fs::remove_file(work.join("entry"));
    std::os::unix::fs::symlink(format!("target-{round}"), work.join("entry")).unwrap();
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

/// The whole cycle for a directory strategy: changes, two checkpoints,
/// rollbacks to each, the original untouched, diff, a refused and a
/// successful apply, destroy.
fn directory_cycle(env: &Env, strategy: &str) {
    let original = project(env);
    env.add("fs-directory", "local/project", &original, &[])
        .ok();
    let before = tree(&original);
    let sb = create(env, "local/project", &["--strategy", strategy]);
    assert_ne!(sb.workdir, original);
    assert_eq!(
        tree(&sb.workdir),
        before,
        "the sandbox starts as the original"
    );

    change(&sb.workdir, 1);
    let first = tree(&sb.workdir);
    sandbox(env, "checkpoint", &sb.id, &["--label", "first"]).ok();
    change(&sb.workdir, 2);
    let second = tree(&sb.workdir);
    sandbox(env, "checkpoint", &sb.id, &[]).ok();
    change(&sb.workdir, 3);
    std::fs::remove_dir_all(sb.workdir.join("src")).unwrap();

    sandbox(env, "rollback", &sb.id, &[]).ok();
    assert_eq!(tree(&sb.workdir), second, "rollback to the latest");
    sandbox(env, "rollback", &sb.id, &["first"]).ok();
    assert_eq!(tree(&sb.workdir), first, "rollback to the first, by label");
    sandbox(env, "rollback", &sb.id, &["2"]).ok();
    assert_eq!(tree(&sb.workdir), second, "forward again, by number");
    assert_eq!(tree(&original), before, "the original is untouched");

    let diff = sandbox(env, "diff", &sb.id, &["-o", "json"]).json();
    let has = |list: &str, path: &str| diff[list].as_array().unwrap().iter().any(|p| p == path);
    assert!(
        has("added", "new-1.txt") && has("added", "new-2.txt"),
        "{diff}"
    );
    assert!(
        has("modified", "blob.bin") && has("modified", "entry"),
        "{diff}"
    );
    assert!(has("deleted", "README.md"), "{diff}");

    // A conflicting change to the original: refused, nothing written.
    let blob = std::fs::read(original.join("blob.bin")).unwrap();
    std::fs::write(original.join("blob.bin"), b"changed by someone else").unwrap();
    let conflicted = tree(&original);
    sandbox(env, "apply", &sb.id, &[]).refused(&["changed since", "blob.bin"]);
    assert_eq!(
        tree(&original),
        conflicted,
        "a refused apply writes nothing"
    );

    // Put it back, and apply for real.
    std::fs::write(original.join("blob.bin"), blob).unwrap();
    assert_eq!(tree(&original), before);
    sandbox(env, "apply", &sb.id, &[]).ok();
    assert_eq!(
        tree(&original),
        tree(&sb.workdir),
        "apply makes the original the sandbox"
    );

    let area = sb.workdir.parent().unwrap().to_owned();
    sandbox(env, "destroy", &sb.id, &[]).ok();
    assert!(!area.exists(), "destroy removes the area");
    sandbox(env, "show", &sb.id, &[]).refused(&["no sandbox"]);
}

#[test]
fn copy_on_write_round_trip() {
    directory_cycle(&Env::new(), "copy_on_write");
}

/// The kernel's overlayfs where this process may mount it (every command
/// a new process: the mount outlives each), else the user-space overlay.
#[test]
fn overlay_round_trip() {
    let env = Env::new();
    let _unmount = UnmountBelow(env.home.path().to_owned());
    directory_cycle(&env, "overlay");
}

/// The user-space overlay, asked for with `AGENTS_OVERLAY=userspace`
/// (what runs where the kernel's cannot be mounted).
#[test]
fn overlay_round_trip_in_user_space() {
    let mut env = Env::new();
    env.vars
        .push(("AGENTS_OVERLAY".to_owned(), "userspace".to_owned()));
    let mounts_before = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    directory_cycle(&env, "overlay");
    let mounts_after = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let home = env.home.path().display().to_string();
    assert!(
        !mounts_after.contains(&home) && !mounts_before.contains(&home),
        "user space mounts nothing"
    );
}

/// An `AGENTS_OVERLAY` naming no mode: the registry opens and works, and
/// creating an overlay sandbox is refused, saying which value and what to
/// set (the CLI reads the variable; the library is handed the mode).
#[test]
fn an_unknown_agents_overlay_value_refuses_only_overlay_sandboxes() {
    let mut env = Env::new();
    env.vars
        .push(("AGENTS_OVERLAY".to_owned(), "fast".to_owned()));
    let original = project(&env);
    env.add("fs-directory", "local/project", &original, &[])
        .ok();
    let refused = env
        .run(&["sandbox", "create", "local/project", "--strategy", "overlay"])
        .refused(&[r#"AGENTS_OVERLAY="fast" names no overlay mode; set it to auto, kernel or userspace, or unset it"#])
        .to_owned();
    assert!(
        refused.contains("(overlay of local/project): create failed"),
        "{refused}"
    );
    create(&env, "local/project", &["--strategy", "copy_on_write"]);
}

/// Lazily unmounts whatever is still mounted below a directory when a
/// test ends (an overlay sandbox left by a failed assertion).
struct UnmountBelow(PathBuf);

impl Drop for UnmountBelow {
    fn drop(&mut self) {
        let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
            return;
        };
        let below = format!(" {}/", self.0.display());
        for line in table.lines().filter(|l| l.contains(&below)) {
            if let Some(point) = line.split(' ').nth(4) {
                let _ = rustix::mount::unmount(point, rustix::mount::UnmountFlags::DETACH);
            }
        }
    }
}

#[test]
fn git_worktree_round_trip() {
    let env = Env::new();
    let repo = env.path("repo");
    git_repo(&repo);
    // An uncommitted change in the original is not carried over.
    std::fs::write(repo.join("README.md"), "# api, uncommitted\n").unwrap();
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    // The work tree, not the repository's own files (refs, worktrees).
    let work_tree = |dir: &Path| {
        let mut t = tree(dir);
        t.retain(|path, _| path != ".git" && !path.starts_with(".git/"));
        t
    };
    let before = work_tree(&repo);
    let head = git(&repo, &["rev-parse", "HEAD"]);

    let sb = create(&env, "local/repo", &[]);
    assert_eq!(
        std::fs::read_to_string(sb.workdir.join("README.md")).unwrap(),
        "# api\n"
    );
    std::fs::write(sb.workdir.join("src/main.py"), "print('changed')\n").unwrap();
    std::fs::write(sb.workdir.join("untracked.txt"), "new\n").unwrap();
    let first = work_tree(&sb.workdir);
    sandbox(&env, "checkpoint", &sb.id, &["--label", "edit"]).ok();
    std::fs::remove_file(sb.workdir.join("README.md")).unwrap();
    std::fs::write(sb.workdir.join("later.txt"), "later\n").unwrap();
    sandbox(&env, "rollback", &sb.id, &[]).ok();
    assert_eq!(work_tree(&sb.workdir), first);
    assert!(
        !sb.workdir.join("later.txt").exists(),
        "files created since are removed"
    );

    // A commit the agent makes in the sandbox is part of the diff.
    git(
        &sb.workdir,
        &[
            "-c",
            "user.name=agent",
            "-c",
            "user.email=a@example.com",
            "commit",
            "-qam",
            "agent edit",
        ],
    );
    let diff = sandbox(&env, "diff", &sb.id, &["-o", "json"]).json();
    assert!(
        diff["commits"][0].as_str().unwrap().ends_with("agent edit"),
        "{diff}"
    );
    assert!(
        diff["modified"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "src/main.py"),
        "{diff}"
    );
    assert!(
        diff["added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "untracked.txt"),
        "{diff}"
    );

    let shown = sandbox(&env, "show", &sb.id, &["-o", "json"]).json();
    assert_eq!(shown["checkpoints"][0]["label"], "edit");
    assert_eq!(shown["strategy"], "git_worktree");

    let applied = sandbox(&env, "apply", &sb.id, &["-o", "json"]).json();
    let branch = applied["branch"].as_str().unwrap().to_owned();
    assert!(branch.starts_with("agents/sandbox-"), "{applied}");
    assert_eq!(
        git(&repo, &["rev-parse", "HEAD"]),
        head,
        "the user's HEAD did not move"
    );
    assert_eq!(
        work_tree(&repo),
        before,
        "the user's work tree is untouched"
    );
    let on_branch = git(&repo, &["show", &format!("{branch}:src/main.py")]);
    assert_eq!(on_branch.trim(), "print('changed')");

    sandbox(&env, "destroy", &sb.id, &[]).ok();
    let refs = git(&repo, &["for-each-ref", "refs/agents/"]);
    assert!(refs.trim().is_empty(), "refs left: {refs}");
    let worktrees = git(&repo, &["worktree", "list"]);
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
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
            .register_resource(NewResource {
                type_name: "fs-directory".into(),
                name: Some(name.into()),
                args: vec![("path".into(), dir.display().to_string())],
                read_only,
                ..NewResource::default()
            })
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
mod rows;
mod transaction;
