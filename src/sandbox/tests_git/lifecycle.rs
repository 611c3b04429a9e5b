//! A `git_worktree` sandbox's beginning and end: it starts from HEAD
//! without the original's uncommitted changes; creating one refuses what
//! is not a checkout with commits, an area that cannot be a ref and a git
//! that cannot run; destroying it leaves no worktree, refs or area, even
//! when the worktree was removed by hand.

use super::*;

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
