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
//!
//! The merged directory is the agent's working copy, so every read of it
//! goes through descriptors (`fs_at`): an entry of it swapped for a
//! symlink meanwhile, or the merged directory itself replaced by one,
//! counts as not holding the entry, and is never followed. A mount inside
//! it is refused before a rollback changes anything.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree::{self, Entry, Kind, Tree, io_err};
use crate::sandbox::copy_on_write::{compare, manifest, scan_like};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts, mounts};
use crate::sandbox::seam::{self, Moment};

use super::{MERGED, RESTORE};

const CHANGES: &str = "changes.manifest";
const DELETED: &str = "deleted";
const UPPER: &str = "upper";

/// Make the merged directory in `area`: a copy of `lower`, the walk of
/// `original`.
pub(super) fn create(original: &DirFd, area: &DirFd, lower: &Tree) -> Result<(), SandboxError> {
    tree::copy_tree((original, Mounts::Cross), (area, OsStr::new(MERGED)), lower)
}

/// Fill checkpoint directory `into` with what `merged` changed against
/// `lower`.
pub(super) fn checkpoint(merged: &DirFd, lower: &Tree, into: &Path) -> Result<(), SandboxError> {
    let now = scan_like(merged, Mounts::Stay, lower)?;
    let diff = compare(lower, &now);
    let changes: Tree = diff
        .added
        .iter()
        .chain(&diff.modified)
        .map(|p| (p.clone(), now[p].clone()))
        .collect();
    let into_dir = DirFd::open(into)?;
    into_dir.mkdir(OsStr::new(UPPER))?;
    let upper = into_dir.open_dir(OsStr::new(UPPER), Mounts::Stay, into_dir.meta(), false)?;
    let files: Vec<(&String, &Entry)> = changes
        .iter()
        .filter(|(_, e)| e.kind != Kind::Dir)
        .collect();
    // Their parent directories first (a set of paths sorts parents first).
    let parents: BTreeSet<&str> = files
        .iter()
        .flat_map(|(path, _)| path.match_indices('/').map(|(i, _)| &path[..i]))
        .collect();
    let mut to = Cursor::new(&upper, Mounts::Stay);
    for parent in parents {
        let (dir, name) = to.parent(parent)?;
        if dir.stat(name)?.is_none() {
            dir.mkdir(name)?;
        }
    }
    let mut from = Cursor::new(merged, Mounts::Stay);
    for (path, entry) in files {
        seam::reached(Moment::Copy, path);
        tree::copy_entry(from.parent(path)?, to.parent(path)?, entry)?;
    }
    manifest::write_manifest(&into.join(CHANGES), &changes)?;
    let deleted: String = diff.deleted.iter().map(|p| format!("{p}\n")).collect();
    let path = into.join(DELETED);
    fs::write(&path, deleted).map_err(io_err("write", &path))
}

/// Bring the merged directory of `area` back to the state checkpoint
/// directory `from` recorded against `lower` (see the module doc for
/// where entries come from).
pub(super) fn rollback(
    original: &Path,
    area: &Path,
    lower: &Tree,
    from: &Path,
) -> Result<(), SandboxError> {
    mounts::refuse_mounts_below(area, None)?;
    let (target, changes) = target(lower, from)?;
    let area = DirFd::open(area)?;
    let restore = OsStr::new(RESTORE);
    tree::remove_at(&area, restore)?;
    let built = build(original, &area, from, (&target, &changes));
    let result = built.and_then(|()| area.exchange(restore, OsStr::new(MERGED)));
    tree::remove_at(&area, restore)?;
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

/// Build `target` in `restore.tmp` of `area` (which must not exist), its
/// `changes` from checkpoint directory `from`.
fn build(
    original: &Path,
    area: &DirFd,
    from: &Path,
    (target, changes): (&Tree, &Tree),
) -> Result<(), SandboxError> {
    let original = DirFd::open(original)?;
    // The merged directory as a source only if it still is a directory.
    let merged_name = OsStr::new(MERGED);
    let merged = match area.stat(merged_name)? {
        Some(meta) if meta.kind == FileKind::Dir => {
            Some(area.open_dir(merged_name, Mounts::Stay, area.meta(), false)?)
        }
        _ => None,
    };
    let upper = DirFd::open(&from.join(UPPER))?;
    let restore_name = OsStr::new(RESTORE);
    area.mkdir(restore_name)?;
    let restore = area.open_dir(restore_name, Mounts::Stay, area.meta(), false)?;
    let mut to = Cursor::new(&restore, Mounts::Stay);
    let mut checkpointed = Cursor::new(&upper, Mounts::Stay);
    let mut in_merged = merged.as_ref().map(|m| Cursor::new(m, Mounts::Stay));
    let mut in_original = Cursor::new(&original, Mounts::Cross);
    let mut lost = Vec::new();
    for (path, entry) in target {
        seam::reached(Moment::Restore, path);
        let dst = to.parent(path)?;
        if entry.kind == Kind::Dir {
            dst.0.mkdir(dst.1)?;
        } else if changes.contains_key(path) {
            tree::copy_entry(checkpointed.parent(path)?, dst, entry)?;
        } else if !copy_if_same(in_merged.as_mut(), path, dst, entry)?
            && !copy_if_same(Some(&mut in_original), path, dst, entry)?
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
        to.dir(path)?.set_mode(entry.carried_mode())?;
    }
    let root_mode = merged.as_ref().unwrap_or(&original).meta().mode;
    restore.set_mode(crate::sandbox::fs_at::carried_mode(
        FileKind::Dir,
        root_mode,
    ))
}

/// Copy `path` from below `source` to `dst` when it holds `entry` there
/// (same kind, and after copying the same contents and mode); a copy that
/// turns out different is removed. `false`: `source` does not hold
/// `entry` — it is missing, of another kind, or something on the way was
/// replaced (never followed).
fn copy_if_same(
    source: Option<&mut Cursor<'_>>,
    path: &str,
    (dst_dir, dst): (&DirFd, &OsStr),
    entry: &Entry,
) -> Result<bool, SandboxError> {
    let Some(source) = source else {
        return Ok(false);
    };
    let (dir, name) = match source.parent(path) {
        Ok(found) => found,
        Err(SandboxError::Changed { .. }) => return Ok(false),
        Err(SandboxError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    let same_kind = dir
        .stat(name)?
        .is_some_and(|meta| Kind::of(meta.kind) == Some(entry.kind));
    if !same_kind {
        return Ok(false);
    }
    match tree::copy_entry((dir, name), (dst_dir, dst), entry) {
        Ok(_) => {}
        Err(SandboxError::Changed { .. }) => return Ok(false),
        Err(e) => return Err(e),
    }
    let copied = match dst_dir.stat(dst)? {
        // Hashed as `entry` was (a checkpoint of format 2 read the holes).
        Some(meta) => tree::entry_like(dst_dir, dst, &meta, entry)?,
        None => return Ok(false),
    };
    if copied.same_as(entry) {
        return Ok(true);
    }
    dst_dir
        .unlink(dst)
        .map_err(io_err("remove", &dst_dir.child(dst)))?;
    Ok(false)
}
