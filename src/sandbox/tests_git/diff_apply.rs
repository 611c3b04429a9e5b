//! What the agent's work becomes: a diff lists exactly the changed paths
//! and the sandbox's commits and writes nothing into the original's
//! `.git`; apply makes a branch, leaves the user alone, and refuses a
//! second time.

use super::*;

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
