//! Checkpoints and rollback: a rollback restores the checkpointed tree
//! byte for byte (and only to one of its own checkpoints), a checkpoint
//! leaves the agent's HEAD, index and files as they were, and neither is
//! lost to a later ignore rule, a checkpoint that failed halfway, a
//! damaged host index or a huge sparse file.

use super::*;

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
