//! `overlay` without the kernel: the one home of how the upper layer is
//! kept in user space where overlayfs may not be mounted (no privilege, an
//! upper filesystem overlayfs refuses, a path its options cannot carry).
//!
//! The merged directory is a full copy of the original (reflinks where
//! the filesystem has them), made at create; the upper layer is not a
//! directory but the difference between the merged directory and the
//! lower manifest, computed when needed. A checkpoint keeps only that
//! difference: `changes.manifest` (the added and modified entries),
//! `deleted` (one path a line) and `upper/` (copies of the added and
//! modified files and symlinks).
//!
//! Rollback builds the checkpoint's state in `restore.tmp` and swaps it
//! with the merged directory: changed entries come from the checkpoint;
//! an entry as it was in the lower comes from the merged directory when
//! it still holds it there, else from the original when it does, each
//! copy checked against the manifest's digest after copying. When neither
//! holds it (the agent changed it since the checkpoint *and* someone
//! changed the original since creation) rollback is refused, naming the
//! paths, and nothing is changed.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree::{self, Entry, Kind, Tree, io_err};
use crate::sandbox::copy_on_write::{compare, manifest, swap};

use super::RESTORE;

const CHANGES: &str = "changes.manifest";
const DELETED: &str = "deleted";
const UPPER: &str = "upper";

/// Make the merged directory: a copy of `lower`, the walk of `original`.
pub(super) fn create(original: &Path, merged: &Path, lower: &Tree) -> Result<(), SandboxError> {
    tree::copy_tree(original, merged, lower)
}

/// Fill checkpoint directory `into` with what `merged` changed against
/// `lower`.
pub(super) fn checkpoint(merged: &Path, lower: &Tree, into: &Path) -> Result<(), SandboxError> {
    let now = tree::scan(merged, true)?;
    let diff = compare(lower, &now);
    let changes: Tree = diff
        .added
        .iter()
        .chain(&diff.modified)
        .map(|p| (p.clone(), now[p].clone()))
        .collect();
    let upper = into.join(UPPER);
    fs::create_dir(&upper).map_err(io_err("create directory", &upper))?;
    for (path, entry) in changes.iter().filter(|(_, e)| e.kind != Kind::Dir) {
        let to = upper.join(path);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(io_err("create directory", parent))?;
        }
        tree::copy_entry(&merged.join(path), &to, entry)?;
    }
    manifest::write_manifest(&into.join(CHANGES), &changes)?;
    let deleted: String = diff.deleted.iter().map(|p| format!("{p}\n")).collect();
    let path = into.join(DELETED);
    fs::write(&path, deleted).map_err(io_err("write", &path))
}

/// Bring `merged` back to the state checkpoint directory `from` recorded
/// against `lower` (see the module doc for where entries come from).
pub(super) fn rollback(
    original: &Path,
    merged: &Path,
    lower: &Tree,
    from: &Path,
    restore_in: &Path,
) -> Result<(), SandboxError> {
    let (target, changes) = target(lower, from)?;
    let restore = restore_in.join(RESTORE);
    tree::remove_tree(&restore)?;
    let built = build(original, merged, from, (&target, &changes), &restore);
    let result = built.and_then(|()| swap(&restore, merged));
    tree::remove_tree(&restore)?;
    result
}

/// The state a checkpoint recorded (`lower` less its deletions, plus its
/// changes), and those changes. A deletion the lower does not hold, or an
/// entry whose parent is not a directory, means the checkpoint is damaged.
fn target(lower: &Tree, from: &Path) -> Result<(Tree, Tree), SandboxError> {
    let (changes, _) = manifest::read_manifest(&from.join(CHANGES))?;
    let deleted_path = from.join(DELETED);
    let deleted = fs::read_to_string(&deleted_path).map_err(io_err("read", &deleted_path))?;
    let damaged = |what: &str| {
        SandboxError::Unsuitable(format!(
            "checkpoint {} is damaged ({what}); roll back to another one or destroy the sandbox",
            from.display()
        ))
    };
    let mut target = lower.clone();
    for path in deleted.lines() {
        if target.remove(path).is_none() {
            return Err(damaged(&format!(
                "it deletes {path:?}, which the original never held"
            )));
        }
    }
    target.extend(changes.clone());
    for path in target.keys() {
        if let Some((parent, _)) = path.rsplit_once('/')
            && target.get(parent).is_none_or(|e| e.kind != Kind::Dir)
        {
            return Err(damaged(&format!("{path:?} has no parent directory")));
        }
    }
    Ok((target, changes))
}

/// Build `target` in `restore` (which must not exist), its `changes`
/// from checkpoint directory `from`.
fn build(
    original: &Path,
    merged: &Path,
    from: &Path,
    (target, changes): (&Tree, &Tree),
    restore: &Path,
) -> Result<(), SandboxError> {
    fs::create_dir(restore).map_err(io_err("create directory", restore))?;
    let mut lost = Vec::new();
    for (path, entry) in target {
        let to = restore.join(path);
        if entry.kind == Kind::Dir {
            fs::create_dir(&to).map_err(io_err("create directory", &to))?;
        } else if changes.contains_key(path) {
            tree::copy_entry(&from.join(UPPER).join(path), &to, entry)?;
        } else if !copy_if_same(&merged.join(path), &to, entry)?
            && !copy_if_same(&original.join(path), &to, entry)?
        {
            lost.push(path.clone());
        }
    }
    if !lost.is_empty() {
        return Err(SandboxError::Unsuitable(format!(
            "cannot roll back: these entries must be as they were when the sandbox was created, \
             but the working copy changed them since the checkpoint and the original changed \
             them since creation (the user-space overlay keeps no copy of the lower): {}; \
             nothing was rolled back",
            lost.join(", ")
        )));
    }
    for (path, entry) in target.iter().rev().filter(|(_, e)| e.kind == Kind::Dir) {
        tree::set_mode(&restore.join(path), entry.mode)?;
    }
    let root = fs::symlink_metadata(merged).map_err(io_err("inspect", merged))?;
    tree::set_mode(restore, root.permissions().mode() & 0o7777)
}

/// Copy `src` to `dst` when it is `entry` (same kind, and after copying
/// the same contents and mode); a copy that turns out different is
/// removed. `false`: `src` does not hold `entry`.
fn copy_if_same(src: &Path, dst: &Path, entry: &Entry) -> Result<bool, SandboxError> {
    let same_kind = match fs::symlink_metadata(src) {
        Ok(meta) if meta.file_type().is_symlink() => entry.kind == Kind::Symlink,
        Ok(meta) if meta.is_file() => entry.kind == Kind::File,
        _ => false,
    };
    if !same_kind {
        return Ok(false);
    }
    tree::copy_entry(src, dst, entry)?;
    let meta = fs::symlink_metadata(dst).map_err(io_err("inspect", dst))?;
    if tree::entry_from(dst, &meta, true)? == *entry {
        return Ok(true);
    }
    fs::remove_file(dst).map_err(io_err("remove", dst))?;
    Ok(false)
}
