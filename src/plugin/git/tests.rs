use super::answers::wire_name;
use super::*;
use crate::git_env::test_git;
use std::path::Path;

#[test]
fn refs_are_parsed_with_their_kind_target_and_peel() {
    let out = "refs/heads/main\0aaaa\0\0refs/remotes/origin/main\n\
               refs/heads/feature/x\0bbbb\0\0refs/heads/main\n\
               refs/remotes/origin/main\0aaaa\0\0\n\
               refs/tags/v1\0cccc\0aaaa\0\n\
               refs/tags/light\0aaaa\0\0\n\
               refs/stash\0dddd\0\0\n";
    let refs = parse_refs(out);
    assert_eq!(refs.len(), 6);
    assert_eq!(refs[0].kind, RefKind::Branch);
    assert_eq!(refs[0].upstream.as_deref(), Some("origin/main"));
    assert_eq!(refs[1].short_name, "feature/x");
    assert_eq!(
        refs[1].upstream.as_deref(),
        Some("main"),
        "a local upstream"
    );
    assert_eq!(refs[2].short_name, "origin/main");
    assert_eq!(refs[2].kind, RefKind::RemoteBranch);
    assert_eq!(refs[3].peeled.as_deref(), Some("aaaa"), "annotated");
    assert_eq!(refs[4].peeled, None, "light");
    assert_eq!(refs[5].kind, RefKind::Other);
    assert_eq!(refs[5].short_name, "stash");
}

#[test]
fn remotes_gather_url_and_push_url_by_name() {
    let out = "remote.origin.url\nhttps://example.com/a.git\0\
               remote.up.stream.url\n/srv/b.git\0\
               remote.origin.pushurl\nssh://example.com/a.git\0";
    let remotes = parse_remotes(out);
    assert_eq!(remotes.len(), 2);
    assert_eq!(remotes[0].name, "origin");
    assert_eq!(
        remotes[0].push_url.as_deref(),
        Some("ssh://example.com/a.git")
    );
    assert_eq!(remotes[1].name, "up.stream", "a dotted remote name");
}

#[test]
fn stashes_are_numbered_newest_first() {
    let out = "1111\0On main: second\0\n2222\0WIP on main: first\0";
    let stashes = parse_stashes(out);
    assert_eq!(stashes.len(), 2);
    assert_eq!((stashes[1].index, stashes[1].commit.as_str()), (1, "2222"));
    assert_eq!(stashes[0].message, "On main: second");
}

#[test]
fn submodules_join_gitmodules_and_the_index() {
    let config = "submodule.lib.path\nvendor/lib\0submodule.lib.url\n../lib.git\0";
    let staged = "100644 aaaa 0\tREADME.md\x00160000 bbbb 0\tvendor/lib\0";
    let subs = parse_submodules(config, staged);
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].url.as_deref(), Some("../lib.git"));
    assert_eq!(subs[0].commit.as_deref(), Some("bbbb"));
}

#[test]
fn commits_trees_and_statuses_are_parsed() {
    let c = parse_commit(
        "aaaa\0tttt\0p1 p2\0Ann\0ann@example.com\x001700000000\x001700000001\0fix: a b\n",
    )
    .unwrap();
    assert_eq!(c.parents, ["p1", "p2"]);
    assert_eq!(c.summary, "fix: a b");
    let tree = parse_tree(
        b"100644 blob aaaa\ta file.txt\x00040000 tree bbbb\tsrc\x00120000 blob cccc\tlink\0",
    );
    assert_eq!(tree.len(), 3);
    assert_eq!(tree[0].name, "a file.txt");
    assert_eq!(tree[1].kind, EntryKind::Tree);
    assert_eq!(tree[2].mode, 0o120000);
    let status = parse_status(" M a.c\0R  new.c\0old.c\0?? b\0");
    assert_eq!(status.len(), 3);
    assert_eq!(
        (status[1].index.as_str(), status[1].path.as_str()),
        ("R", "new.c")
    );
    assert_eq!(status[2].index, "?");
}

#[test]
fn tree_names_that_are_not_utf8_cross_one_to_one() {
    let tree = parse_tree(b"100644 blob aaaa\tcaf\xe9.txt\x00100644 blob bbbb\tcaf\xc3\xa9.txt\0");
    assert_eq!(tree[0].name, "caf\u{10ffe9}.txt");
    assert_eq!(tree[1].name, "café.txt");
    assert_eq!(
        wire_name("\u{10ffe9}".as_bytes()),
        "\u{10fff4}\u{10ff8f}\u{10ffbf}\u{10ffa9}"
    );
}

#[test]
fn requests_that_could_become_options_or_escape_are_refused() {
    assert!(check_id("--output=/tmp/x").is_err());
    assert!(check_id("HEAD").is_err());
    assert!(check_id("abcd1234").is_ok());
    assert!(check_path("../x").is_err());
    assert!(check_path("/etc/passwd").is_err());
    assert!(check_path("src/main.py").is_ok());
    assert!(check_branch("-f").is_err());
    assert!(check_branch("a..b").is_err());
    assert!(check_branch("main@{upstream}").is_err());
    assert!(check_branch("feature/x").is_ok());
}

fn scope_at(dir: &Path, memo: Option<Arc<GitMemo>>) -> GitScope {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).unwrap();
    GitScope::new(
        Some(GitDir {
            path: dir.to_path_buf(),
            identity: (meta.dev(), meta.ino()),
        }),
        memo,
        Arc::default(),
    )
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// A work tree with one commit, and a bare clone of it.
fn repos() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    test_git(&work, &["init", "-q"]);
    std::fs::write(work.join("src/a.txt"), "a").unwrap();
    test_git(&work, &["add", "-A"]);
    test_git(&work, &["commit", "-q", "-m", "one"]);
    test_git(&root, &["clone", "-q", "--bare", "work", "bare.git"]);
    (tmp, work, root.join("bare.git"))
}

#[test]
fn the_repository_is_found_from_a_work_tree_its_git_dir_or_a_bare_one() {
    let (_tmp, work, bare) = repos();
    let git_dir = work.join(".git").display().to_string();
    let top = Some(work.display().to_string());
    for dir in [work.clone(), work.join("src"), work.join(".git")] {
        let repo = block_on(scope_at(&dir, None).repository()).unwrap();
        assert_eq!(repo.git_dir, git_dir, "from {dir:?}");
        assert_eq!(repo.work_tree, top, "from {dir:?}");
        assert_eq!(repo.id_length, 40);
    }
    let repo = block_on(scope_at(&bare, None).repository()).unwrap();
    assert_eq!(repo.git_dir, bare.display().to_string());
    assert_eq!(repo.work_tree, None);
    let outside = work.parent().unwrap().join("plain");
    std::fs::create_dir(&outside).unwrap();
    assert!(matches!(
        block_on(scope_at(&outside, None).repository()),
        Err(GitError::NotARepository(_))
    ));
}

#[test]
fn within_one_snapshot_repository_wide_answers_hold_and_after_it_they_move() {
    let (_tmp, work, _bare) = repos();
    let slot = MemoSlot::default();
    let refs =
        |memo: Option<Arc<GitMemo>>| block_on(scope_at(&work, memo).references()).unwrap().len();
    let current = |slot: &MemoSlot| slot.lock().unwrap().clone();
    let snapshot = GitSnapshot::begin(&slot);
    let nested = GitSnapshot::begin(&slot);
    assert_eq!(refs(current(&slot)), 1);
    test_git(&work, &["branch", "second"]);
    drop(nested);
    assert_eq!(refs(current(&slot)), 1, "the operation's snapshot holds");
    assert_eq!(refs(None), 2, "a call outside it sees the repository now");
    drop(snapshot);
    assert!(current(&slot).is_none(), "the snapshot went with its owner");
    // Questions a guest parametrises are never kept.
    let memo = Some(Arc::new(GitMemo::default()));
    let mut scope = scope_at(&work, memo.clone());
    assert!(
        block_on(scope.status(Some("src/a.txt")))
            .unwrap()
            .is_empty()
    );
    std::fs::write(work.join("src/a.txt"), "changed").unwrap();
    let mut again = scope_at(&work, memo);
    assert_eq!(block_on(again.status(Some("src/a.txt"))).unwrap().len(), 1);
}

#[test]
fn refs_are_joined_from_the_listing_the_peeled_tags_and_the_configured_upstreams() {
    let listing = "refs/heads/main\0aaaa\n\
                   refs/heads/topic\0bbbb\n\
                   refs/tags/v1\0cccc\n\
                   refs/tags/light\0aaaa\n";
    let peeled = "aaaa refs/heads/main\n\
                  cccc refs/tags/v1\n\
                  aaaa refs/tags/v1^{}\n\
                  aaaa refs/tags/light\n";
    let upstreams = "refs/heads/main\0refs/remotes/origin/main\n";
    let refs = join_refs(listing, peeled, upstreams);
    assert_eq!(refs.len(), 4);
    assert_eq!(refs[0].upstream.as_deref(), Some("origin/main"));
    assert_eq!(refs[1].upstream, None, "no upstream configured");
    assert_eq!(refs[2].peeled.as_deref(), Some("aaaa"), "annotated");
    assert_eq!(refs[2].kind, RefKind::Tag);
    assert_eq!(refs[3].peeled, None, "light");
}

#[test]
fn the_branches_with_an_upstream_are_read_from_their_merge_keys() {
    let out = "branch.main.merge\0branch.feature/x.y.merge\0branch..merge\0";
    assert_eq!(configured_upstreams(out), ["main", "feature/x.y"]);
}

#[test]
fn a_round_of_questions_is_asked_together_and_answers_the_rest_of_the_operation() {
    let (_tmp, work, bare) = repos();
    let memo = Some(Arc::new(GitMemo::default()));
    // The status asks the repository's listing in the same round: a
    // branch made after it is not in the operation's answers.
    assert!(
        block_on(scope_at(&work, memo.clone()).status(None))
            .unwrap()
            .is_empty()
    );
    test_git(&work, &["branch", "second"]);
    test_git(
        &work,
        &["remote", "add", "origin", "https://example.com/r.git"],
    );
    let mut later = scope_at(&work, memo.clone());
    assert_eq!(block_on(later.references()).unwrap().len(), 1);
    assert!(block_on(later.remotes()).unwrap().is_empty());
    assert!(block_on(later.stashes()).unwrap().is_empty());
    // HEAD's branch and commit come as one round too.
    let head = block_on(scope_at(&work, memo.clone()).head()).unwrap();
    test_git(&work, &["commit", "-q", "--allow-empty", "-m", "two"]);
    let again = block_on(scope_at(&work, memo).head()).unwrap();
    assert_eq!(head.commit, again.commit);
    assert!(head.branch.is_some());
    // Without a memo nothing is kept: each question sees the repository
    // as it is.
    assert_eq!(
        block_on(scope_at(&work, None).references()).unwrap().len(),
        2
    );
    assert_eq!(block_on(scope_at(&work, None).remotes()).unwrap().len(), 1);
    assert_ne!(
        block_on(scope_at(&work, None).head()).unwrap().commit,
        head.commit
    );
    // A bare repository: no status, and a listing as asked.
    let memo = Some(Arc::new(GitMemo::default()));
    assert!(block_on(scope_at(&bare, memo.clone()).status(None)).is_err());
    assert_eq!(
        block_on(scope_at(&bare, memo).references()).unwrap().len(),
        1
    );
}
