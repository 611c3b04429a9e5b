//! `copy_on_write`'s rollback: the one home of how the working copy is
//! brought back to a snapshot, touching only what differs.
//!
//! With the checkpoint's stat record (`stat.rs`), rollback walks the
//! working copy and the snapshot (no hashing) and, in this order:
//!
//! 1. removes what the snapshot lacks or holds as another kind, and what
//!    no snapshot can hold (special files, names that are not UTF-8);
//!    a directory goes whole, without being walked;
//! 2. in tree order (parents first), recreates missing directories and
//!    puts back every symlink whose target differs and every file the
//!    record cannot vouch for: a file is kept when its stat is the
//!    recorded one (compared byte for byte with the snapshot when racily
//!    clean) and its mode and size are the snapshot's; anything else is
//!    copied out of the snapshot (a reflink where possible, never a hard
//!    link) to a temporary name in the same directory and renamed over;
//! 3. sets directory modes (deepest first, the root last). While it
//!    works, every directory of the working copy is open to its owner
//!    (`u+rwx`), so a read-only one can be walked and changed;
//! 4. refreshes the record, as git refreshes its index: the working copy
//!    now holds the snapshot, so the record's time becomes the time the
//!    rollback began (the filesystem's clock, read from `stat.tmp`,
//!    created before the walk) and every file put back is recorded with
//!    its new stat. A file compared because it was racily clean need not
//!    be compared again once the margin has passed, and a second rollback
//!    to the same checkpoint copies nothing that did not change. Sound
//!    for the same reason the record is: a change after the rollback
//!    began gives a file a ctime newer than the record's time minus the
//!    margin, and what was put back is racy until the margin has passed.
//!    The new record replaces the old by a rename; only a whole rollback
//!    writes it.
//!
//! Not atomic: a crash or an error halfway leaves the working copy partly
//! restored (never a half-written file under a real name; at worst a
//! `.agents-rollback-<i>.tmp` or a directory left `u+rwx`). Rollback is
//! idempotent, so running it again completes it: every leftover is
//! something the snapshot lacks, or a mode it sets.
//!
//! Without a record (a checkpoint made before records existed), the old
//! path: build `restore.tmp` from the snapshot, then swap it with `work`
//! atomically (`renameat2(RENAME_EXCHANGE)` on Linux; elsewhere two
//! renames, with `work.old` as the only crash window).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};

use super::stat::{self, Record, Stat, Verdict};
use super::tree::{self, Found, Kind, Tree, io_err};
use super::{CHECKPOINTS, RESTORE, STAT, TREE, checkpoint_dir, swap};
use crate::sandbox::{CheckpointRef, SandboxError, SandboxPlace};

pub(super) fn rollback(place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
    let at = checkpoint_dir(&place.area.join(CHECKPOINTS), to)?;
    let snap = at.join(TREE);
    match Record::read(&at.join(STAT))? {
        Some(record) => {
            let refreshed = at.join(format!("{STAT}.tmp"));
            let done = incremental(&place.workdir, &at, &refreshed, record);
            if done.is_err() {
                let _ = fs::remove_file(&refreshed);
            }
            done?;
        }
        None => full(place, &snap)?,
    }
    // What a full rollback that crashed left behind.
    tree::remove_tree(&place.area.join(RESTORE))
}

/// Bring `work` back to the snapshot of the checkpoint at `at`, then
/// refresh its `record` by way of `refreshed` (see the module doc).
fn incremental(
    work: &Path,
    at: &Path,
    refreshed: &Path,
    mut record: Record,
) -> Result<(), SandboxError> {
    let snap = at.join(TREE);
    remove(refreshed, false)?;
    fs::File::create_new(refreshed).map_err(io_err("create", refreshed))?;
    let started_ns = stat::clock(refreshed)?;
    let wanted = tree::scan(&snap, false)?;
    let root_mode = mode_of(&snap)?;
    let work_mode = open_root(work)?;
    let WorkCopy { now, foreign } = walk_open(work, &wanted)?;

    // 1. Removals, deepest first.
    for (path, is_dir) in &foreign {
        remove(path, *is_dir)?;
    }
    for (rel, stat) in now.iter().rev() {
        if !wanted.get(rel).is_some_and(|w| w.kind == stat.kind) {
            remove(&work.join(rel), stat.kind == Kind::Dir)?;
        }
    }
    // 2. Directories, symlinks and files, parents first.
    for (rel, want) in &wanted {
        let have = now.get(rel).filter(|s| s.kind == want.kind);
        if let Some(put_back) = restore(work, &snap, rel, have, &wanted, &record)? {
            record.entries.insert(rel.clone(), put_back);
        }
    }
    // 3. Directory modes, deepest first, then the root's.
    for (rel, want) in wanted.iter().rev().filter(|(_, e)| e.kind == Kind::Dir) {
        let had = now.get(rel).filter(|s| s.kind == Kind::Dir).map(|s| s.mode);
        if had != Some(want.mode) {
            tree::set_mode(&work.join(rel), want.mode)?;
        }
    }
    if work_mode != root_mode {
        tree::set_mode(work, root_mode)?;
    }
    // 4. The refreshed record.
    record.time_ns = started_ns;
    record.write(refreshed)?;
    let path = at.join(STAT);
    fs::rename(refreshed, &path).map_err(io_err("rename into place", &path))
}

/// The working copy as rollback found it.
struct WorkCopy {
    /// The stat of every entry a tree can hold.
    now: BTreeMap<String, Stat>,
    /// What no tree can hold, and whether each is a directory.
    foreign: Vec<(PathBuf, bool)>,
}

/// Walk the working copy. Directories the snapshot keeps are opened to
/// their owner first (their stat says so); the others are not gone into,
/// as they go whole.
fn walk_open(work: &Path, wanted: &Tree) -> Result<WorkCopy, SandboxError> {
    let mut now = BTreeMap::new();
    let mut foreign = Vec::new();
    tree::walk(work, &mut |found| match found {
        Found::Foreign { path, is_dir, .. } => {
            foreign.push((path.to_path_buf(), is_dir));
            Ok(false)
        }
        Found::Entry {
            rel,
            path,
            kind,
            meta,
        } => {
            let mut stat = Stat::of(kind, meta);
            let kept_dir = kind == Kind::Dir && wanted.get(rel).is_some_and(|w| w.kind == kind);
            if kept_dir && stat.mode & 0o700 != 0o700 {
                tree::set_mode(path, stat.mode | 0o700)?;
                stat.mode |= 0o700;
            }
            now.insert(rel.to_owned(), stat);
            Ok(kept_dir)
        }
    })?;
    Ok(WorkCopy { now, foreign })
}

/// Bring the working copy's `rel` back to the snapshot's, given what is
/// there now (`have`: of the same kind, else nothing). For a file put
/// back, its new stat.
fn restore(
    work: &Path,
    snap: &Path,
    rel: &str,
    have: Option<&Stat>,
    wanted: &Tree,
    record: &Record,
) -> Result<Option<Stat>, SandboxError> {
    let (source, target) = (snap.join(rel), work.join(rel));
    let want = &wanted[rel];
    match want.kind {
        Kind::Dir => {
            if have.is_none() {
                fs::create_dir(&target).map_err(io_err("create directory", &target))?;
            }
            Ok(None)
        }
        Kind::Symlink => {
            let link = fs::read_link(&source).map_err(io_err("read symlink", &source))?;
            let same = match have {
                Some(_) => fs::read_link(&target).map_err(io_err("read symlink", &target))? == link,
                None => false,
            };
            if !same {
                put(rel, &target, wanted, |tmp| {
                    symlink(&link, tmp).map_err(io_err("create symlink", tmp))
                })?;
            }
            Ok(None)
        }
        Kind::File => {
            let keep = match have {
                Some(s) if s.mode == want.mode && s.size == want.size => {
                    match record.verdict(rel, s) {
                        Verdict::Unchanged => true,
                        Verdict::Racy => tree::same_contents(&source, &target)?,
                        Verdict::Changed => false,
                    }
                }
                _ => false,
            };
            if keep {
                return Ok(None);
            }
            put(rel, &target, wanted, |tmp| {
                tree::copy_entry(&source, tmp, want)
            })?;
            let meta = fs::symlink_metadata(&target).map_err(io_err("inspect", &target))?;
            Ok(Some(Stat::of(Kind::File, &meta)))
        }
    }
}

fn mode_of(path: &Path) -> Result<u32, SandboxError> {
    let meta = fs::symlink_metadata(path).map_err(io_err("inspect", path))?;
    Ok(meta.mode() & 0o7777)
}

/// Make sure the working copy's root is a directory open to its owner
/// (recreate it if it was removed or replaced); its mode now.
fn open_root(work: &Path) -> Result<u32, SandboxError> {
    match fs::symlink_metadata(work) {
        Ok(meta) if meta.is_dir() => {
            let mode = meta.mode() & 0o7777;
            if mode & 0o700 != 0o700 {
                tree::set_mode(work, mode | 0o700)?;
            }
            return Ok(mode | 0o700);
        }
        Ok(_) => fs::remove_file(work).map_err(io_err("remove", work))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("inspect", work)(e)),
    }
    fs::create_dir(work).map_err(io_err("create directory", work))?;
    mode_of(work)
}

/// Remove what a walk found (a directory with everything in it); what is
/// gone already is fine.
fn remove(path: &Path, is_dir: bool) -> Result<(), SandboxError> {
    if is_dir {
        return tree::remove_tree(path);
    }
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_err("remove", path)(e)),
        _ => Ok(()),
    }
}

/// Make the entry at `target` (the working copy's `rel`) with `make`:
/// first under a temporary name beside it that the snapshot does not
/// use, then renamed over whatever is there.
fn put(
    rel: &str,
    target: &Path,
    wanted: &Tree,
    make: impl FnOnce(&Path) -> Result<(), SandboxError>,
) -> Result<(), SandboxError> {
    let parent = rel.rsplit_once('/').map_or("", |(parent, _)| parent);
    let name = (0u32..)
        .map(|i| format!(".agents-rollback-{i}.tmp"))
        .find(|name| {
            let rel = if parent.is_empty() {
                name.clone()
            } else {
                format!("{parent}/{name}")
            };
            !wanted.contains_key(&rel)
        })
        .unwrap_or_default();
    let tmp = target.with_file_name(name);
    remove(&tmp, false)?;
    let made = make(&tmp)
        .and_then(|()| fs::rename(&tmp, target).map_err(io_err("rename into place", target)));
    if made.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    made
}

/// The whole snapshot into `restore.tmp`, swapped with the working copy.
fn full(place: &SandboxPlace, snap: &Path) -> Result<(), SandboxError> {
    let restore = place.area.join(RESTORE);
    tree::remove_tree(&restore)?;
    let built =
        tree::scan(snap, false).and_then(|snapshot| tree::copy_tree(snap, &restore, &snapshot));
    if built.is_err() {
        let _ = tree::remove_tree(&restore);
    }
    built?;
    swap(&restore, &place.workdir)
}
