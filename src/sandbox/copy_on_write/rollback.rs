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
//!    link) to a temporary name in the same directory and renamed over —
//!    both through the directory's descriptor, so a directory of the
//!    working copy swapped for a symlink to outside meanwhile makes the
//!    rollback fail (run it again), never write there;
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
//! Before anything changes, a mount inside the working copy is refused,
//! naming it: what is mounted there is another filesystem's, not the
//! sandbox's to remove or overwrite (the walks refuse one met later).
//!
//! Not atomic: a crash or an error halfway leaves the working copy partly
//! restored (never a half-written file under a real name; at worst a
//! `.agents-rollback-<i>.tmp` or a directory left `u+rwx`). Rollback is
//! idempotent, so running it again completes it: every leftover is
//! something the snapshot lacks, or a mode it sets.
//!
//! A checkpoint whose record is missing (removed by hand, say, as a
//! damaged record's refusal suggests) is rolled back the same way with an
//! empty record: it vouches for no file, so every file is put back.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use super::stat::{self, Record, Stat, Verdict};
use super::tree::{self, Found, Kind, Tree, Walk, io_err};
use super::{CHECKPOINTS, STAT, TREE, WORK, checkpoint_dir};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts, mounts};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::{CheckpointRef, SandboxError, SandboxPlace};

pub(super) fn rollback(place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
    let at = checkpoint_dir(&place.area.join(CHECKPOINTS), to)?;
    mounts::refuse_mounts_below(&place.area, None)?;
    let area = DirFd::open(&place.area)?;
    let record = Record::read(&at.join(STAT))?.unwrap_or_default();
    let refreshed = at.join(format!("{STAT}.tmp"));
    let done = incremental(&area, &at, &refreshed, record);
    if done.is_err() {
        let _ = fs::remove_file(&refreshed);
    }
    done
}

/// Bring the working copy (`work` in `area`) back to the snapshot of the
/// checkpoint at `at`, then refresh its `record` by way of `refreshed`
/// (see the module doc).
fn incremental(
    area: &DirFd,
    at: &Path,
    refreshed: &Path,
    mut record: Record,
) -> Result<(), SandboxError> {
    match fs::remove_file(refreshed) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io_err("remove", refreshed)(e));
        }
        _ => {}
    }
    fs::File::create_new(refreshed).map_err(io_err("create", refreshed))?;
    let started_ns = stat::clock(refreshed)?;
    let snap = DirFd::open(&at.join(TREE))?;
    let wanted = tree::scan(&snap, Mounts::Stay, false)?;
    let root_mode = snap.meta().mode;
    let (work, work_mode) = open_root(area)?;
    let now = walk_open(&work, &wanted)?;

    // 1. Removals, deepest first (what no tree can hold went during the walk).
    let mut here = Cursor::new(&work, Mounts::Stay);
    for (rel, stat) in now.iter().rev() {
        if !wanted.get(rel).is_some_and(|w| w.kind == stat.kind) {
            let (dir, name) = here.parent(rel)?;
            tree::remove_at(dir, name)?;
        }
    }
    // 2. Directories, symlinks and files, parents first.
    let mut from = Cursor::new(&snap, Mounts::Stay);
    for (rel, want) in &wanted {
        seam::reached(Moment::Restore, rel);
        let have = now.get(rel).filter(|s| s.kind == want.kind);
        let places = Places {
            here: &mut here,
            from: &mut from,
            wanted: &wanted,
        };
        if let Some(put_back) = restore(places, rel, have, &record)? {
            record.entries.insert(rel.clone(), put_back);
        }
    }
    // 3. Directory modes, deepest first, then the root's.
    for (rel, want) in wanted.iter().rev().filter(|(_, e)| e.kind == Kind::Dir) {
        let had = now.get(rel).filter(|s| s.kind == Kind::Dir).map(|s| s.mode);
        if had != Some(want.mode) {
            here.dir(rel)?.set_mode(want.mode)?;
        }
    }
    if work_mode != root_mode {
        work.set_mode(root_mode)?;
    }
    // 4. The refreshed record.
    record.time_ns = started_ns;
    record.write(refreshed)?;
    let path = at.join(STAT);
    fs::rename(refreshed, &path).map_err(io_err("rename into place", &path))
}

/// Walk the working copy: the stat of every entry a tree can hold.
/// Directories the snapshot keeps are opened to their owner first (their
/// stat says so); the others are not gone into, as they go whole. What
/// no tree can hold is removed as it is met.
fn walk_open(work: &DirFd, wanted: &Tree) -> Result<BTreeMap<String, Stat>, SandboxError> {
    let mut now = BTreeMap::new();
    let how = Walk {
        mounts: Mounts::Stay,
        to_owner: true,
    };
    tree::walk(work, how, &mut |found| match found {
        Found::Foreign { dir, name, .. } => {
            tree::remove_at(dir, name)?;
            Ok(false)
        }
        Found::Entry {
            rel, kind, meta, ..
        } => {
            let mut stat = Stat::of(kind, meta);
            let kept_dir = kind == Kind::Dir && wanted.get(rel).is_some_and(|w| w.kind == kind);
            if kept_dir {
                // The walk makes it `u+rwx` as it goes in.
                stat.mode |= 0o700;
            }
            now.insert(rel.to_owned(), stat);
            Ok(kept_dir)
        }
    })?;
    Ok(now)
}

/// Where a restore reads and writes: the working copy and the snapshot,
/// each through a cursor, and what the snapshot holds.
struct Places<'a, 'w, 's> {
    here: &'a mut Cursor<'w>,
    from: &'a mut Cursor<'s>,
    wanted: &'a Tree,
}

/// Bring the working copy's `rel` back to the snapshot's, given what is
/// there now (`have`: of the same kind, else nothing). For a file put
/// back, its new stat.
fn restore(
    at: Places<'_, '_, '_>,
    rel: &str,
    have: Option<&Stat>,
    record: &Record,
) -> Result<Option<Stat>, SandboxError> {
    let want = &at.wanted[rel];
    match want.kind {
        Kind::Dir => {
            if have.is_none() {
                let (dir, name) = at.here.parent(rel)?;
                dir.mkdir(name)?;
            }
            Ok(None)
        }
        Kind::Symlink => {
            let (snap, snap_name) = at.from.parent(rel)?;
            let link = snap.read_link(snap_name)?;
            let (dir, name) = at.here.parent(rel)?;
            let same = match have {
                Some(_) => dir.read_link(name)? == link,
                None => false,
            };
            if !same {
                put((dir, name), rel, at.wanted, |tmp| dir.symlink(&link, tmp))?;
            }
            Ok(None)
        }
        Kind::File => {
            let keep = match have {
                Some(s) if s.mode == want.mode && s.size == want.size => {
                    match record.verdict(rel, s) {
                        Verdict::Unchanged => true,
                        Verdict::Racy => {
                            tree::same_contents(at.from.parent(rel)?, at.here.parent(rel)?)?
                        }
                        Verdict::Changed => false,
                    }
                }
                _ => false,
            };
            if keep {
                return Ok(None);
            }
            let source = at.from.parent(rel)?;
            let (dir, name) = at.here.parent(rel)?;
            let made = put((dir, name), rel, at.wanted, |tmp| {
                tree::copy_entry(source, (dir, tmp), want).map(|_| ())
            })?;
            // Recorded only if what is there now is the copy just made.
            Ok(match dir.stat(name)? {
                Some(meta) if meta.kind == FileKind::File && meta.ino == made => {
                    Some(Stat::of(Kind::File, &meta))
                }
                _ => None,
            })
        }
    }
}

/// Make sure the working copy's root (`work` in `area`) is a directory
/// open to its owner: one removed is made again, anything else in its
/// place (a symlink, a file) is removed, not followed. Answers it and its
/// mode now.
fn open_root(area: &DirFd) -> Result<(DirFd, u32), SandboxError> {
    let work = OsStr::new(WORK);
    match area.stat(work)? {
        Some(meta) if meta.kind == FileKind::Dir => {
            let dir = area.open_dir(work, Mounts::Stay, area.meta(), true)?;
            return Ok((dir, meta.mode | 0o700));
        }
        Some(_) => tree::remove_at(area, work)?,
        None => {}
    }
    area.mkdir(work)?;
    let dir = area.open_dir(work, Mounts::Stay, area.meta(), false)?;
    let mode = dir.meta().mode;
    Ok((dir, mode))
}

/// Make the entry `name` of `dir` (the working copy's `rel`) with `make`:
/// first under a temporary name beside it that the snapshot does not
/// use, then renamed over whatever is there. Answers the inode made.
fn put(
    (dir, name): (&DirFd, &OsStr),
    rel: &str,
    wanted: &Tree,
    make: impl FnOnce(&OsStr) -> Result<(), SandboxError>,
) -> Result<u64, SandboxError> {
    let parent = rel.rsplit_once('/').map_or("", |(parent, _)| parent);
    let tmp = (0u32..)
        .map(|i| format!(".agents-rollback-{i}.tmp"))
        .find(|tmp| !wanted.contains_key(&tree::join(parent, tmp)))
        .unwrap_or_default();
    let tmp = OsStr::new(&tmp);
    tree::remove_at(dir, tmp)?;
    let made = make(tmp).and_then(|()| {
        let ino = dir.stat(tmp)?.map_or(0, |m| m.ino);
        dir.rename(tmp, dir, name).map(|()| ino)
    });
    if made.is_err() {
        let _ = dir.unlink(tmp);
    }
    made
}
