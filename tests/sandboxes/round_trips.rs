//! Each strategy's whole cycle through the CLI: changes, checkpoints,
//! rollbacks to each, the original untouched, diff, apply, destroy.

use super::{create, project, sandbox, tree};
use crate::common::{Env, git, git_repo};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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

/// One operation at a time on a sandbox: diffs and checkpoints run at
/// once (each its own process) all succeed, and every checkpoint holds
/// the whole working copy — none is recorded from an index another
/// operation was rebuilding at the same moment.
#[test]
fn concurrent_diffs_and_checkpoints_take_turns() {
    let env = Env::new();
    let repo = env.path("repo");
    git_repo(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    let sb = create(&env, "local/repo", &[]);
    for i in 0..400 {
        std::fs::write(sb.workdir.join(format!("new-{i}.txt")), format!("{i}\n")).unwrap();
    }
    let commands: Vec<Vec<String>> = (0..8)
        .map(|i| {
            let verb = if i % 2 == 0 { "diff" } else { "checkpoint" };
            ["sandbox", verb, &sb.id, "-o", "json"]
                .map(str::to_owned)
                .to_vec()
        })
        .collect();
    for (i, run) in env.race(&commands).iter().enumerate() {
        let answer = run.json();
        if i % 2 == 0 {
            assert_eq!(answer["added"].as_array().unwrap().len(), 400, "{answer}");
        }
    }
    let shown = sandbox(&env, "show", &sb.id, &["-o", "json"]).json();
    let checkpoints = shown["checkpoints"].as_array().unwrap();
    assert_eq!(checkpoints.len(), 4, "{shown}");
    for checkpoint in checkpoints {
        let reference = checkpoint["reference"].as_str().unwrap();
        let files = git(&repo, &["ls-tree", "-r", "--name-only", reference]);
        assert_eq!(files.lines().count(), 402, "checkpoint {checkpoint}");
    }
}
