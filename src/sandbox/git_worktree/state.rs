//! The working copy's whole state as a tree (tracked, untracked but not
//! ignored, deletions, nested repositories as gitlinks), built in a
//! temporary index beside the sandbox so the agent's own index and HEAD
//! never move: what a checkpoint records, a diff compares and an apply
//! commits.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::repo::{Git, Side};
use crate::sandbox::{SandboxError, SandboxPlace};

/// The tree of the working copy's whole state (see the module doc),
/// built in a temporary index so the sandbox's own index is untouched.
pub(super) fn whole_state_tree(
    git: &Git<'_>,
    place: &SandboxPlace,
) -> Result<String, SandboxError> {
    let temp = place.area.join("checkpoint.index");
    let paths = place.area.join("checkpoint.paths");
    let real = git.admin().join("index");
    let _ = std::fs::remove_file(&temp);
    // The temporary index is the host's, and its operations on this
    // sandbox are serialised by the sandbox's lock: a lock file left
    // beside it is from a git that was killed (at its deadline).
    let _ = std::fs::remove_file(place.area.join("checkpoint.index.lock"));
    if real.exists() {
        std::fs::copy(&real, &temp).map_err(|source| SandboxError::Io {
            what: "cannot copy the sandbox's index to",
            path: temp.clone(),
            source,
        })?;
    }
    let env = [("GIT_INDEX_FILE", temp.as_os_str())];
    let tree = index_whole_state(git, &env, &paths)
        .and_then(|()| git.run_with(Side::Sandbox, &[OsStr::new("write-tree")], &env, None));
    let _ = std::fs::remove_file(&temp);
    let _ = std::fs::remove_file(&paths);
    Ok(tree?.trim().to_string())
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
