//! The batch process against the one-shot answers it stands in for, on
//! real repositories holding commits and trees made to be awkward; and
//! its lifetime (gone with the operation, or the call, that made it).

use super::raw::{commit_of_raw, tree_of_raw};
use super::*;
use crate::git_env::test_git;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt;
use std::process::{Command, Stdio};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn scope_at(dir: &Path, memo: Option<Arc<GitMemo>>) -> GitScope {
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

/// `git ARGS` in `dir` with `input` on stdin; its stdout as bytes.
fn git_in(dir: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let tools = GitTools::default();
    let git = tools.find().unwrap();
    let mut child = Command::new(git.path)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(git.hermetic())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    out.stdout
}

/// Write `raw` as an object of `kind` as it is (no checks), answer its id.
fn object(dir: &Path, kind: &str, raw: &[u8]) -> String {
    let out = git_in(
        dir,
        &["hash-object", "-t", kind, "-w", "--literally", "--stdin"],
        raw,
    );
    String::from_utf8(out).unwrap().trim().to_owned()
}

/// A repository with a commit, and its work tree.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let work = std::fs::canonicalize(tmp.path()).unwrap().join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    test_git(&work, &["init", "-q"]);
    std::fs::write(work.join("src/a.txt"), "a").unwrap();
    test_git(&work, &["add", "-A"]);
    test_git(&work, &["commit", "-q", "-m", "one"]);
    (tmp, work)
}

/// Commits whose raw bytes take care to read as `git show` reads them:
/// each names `tree` (and `parent`, when given) first.
fn awkward_commits(tree: &str, parent: &str) -> Vec<Vec<u8>> {
    let head = |rest: &str| format!("tree {tree}\n{rest}").into_bytes();
    let person = "author A U Thor <a@example.com> 1700000000 +0100\n\
                  committer C O Mitter <c@example.com> 1700000001 -0500\n";
    let raw = vec![
        head(&format!(
            "parent {parent}\nparent {parent}\n{person}\nmerge\n"
        )),
        head(&format!(
            "{person}\n\n \nfirst line  \nsecond\tline\t\n\nthe body\n"
        )),
        head(&format!("{person}\n")),
        head(person),
        head("author <nameless@example.com> 5 +0000\ncommitter x <y> 6 +0000\n\nnameless\n"),
        head("author N <a>b> 7 +0000\ncommitter N <a> zzz\n\nbroken idents\n"),
        head("author no mail at all 8 +0000\n\nno committer\n"),
        head(&format!(
            "{person}gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n"
        )),
        [head(person), b"encoding ISO-8859-1\n\ncaf\xe9\n".to_vec()].concat(),
        [
            head(&format!("{person}\nnot utf-8: caf")),
            b"\xe9 \xff\n".to_vec(),
        ]
        .concat(),
    ];
    raw
}

#[test]
fn the_batch_reads_commits_as_git_show_does() {
    let (_tmp, work) = repo();
    let head = test_git(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    let tree = test_git(&work, &["rev-parse", "HEAD^{tree}"])
        .trim()
        .to_owned();
    let rt = runtime();
    let memo = Some(Arc::new(GitMemo::default()));
    let mut batched = scope_at(&work, memo);
    let mut one_shot = scope_at(&work, None);
    let mut raw_read = 0;
    for (i, raw) in awkward_commits(&tree, &head).iter().enumerate() {
        let id = object(&work, "commit", raw);
        let want = rt
            .block_on(one_shot.read_commit_one_shot(&format!("{id}^{{commit}}")))
            .unwrap();
        let got = rt.block_on(batched.read_commit(&id)).unwrap();
        assert_eq!(got, want, "commit {i}: {}", String::from_utf8_lossy(raw));
        // Read from the raw bytes, unless only git can say (a message
        // in another encoding).
        let read = commit_of_raw(&id, raw);
        if i == 8 {
            assert_eq!(read, None, "an encoding is git's to apply");
        } else {
            assert_eq!(read.as_ref(), Some(&want), "commit {i} from its raw bytes");
            raw_read += 1;
        }
    }
    assert_eq!(raw_read, 9);
    // A tag peels to its commit, as `^{commit}` does for git show.
    test_git(&work, &["tag", "-a", "-m", "t", "v1", &head]);
    let tag = test_git(&work, &["rev-parse", "v1"]).trim().to_owned();
    assert_eq!(rt.block_on(batched.read_commit(&tag)).unwrap().id, head);
    // What is not there is not found, as before.
    for missing in ["0123456789abcdef0123456789abcdef01234567", &tree] {
        assert!(matches!(
            rt.block_on(batched.read_commit(missing)),
            Err(GitError::NotFound(_))
        ));
    }
}

#[test]
fn the_batch_reads_trees_as_ls_tree_does() {
    let (_tmp, work) = repo();
    let blob = object(&work, "blob", b"x");
    let head = test_git(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    let sub = test_git(&work, &["rev-parse", "HEAD^{tree}"])
        .trim()
        .to_owned();
    let bin = |hex: &str| -> Vec<u8> {
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    };
    // Modes as old gits wrote them (100664, 100775), every kind, and
    // names that are not UTF-8 or hold spaces, in git's order.
    let mut raw = Vec::new();
    for (mode, name, id) in [
        ("100664", &b"a file.txt"[..], &blob),
        ("100775", b"b-tool", &blob),
        ("120000", b"c-link", &blob),
        ("160000", b"d-sub", &head),
        ("40000", b"e-dir", &sub),
        ("100644", b"f-caf\xe9", &blob),
    ] {
        raw.extend_from_slice(mode.as_bytes());
        raw.push(b' ');
        raw.extend_from_slice(name);
        raw.push(0);
        raw.extend_from_slice(&bin(id));
    }
    let tree = object(&work, "tree", &raw);
    let rt = runtime();
    let mut batched = scope_at(&work, Some(Arc::new(GitMemo::default())));
    let mut one_shot = scope_at(&work, None);
    for id in [tree.as_str(), sub.as_str(), head.as_str()] {
        let want = rt
            .block_on(one_shot.read_tree_one_shot(&format!("{id}^{{tree}}")))
            .unwrap();
        assert_eq!(rt.block_on(batched.read_tree(id)).unwrap(), want, "{id}");
    }
    let (entries, listed) = tree_of_raw(&raw, 20).unwrap();
    let listing = git_in(&work, &["ls-tree", "-z", &tree], b"");
    assert_eq!(listed, listing.len(), "the one-shot answer's size");
    assert_eq!(entries[0].mode, 0o100644);
    assert_eq!(entries[1].mode, 0o100755);
    assert_eq!(entries[3].kind, EntryKind::Commit);
    assert_eq!(entries[5].name, "f-caf\u{10ffe9}");
    assert!(matches!(
        rt.block_on(batched.read_tree("0123456789abcdef0123456789abcdef01234567")),
        Err(GitError::NotFound(_))
    ));
}

#[test]
fn a_shallow_clone_s_boundary_commit_has_no_parents_as_git_says() {
    let (_tmp, work) = repo();
    std::fs::write(work.join("src/a.txt"), "b").unwrap();
    test_git(&work, &["commit", "-q", "-am", "two"]);
    let root = work.parent().unwrap();
    let url = format!("file://{}", work.display());
    test_git(root, &["clone", "-q", "--depth", "1", &url, "shallow"]);
    let shallow = root.join("shallow");
    let head = test_git(&shallow, &["rev-parse", "HEAD"]).trim().to_owned();
    let rt = runtime();
    let mut scope = scope_at(&shallow, Some(Arc::new(GitMemo::default())));
    let commit = rt.block_on(scope.read_commit(&head)).unwrap();
    assert!(commit.parents.is_empty(), "{commit:?}");
    assert!(repo::grafted(&shallow.join(".git")));
    assert!(!repo::grafted(&work.join(".git")));
}

/// The `git cat-file --batch` processes of this test process asking
/// about the repository at `work`.
fn batch_processes(work: &Path) -> usize {
    batch_pids(work).len()
}

fn batch_pids(work: &Path) -> Vec<i32> {
    let me = std::process::id().to_string();
    let needle = format!("--git-dir={}", work.join(".git").display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // `pid (comm) state ppid …`; comm may hold spaces.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_owned));
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            ppid.as_deref() == Some(&me)
                && args.contains(&&b"cat-file"[..])
                && args.contains(&needle.as_bytes())
        })
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

#[test]
fn an_operation_s_batch_process_serves_its_calls_and_is_gone_when_it_ends() {
    let (_tmp, work) = repo();
    let head = test_git(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    let rt = runtime();
    let slot = MemoSlot::default();
    let snapshot = GitSnapshot::begin(&slot);
    let memo = || slot.lock().unwrap().clone();
    assert_eq!(batch_processes(&work), 0);
    for _ in 0..3 {
        // One call after another, each with its own scope.
        let mut call = scope_at(&work, memo());
        rt.block_on(call.read_commit(&head)).unwrap();
        rt.block_on(call.read_tree(&head)).unwrap();
        assert_eq!(batch_processes(&work), 1, "one process for the operation");
    }
    drop(snapshot);
    assert_eq!(batch_processes(&work), 0, "ended with the operation");
    // Outside an operation, a call's process ends with the call.
    let mut call = scope_at(&work, None);
    rt.block_on(call.read_commit(&head)).unwrap();
    assert_eq!(batch_processes(&work), 1);
    drop(call);
    assert_eq!(batch_processes(&work), 0, "ended with the call");
}

#[test]
fn a_question_abandoned_half_way_takes_its_process_with_it() {
    let (_tmp, work) = repo();
    let head = test_git(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    let rt = runtime();
    let memo = Arc::new(GitMemo::default());
    let mut call = scope_at(&work, Some(memo.clone()));
    rt.block_on(call.read_commit(&head)).unwrap();
    assert_eq!(batch_processes(&work), 1);
    // The deadline passes while the process is lent out (stopped, so it
    // cannot answer): the future, and the process it holds, are dropped,
    // never given back.
    let pid = rustix::process::Pid::from_raw(batch_pids(&work)[0]).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    rt.block_on(async {
        let asking = call.read_tree(&head);
        let waited = tokio::time::timeout(std::time::Duration::from_millis(50), asking).await;
        assert!(waited.is_err(), "a stopped process does not answer");
    });
    assert_eq!(batch_processes(&work), 0, "not kept half-read");
    // The next question makes a fresh one.
    assert_eq!(rt.block_on(call.read_commit(&head)).unwrap().id, head);
    assert_eq!(batch_processes(&work), 1);
}
