//! Bringing a sandbox's changes into the original: the one home of
//! apply's staging and commit, shared by `copy_on_write` and `overlay`.
//!
//! Every added or modified file and symlink is first copied into a
//! staging directory (`.agents-apply-*`) made at the original's root (same
//! filesystem, so the renames that follow are atomic), read from the
//! working copy (or upper layer) through descriptors opened `O_NOFOLLOW`
//! component by component: an entry swapped for a symlink to a file
//! outside since the walk is refused, never copied in. A failure while
//! staging writes nothing but the staging directory (removed). Then the
//! commit, through descriptors of the original's directories (each opened
//! `O_NOFOLLOW` from its parent's): removals deepest first, new
//! directories, renames of the staged entries into place, directory modes.
//! What is written carries permission bits, not privileges
//! (`fs_at::carried_mode`), and a sparse file keeps its holes.

use std::ffi::OsString;

use super::tree::{self, Kind, Tree};
use crate::sandbox::fs_at::{Cursor, DirFd, Mounts};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::{SandboxDiff, SandboxError};

/// Bring `diff` into `original`, taking every added or modified entry of
/// `now` from below `from` (the working copy, or an overlay's upper
/// layer): stage, then commit by removals and renames (see the module
/// doc, and `copy_on_write`'s for the window).
pub(in crate::sandbox) fn copy_back(
    original: &DirFd,
    from: &DirFd,
    base: &Tree,
    now: &Tree,
    diff: &SandboxDiff,
) -> Result<(), SandboxError> {
    let staging_name = make_staging(original)?;
    let applied = original
        .open_dir(&staging_name, Mounts::Stay, original.meta(), false)
        .and_then(|staging| {
            let staged = stage(&staging, from, now, diff)?;
            commit(original, &staging, base, now, diff, staged)
        });
    let removed = tree::remove_at(original, &staging_name);
    applied.and(removed)
}

/// A new, private directory at the original's root for the staged copies.
fn make_staging(original: &DirFd) -> Result<OsString, SandboxError> {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for _ in 0..16 {
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = OsString::from(format!(
            ".agents-apply-{}-{nanos:x}-{n}",
            std::process::id()
        ));
        match original.mkdir(&name) {
            Ok(()) => return Ok(name),
            Err(SandboxError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::AlreadyExists =>
            {
                last = Some(source);
            }
            Err(e) => return Err(e),
        }
    }
    Err(SandboxError::Io {
        what: "create a staging directory in",
        path: original.path().to_path_buf(),
        source: last.unwrap_or_else(|| std::io::ErrorKind::AlreadyExists.into()),
    })
}

/// The added and modified paths, sorted.
fn changed(diff: &SandboxDiff) -> Vec<&String> {
    let mut v: Vec<&String> = diff.added.iter().chain(&diff.modified).collect();
    v.sort();
    v
}

/// Copy every changed file and symlink of `now` from `from` into
/// `staging`, each under a number; answers (staged name, path).
fn stage<'d>(
    staging: &DirFd,
    from: &DirFd,
    now: &Tree,
    diff: &'d SandboxDiff,
) -> Result<Vec<(OsString, &'d String)>, SandboxError> {
    let mut source = Cursor::new(from, Mounts::Stay);
    let mut staged = Vec::new();
    for (i, path) in changed(diff).into_iter().enumerate() {
        let entry = &now[path];
        if entry.kind != Kind::Dir {
            seam::reached(Moment::Copy, path);
            let name = OsString::from(i.to_string());
            tree::copy_entry(source.parent(path)?, (staging, &name), entry)?;
            staged.push((name, path));
        }
    }
    Ok(staged)
}

/// Removals deepest first (a directory's children are deleted entries
/// too), then new directories, renames, directory modes.
fn commit(
    original: &DirFd,
    staging: &DirFd,
    base: &Tree,
    now: &Tree,
    diff: &SandboxDiff,
    staged: Vec<(OsString, &String)>,
) -> Result<(), SandboxError> {
    let in_original =
        |what: &'static str, path: &str| tree::io_err(what, &original.path().join(path));
    let mut dst = Cursor::new(original, Mounts::Cross);
    let kind_changed = |p: &String| {
        base.get(p)
            .is_some_and(|b| now.get(p).is_some_and(|n| n.kind != b.kind))
    };
    let mut removals: Vec<&String> = diff
        .deleted
        .iter()
        .chain(diff.modified.iter().filter(|p| kind_changed(p)))
        .collect();
    removals.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    for path in removals {
        let (dir, name) = dst.parent(path)?;
        let result = if base[path].kind == Kind::Dir {
            dir.rmdir(name)
        } else {
            dir.unlink(name).map(|_| ())
        };
        result.map_err(in_original("remove", path))?;
    }
    let changed = changed(diff);
    let dirs: Vec<&&String> = changed
        .iter()
        .filter(|p| now[**p].kind == Kind::Dir)
        .collect();
    for path in &dirs {
        if base.get(**path).is_none_or(|b| b.kind != Kind::Dir) {
            let (dir, name) = dst.parent(path)?;
            dir.mkdir(name)?;
        }
    }
    for (from, to) in staged {
        let (dir, name) = dst.parent(to)?;
        staging.rename(&from, dir, name)?;
    }
    for path in dirs.iter().rev() {
        dst.dir(path)?.set_mode(now[**path].carried_mode())?;
    }
    Ok(())
}
