//! The working copy's whole state as a tree (tracked, untracked but not
//! ignored, deletions, nested repositories as gitlinks), built in a
//! temporary index beside the sandbox so the agent's own index and HEAD
//! never move: what a checkpoint records, a diff compares and an apply
//! commits.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::repo::{Git, Side};
use crate::sandbox::{SandboxError, SandboxPlace};

/// The host's own index of the working copy: `git add -A` updates it,
/// `write-tree` reads it. It is never a copy: git's rule for stat
/// information that may be stale (an entry whose time is not before the
/// index file's own is re-read, "racily clean") holds only while the
/// index file's time is the one git gave it when it wrote it, and a
/// copy's time is the copy's.
pub(super) const STATE_INDEX: &str = "state.index";

/// The tree of the working copy's whole state (see the module doc),
/// built in the host's own index (`<area>/state.index`) so the sandbox's
/// index — the agent's — is neither touched nor trusted.
pub(super) fn whole_state_tree(
    git: &Git<'_>,
    place: &SandboxPlace,
) -> Result<String, SandboxError> {
    let index = place.area.join(STATE_INDEX);
    // The index is the host's, and its operations on this sandbox are
    // serialised by the sandbox's lock: a lock file left beside it is
    // from a git that was killed (at its deadline).
    let _ = std::fs::remove_file(place.area.join(format!("{STATE_INDEX}.lock")));
    // What earlier versions left: a copy of the agent's index.
    let _ = std::fs::remove_file(place.area.join("checkpoint.index"));
    tree_in(git, &index, &[])
}

/// Where a diff computes: a copy of the host's index (its time kept, so
/// git's racy rule holds for it) and an object store of its own inside
/// the area, borrowing the original's objects (git's alternates) — a
/// diff writes nothing into the original's `.git`. Removed when dropped.
pub(super) struct Scratch {
    dir: PathBuf,
    index: PathBuf,
    objects: PathBuf,
    alternate: PathBuf,
}

impl Scratch {
    pub(super) fn new(git: &Git<'_>, place: &SandboxPlace) -> Result<Scratch, SandboxError> {
        let dir = place.area.join("diff");
        let _ = super::super::copy_on_write::tree::remove_tree(&dir);
        let objects = dir.join("objects");
        std::fs::create_dir_all(&objects).map_err(|source| SandboxError::Io {
            what: "cannot create",
            path: objects.clone(),
            source,
        })?;
        let index = dir.join("index");
        copy_keeping_time(&place.area.join(STATE_INDEX), &index);
        Ok(Scratch {
            dir,
            index,
            objects,
            alternate: git.objects(),
        })
    }

    /// The environment every git of the diff runs with.
    pub(super) fn env(&self) -> [(&'static str, &OsStr); 3] {
        [
            ("GIT_INDEX_FILE", self.index.as_os_str()),
            ("GIT_OBJECT_DIRECTORY", self.objects.as_os_str()),
            (
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                self.alternate.as_os_str(),
            ),
        ]
    }

    /// The whole state's tree, in the scratch store.
    pub(super) fn tree(&self, git: &Git<'_>) -> Result<String, SandboxError> {
        tree_in(git, &self.index, &self.env()[1..])
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = super::super::copy_on_write::tree::remove_tree(&self.dir);
    }
}

/// `git add -A` into `index`, then `write-tree`, with `extra` environment.
fn tree_in(git: &Git<'_>, index: &Path, extra: &[(&str, &OsStr)]) -> Result<String, SandboxError> {
    let paths = index.with_extension("paths");
    let mut env = vec![("GIT_INDEX_FILE", index.as_os_str())];
    env.extend_from_slice(extra);
    // An index git cannot read (a crash cannot make one: git renames a
    // whole new index into place; something else writing into the area
    // can) is started again: every file is then read once.
    refuse_sparse_giants(git, &env, &index.with_extension("sparse"))?;
    let tree = match index_whole_state(git, &env, &paths) {
        Err(SandboxError::Git { stderr, .. }) if stderr.contains("index file") => {
            let _ = std::fs::remove_file(index);
            index_whole_state(git, &env, &paths)
        }
        other => other,
    }
    .and_then(|()| git.run_with(Side::Sandbox, &[OsStr::new("write-tree")], &env, None));
    let _ = std::fs::remove_file(&paths);
    Ok(tree?.trim().to_string())
}

/// Holes a file of the working copy may have before git is not handed it.
pub(super) const MAX_HOLES: u64 = 1 << 30;

/// Refuse when the working copy holds a file git would record whose holes
/// pass [`MAX_HOLES`] (its length less what it takes on disk): git reads
/// every byte of what it adds, holes included, so a 16 TiB sparse file
/// would be read (and stored) for hours. Such a file is named, with the
/// ways out: ignore it, or sandbox with `copy_on_write`, which keeps
/// holes. A file git ignores, or inside a nested repository (recorded as
/// a gitlink, never read), is left alone; only files are looked at, by
/// their stat, and symlinks are not followed. `list` is a scratch file
/// (beside the index, in the area) for the names asked about.
fn refuse_sparse_giants(
    git: &Git<'_>,
    env: &[(&str, &OsStr)],
    list: &Path,
) -> Result<(), SandboxError> {
    use std::os::unix::fs::MetadataExt;
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, u64)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            let path = entry.path();
            if meta.is_dir() {
                // `.git` and nested repositories are git's, not files it adds.
                if entry.file_name() != ".git" && !path.join(".git").exists() {
                    walk(root, &path, out);
                }
            } else if meta.is_file()
                && meta.len().saturating_sub(meta.blocks() * 512) > MAX_HOLES
                && let Some(rel) = path.strip_prefix(root).ok().and_then(Path::to_str)
            {
                out.push((rel.to_owned(), meta.len()));
            }
        }
    }
    let root = git.work_tree();
    let mut found = Vec::new();
    walk(root, root, &mut found);
    if found.is_empty() {
        return Ok(());
    }
    // Which of them git ignores (a tracked file never is).
    let text: String = found.iter().map(|(p, _)| format!("{p}\0")).collect();
    std::fs::write(list, text).map_err(|source| SandboxError::Io {
        what: "cannot write",
        path: list.to_path_buf(),
        source,
    })?;
    let ignored = git.run_with(
        Side::Sandbox,
        &["check-ignore", "-z", "--stdin"].map(OsStr::new),
        env,
        Some(list),
    );
    let _ = std::fs::remove_file(list);
    let ignored: Vec<String> = match ignored {
        Ok(out) => out.split('\0').map(str::to_owned).collect(),
        // `check-ignore` exits 1 when none is ignored.
        Err(SandboxError::Git { stderr, .. }) if stderr.trim().is_empty() => Vec::new(),
        Err(e) => return Err(e),
    };
    let refused: Vec<String> = found
        .into_iter()
        .filter(|(p, _)| !ignored.contains(p))
        .map(|(p, len)| format!("{p} ({len} bytes)"))
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(SandboxError::Unsuitable(format!(
        "the working copy holds sparse files with more than {MAX_HOLES} bytes of holes: {}; git \
         reads every byte of a file it records, holes included, so git_worktree does not hand \
         it these: ignore them (.gitignore), remove them, or sandbox with copy_on_write, which \
         keeps holes",
        refused.join(", ")
    )))
}

/// Copy `from` to `to` keeping its modification time, or leave no `to`.
fn copy_keeping_time(from: &Path, to: &Path) {
    let copied = std::fs::metadata(from)
        .and_then(|m| m.modified())
        .and_then(|modified| {
            std::fs::copy(from, to)?;
            std::fs::File::options()
                .write(true)
                .open(to)?
                .set_modified(modified)
        });
    if copied.is_err() {
        let _ = std::fs::remove_file(to);
    }
}

/// Seed the host's index from the one `git worktree add` just wrote (the
/// agent has not run yet), keeping that file's modification time so
/// git's racy rule still holds for it: the first checkpoint then reads
/// only what changed. A seed that cannot be made with its time is not
/// left behind (a copy with a new time is what must never be used): the
/// first checkpoint then reads every file once.
pub(super) fn seed_state_index(git: &Git<'_>, place: &SandboxPlace) {
    copy_keeping_time(&git.admin().join("index"), &place.area.join(STATE_INDEX));
}

/// `git add -A` into the temporary index, but for gitlinks: `add`
/// runs `git status` inside a nested repository whose recorded commit
/// is unchanged (to see whether it is dirty), under that repository's
/// own configuration — the agent's. So gitlinks are kept out of its
/// view (`:(exclude)`) and recorded by `update-index`, which reads
/// their HEAD only.
fn index_whole_state(
    git: &Git<'_>,
    env: &[(&str, &OsStr)],
    paths: &Path,
) -> Result<(), SandboxError> {
    let staged = git.run_with(
        Side::Sandbox,
        &["ls-files", "--stage", "-z"].map(OsStr::new),
        env,
        None,
    )?;
    let gitlinks: Vec<&str> = staged
        .split('\0')
        .filter_map(|record| {
            let (meta, path) = record.split_once('\t')?;
            meta.starts_with("160000 ").then_some(path)
        })
        .collect();
    if gitlinks.is_empty() {
        git.run_with(Side::Sandbox, &["add", "-A"].map(OsStr::new), env, None)?;
        return Ok(());
    }
    let write = |bytes: String| {
        std::fs::write(paths, bytes).map_err(|source| SandboxError::Io {
            what: "cannot write",
            path: paths.to_path_buf(),
            source,
        })
    };
    let mut spec = String::from(":/\0");
    for link in &gitlinks {
        spec.push_str(&format!(":(top,exclude,literal){link}\0"));
    }
    write(spec)?;
    let mut from_file = OsString::from("--pathspec-from-file=");
    from_file.push(paths);
    git.run_with(
        Side::Sandbox,
        &[
            OsStr::new("add"),
            OsStr::new("-A"),
            &from_file,
            OsStr::new("--pathspec-file-nul"),
        ],
        env,
        None,
    )?;
    write(gitlinks.iter().map(|l| format!("{l}\0")).collect())?;
    git.run_with(
        Side::Sandbox,
        &["update-index", "--add", "--remove", "-z", "--stdin"].map(OsStr::new),
        env,
        Some(paths),
    )?;
    Ok(())
}
