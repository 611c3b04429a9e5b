//! Which repository a call's location is in — its git directory, work
//! tree and object format, as git says — and the two facts the host
//! checks itself before it believes that answer: the work tree holds the
//! repository (a `core.worktree` pointing elsewhere is refused, not
//! followed), and what the repository's configuration lists (for
//! [`Neutral`]). Also reading a work tree path without leaving it.

use super::{GitError, OUTPUT_LIMIT, Repository, classify, git_output};
use crate::git_env::{GitTools, LIST_CONFIG, Neutral};
use std::path::{Path, PathBuf};

impl Repository {
    /// `--git-dir=…` and, with a work tree, `--work-tree=…`: every git
    /// process names the repository rather than finding it again.
    pub(super) fn dir_args(&self) -> Vec<String> {
        let mut args = vec![format!("--git-dir={}", self.git_dir)];
        if let Some(tree) = &self.work_tree {
            args.push(format!("--work-tree={tree}"));
        }
        args
    }

    /// Where git runs: the work tree, or (bare) the git directory.
    pub(super) fn run_dir(&self) -> PathBuf {
        self.work_tree
            .as_deref()
            .map_or_else(|| PathBuf::from(&self.git_dir), PathBuf::from)
    }
}

/// Which repository contains `dir`: git's own answer, one process —
/// its git directory, whether it is bare, its object format and (inside a
/// work tree) the work tree's root, a line each. Asked from inside a git
/// directory, `--show-toplevel` fails after the first three lines are
/// out; those are the answer then. `rev-parse` reads configuration but
/// runs nothing it names; the fixed overrides hold anyway.
pub(super) async fn locate(git: &GitTools, dir: &Path) -> Result<String, GitError> {
    let out = git_output(
        git,
        dir,
        &[
            "rev-parse",
            "--absolute-git-dir",
            "--is-bare-repository",
            "--show-object-format",
            "--show-toplevel",
        ],
        None,
        &Neutral::fixed(),
    )
    .await?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.success {
        return Ok(stdout);
    }
    if out.stderr.contains("must be run in a work tree") && stdout.lines().count() == 3 {
        return Ok(stdout);
    }
    Err(classify(out.stderr))
}

/// The repository [`locate`] answered, its work tree checked to hold it.
pub(super) fn repository_of(located: &str) -> Result<Repository, GitError> {
    let mut lines = located.lines();
    let git_dir = lines.next().unwrap_or_default().to_owned();
    let bare = lines.next() == Some("true");
    let id_length = if lines.next() == Some("sha256") {
        64
    } else {
        40
    };
    let work_tree = match (bare, lines.next()) {
        (true, _) => None,
        (false, Some(top)) if !top.is_empty() => {
            check_work_tree(&git_dir, top)?;
            Some(top.to_owned())
        }
        // Asked from inside the git directory: the work tree is the
        // directory holding `.git`.
        (false, _) => Path::new(&git_dir)
            .file_name()
            .filter(|n| *n == ".git")
            .and_then(|_| Path::new(&git_dir).parent())
            .map(|p| p.display().to_string()),
    };
    Ok(Repository {
        git_dir,
        work_tree,
        id_length,
    })
}

/// A work tree holds its repository when its `.git` is that git
/// directory, or a `.git` file naming it (a linked worktree, a
/// submodule). `core.worktree` can set any directory as the work tree;
/// git would then read (and hash, and list) files there, outside what
/// the call was scoped to: that is refused.
fn check_work_tree(git_dir: &str, work_tree: &str) -> Result<(), GitError> {
    let dot_git = Path::new(work_tree).join(".git");
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let named = match std::fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => Some(dot_git.clone()),
        Ok(meta) if meta.is_file() => {
            let target = crate::git_env::gitfile_target(&dot_git);
            if let Some(target) = &target
                && !gitfile_is_genuine(target, &dot_git, &real)
            {
                return Err(GitError::Failed(format!(
                    "{}'s .git file names {}, which is neither a linked worktree of a repository (its `gitdir` file does not name this .git file back) nor a submodule's repository inside the enclosing repository's .git/modules; the host answers only for a checkout's own repository",
                    crate::text::quote(work_tree),
                    crate::text::quote(&target.display().to_string())
                )));
            }
            target
        }
        _ => None,
    };
    if named
        .as_deref()
        .and_then(real)
        .is_some_and(|n| Some(n) == real(Path::new(git_dir)))
    {
        return Ok(());
    }
    // `failed`, not `not-a-repository`: the handler shows this reason.
    Err(GitError::Failed(format!(
        "the repository {} sets its work tree to {} (core.worktree), which does not hold it (its .git is not that repository); the host answers only for the work tree a repository is in",
        crate::text::quote(git_dir),
        crate::text::quote(work_tree)
    )))
}

/// A `.git` file names a repository of this checkout's own when it is
/// what `git worktree add` made (the named directory's `gitdir` file
/// names this `.git` file back) or what `git submodule` made (a
/// directory below `.git/modules/` of a repository whose work tree holds
/// this checkout). Anything else — a `.git` file pointing at some other
/// repository to borrow it — is not.
fn gitfile_is_genuine(
    target: &Path,
    dot_git: &Path,
    real: &dyn Fn(&Path) -> Option<PathBuf>,
) -> bool {
    let back = std::fs::read_to_string(target.join("gitdir"))
        .ok()
        .map(|text| target.join(text.trim_end_matches(['\n', '\r'])));
    if back
        .as_deref()
        .and_then(real)
        .is_some_and(|b| Some(b) == real(dot_git))
    {
        return true;
    }
    let (Some(target), Some(checkout)) = (real(target), dot_git.parent().and_then(real)) else {
        return false;
    };
    // `<super>/.git/modules/<name>[/modules/<name>…]`, `<super>` an
    // ancestor of the checkout.
    let mut at = target.as_path();
    while let Some(parent) = at.parent() {
        if parent.file_name().is_some_and(|n| n == "modules")
            && let Some(git_dir) = parent.parent()
            && git_dir.file_name().is_some_and(|n| n == ".git")
            && let Some(superproject) = git_dir.parent()
        {
            return checkout.starts_with(superproject) && checkout != superproject;
        }
        at = parent;
    }
    false
}

/// What the repository's effective configuration holds, key by key with
/// each key's origin ([`LIST_CONFIG`]), read the way every later command
/// reads it (the same git directory and work tree).
pub(super) async fn list_config(git: &GitTools, repo: &Repository) -> Result<Vec<u8>, GitError> {
    let mut argv = repo.dir_args();
    argv.extend(LIST_CONFIG.iter().map(|a| (*a).to_owned()));
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = git_output(git, &repo.run_dir(), &argv, None, &Neutral::fixed()).await?;
    if out.success {
        Ok(out.stdout)
    } else {
        Err(classify(out.stderr))
    }
}

/// The bytes a work tree path holds now (a symlink's target text), read
/// without leaving the work tree: no symlink may be on the way.
pub(super) fn read_in_tree(tree: &Path, path: &str) -> Result<Option<Vec<u8>>, GitError> {
    use cap_primitives::fs::{FollowSymlinks, OpenOptions};
    let root = std::fs::File::open(tree)
        .map_err(|e| GitError::Failed(format!("{}: {e}", tree.display())))?;
    let rel = Path::new(path);
    let meta = match cap_primitives::fs::stat(&root, rel, FollowSymlinks::No) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(GitError::Failed(format!("{path}: {e}"))),
    };
    if meta.file_type().is_symlink() {
        let target = cap_primitives::fs::read_link(&root, rel)
            .map_err(|e| GitError::Failed(format!("{path}: {e}")))?;
        return Ok(Some(target.to_string_lossy().into_owned().into_bytes()));
    }
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.len() > OUTPUT_LIMIT {
        return Err(GitError::Failed(format!(
            "{path} is larger than {} MiB",
            OUTPUT_LIMIT >> 20
        )));
    }
    let mut opts = OpenOptions::new();
    opts.read(true)._cap_fs_ext_follow(FollowSymlinks::No);
    opts._cap_fs_ext_nonblock(true);
    let mut file = cap_primitives::fs::open(&root, rel, &opts)
        .map_err(|e| GitError::Failed(format!("{path}: {e}")))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes)
        .map_err(|e| GitError::Failed(format!("{path}: {e}")))?;
    Ok(Some(bytes))
}

/// Does git read some commits' parents other than their objects say —
/// a shallow clone's boundary (`shallow`), grafts (`info/grafts`) — in
/// the repository at `git_dir` or its common directory (a linked
/// worktree's)? Anything there, even unreadable, counts: then the
/// answer is git's own (`git show`), never the raw object's.
pub(super) fn grafted(git_dir: &Path) -> bool {
    use std::io::Read as _;
    let mut dirs = vec![git_dir.to_path_buf()];
    let mut named = String::new();
    if let Ok(file) = std::fs::File::open(git_dir.join("commondir")) {
        // A path: a few hundred bytes; more is not one.
        if file.take(4096).read_to_string(&mut named).is_err() {
            return true;
        }
        let named = named.trim_end_matches(['\n', '\r']);
        if !named.is_empty() {
            dirs.push(git_dir.join(named));
        }
    }
    dirs.iter().any(|dir| {
        ["shallow", "info/grafts"]
            .iter()
            .any(|f| std::fs::symlink_metadata(dir.join(f)).is_ok())
    })
}
