//! `git_worktree` against real repositories made in a temp directory.
//! The scenarios are in `tests_git/` (lifecycle, checkpoint, diff_apply)
//! and `tests_git_timing.rs`; the repository and tree helpers they share
//! are here.

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use super::super::{Applied, SandboxError, SandboxPlace, Strategy};
use super::GitWorktree;
use crate::git_env::test_git;

#[path = "tests_git/checkpoint.rs"]
mod checkpoint;
#[path = "tests_git/diff_apply.rs"]
mod diff_apply;
#[path = "tests_git/lifecycle.rs"]
mod lifecycle;
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

/// The first round of changes: one of every kind (a new nested file, a
/// binary, a deletion, an edit, a mode change, a symlink, an ignored file).
fn change_everything(work: &Path) {
    write(work, "deep/nested/new.txt", b"new and nested\n");
    write(work, "blob.bin", &[0u8, 159, 146, 150, 255, 0, 10, 13]);
    std::fs::remove_file(work.join("doomed.txt")).unwrap();
    write(work, "src/lib.rs", b"pub fn f() -> u8 { 1 }\n");
    std::fs::set_permissions(work.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    symlink("src/lib.rs", work.join("link")).unwrap();
    write(work, "build.log", b"ignored\n");
}
