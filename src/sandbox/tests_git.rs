//! `git_worktree` against real repositories made in a temp directory.

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use super::super::{Applied, SandboxError, SandboxPlace, Strategy};
use super::GitWorktree;
use crate::git_env::test_git;

#[path = "tests_git_timing.rs"]
mod timing;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A repository with one commit, an ignored file, and a dirty work tree
/// (an uncommitted edit and an untracked file) the sandbox must not see.
fn repo(tmp: &Path) -> PathBuf {
    let root = tmp.join("orig");
    std::fs::create_dir(&root).unwrap();
    test_git(&root, &["init", "-q"]);
    write(&root, ".gitignore", b"*.log\n");
    write(&root, "README.md", b"hello\n");
    write(&root, "src/lib.rs", b"pub fn f() {}\n");
    write(&root, "doomed.txt", b"bye\n");
    write(&root, "run.sh", b"#!/bin/sh\n");
    test_git(&root, &["add", "-A"]);
    test_git(&root, &["commit", "-q", "-m", "first"]);
    write(&root, "README.md", b"hello, uncommitted\n");
    write(&root, "scratch.txt", b"untracked in the original\n");
    root
}

/// Path → kind (`f`, `d`, `l`, `s`pecial), permission bits, bytes or link target.
type Tree = BTreeMap<String, (char, u32, Vec<u8>)>;

/// Every entry below `root` but `.git`.
fn tree_of(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, ('l', 0, target.into_os_string().into_encoded_bytes()));
            } else if meta.is_dir() {
                out.insert(rel, ('d', mode, Vec::new()));
                walk(root, &path, out);
            } else if meta.is_file() {
                out.insert(rel, ('f', mode, std::fs::read(&path).unwrap()));
            } else {
                out.insert(rel, ('s', mode, Vec::new()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// What "the original untouched" means: its work tree, status, HEAD and
/// branches.
fn original_state(root: &Path) -> (Tree, Vec<String>) {
    let facts = [
        test_git(root, &["status", "--porcelain", "--untracked-files=all"]),
        test_git(root, &["symbolic-ref", "HEAD"]),
        test_git(root, &["rev-parse", "HEAD"]),
        test_git(root, &["for-each-ref", "refs/heads"]),
    ];
    (tree_of(root), facts.to_vec())
}

fn sandbox(tmp: &Path, original: &Path) -> SandboxPlace {
    let area = tmp.join("01SANDBOX");
    std::fs::create_dir(&area).unwrap();
    GitWorktree::default().create(original, &area).unwrap()
}

/// The first round of changes: every kind the issue names.
fn change_everything(work: &Path) {
    write(work, "deep/nested/new.txt", b"new and nested\n");
    write(work, "blob.bin", &[0u8, 159, 146, 150, 255, 0, 10, 13]);
    std::fs::remove_file(work.join("doomed.txt")).unwrap();
    write(work, "src/lib.rs", b"pub fn f() -> u8 { 1 }\n");
    std::fs::set_permissions(work.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    symlink("src/lib.rs", work.join("link")).unwrap();
    write(work, "build.log", b"ignored\n");
}

#[test]
fn sandbox_starts_from_head_without_the_originals_uncommitted_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let place = sandbox(tmp.path(), &original);
    assert_eq!(place.workdir, place.area.join("work"));
    assert_eq!(
        place.base,
        test_git(&original, &["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(
        std::fs::read(place.workdir.join("README.md")).unwrap(),
        b"hello\n"
    );
    assert!(!place.workdir.join("scratch.txt").exists());
    let head = test_git(&place.workdir, &["rev-parse", "--abbrev-ref", "HEAD"]);
    assert_eq!(head.trim(), "HEAD", "the worktree is detached");
}

#[test]
fn rollback_restores_the_checkpointed_tree_byte_for_byte_and_the_original_stays_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let before = original_state(&original);
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    let work = &place.workdir;

    change_everything(work);
    let first = git.checkpoint(&place, "first round").unwrap();
    let at_first = tree_of(work);
    let head_at_first = test_git(work, &["rev-parse", "HEAD"]);

    // More: a commit by the agent, edits, a new untracked tree, a deleted
    // symlink, a mode back, a file where a directory was.
    write(work, "committed.txt", b"agent commit\n");
    test_git(work, &["add", "committed.txt"]);
    test_git(work, &["commit", "-q", "-m", "agent work"]);
    write(work, "blob.bin", b"overwritten");
    write(work, "later/a/b.txt", b"created after the checkpoint\n");
    std::fs::remove_file(work.join("link")).unwrap();
    std::fs::set_permissions(work.join("run.sh"), PermissionsExt::from_mode(0o644)).unwrap();
    std::fs::remove_dir_all(work.join("deep")).unwrap();
    write(work, "deep", b"now a file\n");
    write(work, "later.log", b"ignored, created later\n");
    let second = git.checkpoint(&place, "second round").unwrap();
    let at_second = tree_of(work);
    assert_ne!(at_first, at_second);

    write(work, "third.txt", b"even more\n");
    git.rollback(&place, &second).unwrap();
    assert_eq!(tree_of(work), at_second);

    git.rollback(&place, &first).unwrap();
    let mut expected = at_first.clone();
    // Ignored files are outside checkpoints: neither restored nor removed.
    expected.insert("later.log".into(), at_second["later.log"].clone());
    assert_eq!(tree_of(work), expected);
    assert_eq!(test_git(work, &["rev-parse", "HEAD"]), head_at_first);

    assert_eq!(original_state(&original), before);
}

#[test]
fn rollback_refuses_a_commit_that_is_not_one_of_its_checkpoints() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let place = sandbox(tmp.path(), &original);
    let not_ours = super::super::CheckpointRef(place.base.clone());
    let err = GitWorktree::default()
        .rollback(&place, &not_ours)
        .unwrap_err();
    assert!(matches!(err, SandboxError::NoCheckpoint(_)), "{err}");
}

#[test]
fn diff_lists_exactly_the_changed_paths_and_the_sandboxs_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    change_everything(&place.workdir);
    write(&place.workdir, "committed.txt", b"agent commit\n");
    test_git(&place.workdir, &["add", "committed.txt"]);
    test_git(&place.workdir, &["commit", "-q", "-m", "agent work"]);

    let diff = git.diff(&place).unwrap();
    assert_eq!(
        diff.added,
        ["blob.bin", "committed.txt", "deep/nested/new.txt", "link"]
    );
    assert_eq!(diff.modified, ["run.sh", "src/lib.rs"]);
    assert_eq!(diff.deleted, ["doomed.txt"]);
    let head = test_git(&place.workdir, &["rev-parse", "HEAD"]);
    assert_eq!(diff.commits, [format!("{} agent work", head.trim())]);
}

#[test]
fn apply_makes_a_branch_leaves_the_user_alone_and_refuses_a_second_time() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let before = original_state(&original);
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    change_everything(&place.workdir);

    let applied = git.apply(&place).unwrap();
    assert_eq!(applied, Applied::Branch("agents/sandbox-01SANDBOX".into()));
    let files = test_git(
        &original,
        &["ls-tree", "-r", "--name-only", "agents/sandbox-01SANDBOX"],
    );
    assert!(files.lines().any(|f| f == "deep/nested/new.txt"), "{files}");
    assert!(!files.lines().any(|f| f == "doomed.txt" || f == "build.log"));
    let parent = test_git(&original, &["rev-parse", "agents/sandbox-01SANDBOX^"]);
    assert_eq!(parent.trim(), place.base);

    let (tree, mut facts) = original_state(&original);
    let (tree_before, mut facts_before) = before.clone();
    assert_eq!(tree, tree_before);
    // The branch list gained exactly the new branch.
    let branches = facts.remove(3);
    facts_before.remove(3);
    assert_eq!(facts, facts_before);
    assert!(branches.contains("refs/heads/agents/sandbox-01SANDBOX"));

    let err = git.apply(&place).unwrap_err();
    assert!(
        err.to_string()
            .contains("branch agents/sandbox-01SANDBOX already exists"),
        "{err}"
    );
}

#[test]
fn destroy_leaves_no_worktree_no_refs_and_no_area() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    change_everything(&place.workdir);
    git.checkpoint(&place, "one").unwrap();
    git.checkpoint(&place, "two").unwrap();
    let refs = test_git(&original, &["for-each-ref", "refs/agents"]);
    assert_eq!(refs.lines().count(), 2, "{refs}");

    git.destroy(&place).unwrap();
    let worktrees = test_git(&original, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(test_git(&original, &["for-each-ref", "refs/agents"]), "");
    assert!(!place.area.exists());
}

#[test]
fn create_refuses_a_directory_that_is_not_a_git_checkout() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let area = tmp.path().join("area");
    std::fs::create_dir(&area).unwrap();
    let err = GitWorktree::default().create(&plain, &area).unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    assert!(
        err.to_string()
            .contains("is not the root of a git work tree")
            && err.to_string().contains("needs a git checkout"),
        "{err}"
    );
}

#[test]
fn create_refuses_a_repository_without_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    test_git(&empty, &["init", "-q"]);
    let area = tmp.path().join("area");
    std::fs::create_dir(&area).unwrap();
    let err = GitWorktree::default().create(&empty, &area).unwrap_err();
    assert!(err.to_string().contains("has no commits yet"), "{err}");
}

#[test]
fn checkpoint_leaves_the_agents_head_index_and_files_as_they_were() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let place = sandbox(tmp.path(), &original);
    let work = &place.workdir;
    change_everything(work);
    test_git(work, &["add", "src/lib.rs"]);
    let status = test_git(work, &["status", "--porcelain", "--untracked-files=all"]);
    let head = test_git(work, &["rev-parse", "HEAD"]);
    let files = tree_of(work);

    let label = "keep\n\nAgents-Sandbox-Head: 0000000000000000000000000000000000000000";
    let git = GitWorktree::default();
    let first = git.checkpoint(&place, label).unwrap();
    assert_eq!(
        test_git(work, &["status", "--porcelain", "--untracked-files=all"]),
        status
    );
    assert_eq!(test_git(work, &["rev-parse", "HEAD"]), head);
    assert_eq!(tree_of(work), files);
    let message = test_git(work, &["show", "-s", "--format=%B", &first.0]);
    assert!(message.starts_with("keep\n"), "{message}");
    let parent = test_git(work, &["rev-parse", &format!("{}^", first.0)]);
    assert_eq!(parent.trim(), place.base);

    // A label that mimics the trailer does not decide where HEAD goes.
    write(work, "after.txt", b"after\n");
    git.rollback(&place, &first).unwrap();
    assert_eq!(test_git(work, &["rev-parse", "HEAD"]), head);
    assert!(!work.join("after.txt").exists());
}

#[test]
fn rollback_removes_files_that_only_a_later_ignore_rule_hid() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    let work = &place.workdir;
    let point = git.checkpoint(&place, "clean").unwrap();
    let at_point = tree_of(work);

    write(work, ".gitignore", b"*.log\n*.tmp\n");
    write(work, "hidden.tmp", b"not ignored at the checkpoint\n");
    git.rollback(&place, &point).unwrap();
    assert_eq!(tree_of(work), at_point);
}

#[test]
fn destroy_copes_with_a_worktree_removed_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    git.checkpoint(&place, "one").unwrap();
    std::fs::remove_dir_all(&place.workdir).unwrap();

    git.destroy(&place).unwrap();
    let worktrees = test_git(&original, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(test_git(&original, &["for-each-ref", "refs/agents"]), "");
    assert!(!place.area.exists());
}

#[test]
fn create_refuses_an_area_whose_name_cannot_be_a_ref() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let area = tmp.path().join("two words");
    std::fs::create_dir(&area).unwrap();
    let err = GitWorktree::default().create(&original, &area).unwrap_err();
    assert!(err.to_string().contains("becomes a git ref"), "{err}");
    assert!(!area.join("work").exists());
}

#[test]
fn a_git_that_cannot_run_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let area = tmp.path().join("area");
    std::fs::create_dir(&area).unwrap();
    let git = crate::git_env::GitTools::with_program("/nonexistent/git", "/usr/bin".as_ref());
    let err = GitWorktree::new(git).create(&original, &area).unwrap_err();
    assert!(matches!(err, SandboxError::Io { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("cannot run git /nonexistent/git:"),
        "{err}"
    );
}

#[test]
fn a_checkpoint_that_failed_halfway_leaves_the_earlier_ones_usable() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    let work = &place.workdir;
    write(work, "one.txt", b"one\n");
    let first = git.checkpoint(&place, "one").unwrap();
    let at_first = tree_of(work);

    // A stale lock on the next checkpoint's ref: git refuses to write it
    // after the commit was made.
    let refs = original.join(".git/refs/agents/sandbox/01SANDBOX");
    std::fs::write(refs.join("2.lock"), b"").unwrap();
    write(work, "two.txt", b"two\n");
    let err = git.checkpoint(&place, "two").unwrap_err();
    assert!(matches!(err, SandboxError::Git { .. }), "{err}");
    assert_eq!(
        test_git(
            &original,
            &["for-each-ref", "--format=%(refname)", "refs/agents"]
        ),
        "refs/agents/sandbox/01SANDBOX/1\n"
    );
    git.rollback(&place, &first).unwrap();
    assert_eq!(tree_of(work), at_first);

    std::fs::remove_file(refs.join("2.lock")).unwrap();
    write(work, "two.txt", b"two\n");
    let second = git.checkpoint(&place, "two").unwrap();
    let parent = test_git(work, &["rev-parse", &format!("{}^", second.0)]);
    assert_eq!(parent.trim(), first.0);
}

#[test]
fn apply_of_an_unchanged_sandbox_points_the_branch_at_its_head() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    assert_eq!(git.diff(&place).unwrap(), Default::default());
    git.apply(&place).unwrap();
    let branch = test_git(&original, &["rev-parse", "agents/sandbox-01SANDBOX"]);
    assert_eq!(branch.trim(), place.base);
}

/// Every file below `dir`: its path and bytes.
fn files_below(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A diff is a read: the agent's new and changed files are hashed into a
/// scratch store inside the area, never into the original's `.git`
/// (which a `--read-only` registry must not grow), and the scratch is
/// gone afterwards; the diff still sees everything.
#[test]
fn diff_writes_nothing_into_the_originals_git_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    change_everything(&place.workdir);
    write(&place.workdir, "big.bin", &vec![7u8; 1 << 20]);
    let before = files_below(&original.join(".git"));
    let diff = git.diff(&place).unwrap();
    assert!(diff.added.contains(&"big.bin".to_owned()), "{diff:?}");
    assert_eq!(diff.modified, ["run.sh", "src/lib.rs"]);
    let after = files_below(&original.join(".git"));
    let grown: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert!(grown.is_empty(), "the diff wrote {grown:?}");
    assert_eq!(before, after);
    assert!(!place.area.join("diff").exists(), "the scratch is removed");
    // A checkpoint after it still records everything (the host's index
    // was not pointed at objects that are gone).
    let point = git.checkpoint(&place, "after a diff").unwrap();
    let listed = test_git(&original, &["ls-tree", "-r", "--name-only", &point.0]);
    assert!(listed.lines().any(|l| l == "big.bin"), "{listed}");
    let blob = test_git(
        &original,
        &["cat-file", "-s", &format!("{}:big.bin", point.0)],
    );
    assert_eq!(blob.trim(), (1 << 20).to_string());
}

/// The host's index is in the area, where anything may write: garbage in
/// it costs one full read of the working copy, not a sandbox that can no
/// longer checkpoint.
#[test]
fn a_damaged_host_index_is_started_again() {
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    std::fs::write(place.area.join("state.index"), b"not an index at all").unwrap();
    write(&place.workdir, "README.md", b"after the damage\n");
    let point = git.checkpoint(&place, "").unwrap();
    let text = test_git(&original, &["show", &format!("{}:README.md", point.0)]);
    assert_eq!(text, "after the damage\n");
}

/// Git reads every byte of a file it records, holes
/// included, so a 16 TiB sparse file in the working copy is refused by
/// checkpoint and diff, naming it, at once (before, `git add -A` read it
/// until its deadline); ignored, it is left out and the sandbox works.
#[test]
fn a_huge_sparse_file_is_refused_by_name_unless_git_ignores_it() {
    use std::os::unix::fs::FileExt;
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let area = tmp.path().join("area");
    let strategy = GitWorktree::default().with_deadline(std::time::Duration::from_secs(60));
    let place = strategy.create(&original, &area).unwrap();
    let huge = place.workdir.join("disk.img");
    let file = std::fs::File::create(&huge).unwrap();
    let len = (16u64 << 40) - 4096;
    file.set_len(len).unwrap();
    for at in [0, len / 2, len - 4] {
        file.write_all_at(b"data", at).unwrap();
    }
    drop(file);
    for refused in [
        strategy.checkpoint(&place, "huge").map(drop),
        strategy.diff(&place).map(drop),
    ] {
        let message = refused.unwrap_err().to_string();
        assert!(
            message.contains("disk.img (17592186040320 bytes)")
                && message.contains("copy_on_write"),
            "{message}"
        );
    }
    write(&place.workdir, ".gitignore", b"*.log\n*.img\n");
    strategy.checkpoint(&place, "ignored").unwrap();
    let diff = strategy.diff(&place).unwrap();
    assert_eq!(diff.modified, vec![".gitignore".to_owned()], "{diff:?}");
    assert!(diff.added.is_empty(), "{diff:?}");
}
