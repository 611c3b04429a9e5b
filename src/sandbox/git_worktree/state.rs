//! The working copy's whole state as a tree (tracked, untracked but not
//! ignored, deletions, nested repositories as gitlinks), built in a
//! temporary index beside the sandbox so the agent's own index and HEAD
//! never move: what a checkpoint records, a diff compares and an apply
//! commits.

use std::ffi::{OsStr, OsString};
use std::path::Path;

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
    let paths = place.area.join("checkpoint.paths");
    // The index is the host's, and its operations on this sandbox are
    // serialised by the sandbox's lock: a lock file left beside it is
    // from a git that was killed (at its deadline). An index git cannot
    // read (a crash cannot make one: git renames a whole new index into
    // place) is started again: every file is then read once.
    let _ = std::fs::remove_file(place.area.join(format!("{STATE_INDEX}.lock")));
    // What earlier versions left: a copy of the agent's index.
    let _ = std::fs::remove_file(place.area.join("checkpoint.index"));
    let env = [("GIT_INDEX_FILE", index.as_os_str())];
    let tree = match index_whole_state(git, &env, &paths) {
        Err(SandboxError::Git { .. }) if index.exists() => {
            let _ = std::fs::remove_file(&index);
            index_whole_state(git, &env, &paths)
        }
        other => other,
    }
    .and_then(|()| git.run_with(Side::Sandbox, &[OsStr::new("write-tree")], &env, None));
    let _ = std::fs::remove_file(&paths);
    Ok(tree?.trim().to_string())
}

/// Seed the host's index from the one `git worktree add` just wrote (the
/// agent has not run yet), keeping that file's modification time so
/// git's racy rule still holds for it: the first checkpoint then reads
/// only what changed. A seed that cannot be made with its time is not
/// left behind (a copy with a new time is what must never be used): the
/// first checkpoint then reads every file once.
pub(super) fn seed_state_index(git: &Git<'_>, place: &SandboxPlace) {
    let from = git.admin().join("index");
    let to = place.area.join(STATE_INDEX);
    let seeded = std::fs::metadata(&from)
        .and_then(|m| m.modified())
        .and_then(|modified| {
            std::fs::copy(&from, &to)?;
            std::fs::File::options()
                .write(true)
                .open(&to)?
                .set_modified(modified)
        });
    if seeded.is_err() {
        let _ = std::fs::remove_file(&to);
    }
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
