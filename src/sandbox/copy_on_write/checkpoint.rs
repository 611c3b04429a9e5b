//! `copy_on_write`'s checkpoints: the one home of how a snapshot of the
//! working copy is made, and of which of its files it shares with the
//! snapshot before it.
//!
//! A checkpoint is built as `checkpoints/<n>.tmp/{tree/,stat,label}` and
//! renamed to `<n>` when whole, by the `make_checkpoint` it shares with
//! `overlay`. The walk of the working copy comes first and refuses what
//! cannot be copied before anything is written; its stats are the new
//! checkpoint's stat record (`stat.rs`), taken before the copy, so a file
//! that changes during the copy is not trusted afterwards.
//!
//! A file the previous checkpoint's record says is unchanged (the same
//! stat, not racily clean) and whose snapshot there is a file of the
//! same mode and size is hard-linked to it instead of copied: on a
//! filesystem without reflinks a checkpoint then writes only what
//! changed. Hard links share the mode (which a snapshot keeps exactly),
//! hence the mode condition; they are safe because nothing writes into a
//! snapshot file once it is made: rollback copies out of a snapshot (a
//! reflink or a copy, never a link), and a checkpoint only adds names. A
//! link that fails (too many links to one file, say) falls back to a copy.

use std::collections::BTreeMap;
use std::ffi::OsStr;

use super::stat::{self, Record, Stat, Verdict};
use super::tree::{self, Entry, Found, Kind, Tree, Walk};
use super::{CHECKPOINTS, STAT, TREE, WORK, make_checkpoint_after, open_working_copy};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts, carried_mode};
use crate::sandbox::{CheckpointRef, SandboxError, SandboxPlace};

pub(super) fn checkpoint(place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
    let work = open_working_copy(&place.area, WORK)?;
    make_checkpoint_after(&place.area.join(CHECKPOINTS), label, |tmp, before| {
        // `<n>.tmp` was made a moment ago, its label in it: its mtime is
        // the filesystem's time before the walk.
        let time_ns = stat::clock(tmp)?;
        let previous = match before {
            None => None,
            Some(at) => match Record::read(&at.join(STAT))? {
                Some(record) => Some(Previous {
                    tree: DirFd::open(&at.join(TREE))?,
                    record,
                }),
                None => None,
            },
        };
        let into = DirFd::open(tmp)?;
        let record = snapshot(&work, (&into, OsStr::new(TREE)), time_ns, previous.as_ref())?;
        record.write(&tmp.join(STAT))
    })
}

/// The checkpoint before this one, when it has a stat record.
struct Previous {
    tree: DirFd,
    record: Record,
}

/// Walk `work`, then copy it to `dst`, linking what `previous` holds
/// unchanged; the stat record of the walk, timed `time_ns`, with each
/// copied file's stat taken from the descriptor it was copied from (so
/// the record describes what the snapshot holds even if an entry was
/// swapped between the walk and the copy).
fn snapshot(
    work: &DirFd,
    dst: (&DirFd, &OsStr),
    time_ns: i128,
    previous: Option<&Previous>,
) -> Result<Record, SandboxError> {
    let mut walked = BTreeMap::new();
    let how = Walk {
        mounts: Mounts::Stay,
        to_owner: false,
    };
    tree::walk(work, how, &mut |found| match found {
        Found::Foreign { refusal, .. } => Err(refusal),
        Found::Entry {
            rel, kind, meta, ..
        } => {
            walked.insert(rel.to_owned(), Stat::of(kind, meta));
            Ok(true)
        }
    })?;
    let copy: Tree = walked
        .iter()
        .map(|(rel, s)| {
            let entry = Entry {
                kind: s.kind,
                mode: s.mode,
                size: s.size,
                digest: "-".into(),
            };
            (rel.clone(), entry)
        })
        .collect();
    let mut earlier = previous.map(|p| (p, Cursor::new(&p.tree, Mounts::Stay)));
    let mut link = |rel: &str, to: (&DirFd, &OsStr)| match earlier.as_mut() {
        Some((p, at)) => link_unchanged(p, at, rel, &walked[rel], to),
        None => false,
    };
    let mut copied = Vec::new();
    tree::copy_tree_linking(
        (work, Mounts::Stay),
        dst,
        &copy,
        &mut link,
        &mut |rel, meta| copied.push((rel.to_owned(), Stat::of(Kind::File, meta))),
    )?;
    let mut entries = walked;
    entries.extend(copied);
    Ok(Record { time_ns, entries })
}

/// Hard-link `to` to the previous snapshot's file at `rel` (reached
/// through `at`) if the working copy's file (stat `now`) is unchanged
/// since and the two share a mode.
fn link_unchanged(
    previous: &Previous,
    at: &mut Cursor<'_>,
    rel: &str,
    now: &Stat,
    (to_dir, to): (&DirFd, &OsStr),
) -> bool {
    if previous.record.verdict(rel, now) != Verdict::Unchanged {
        return false;
    }
    let Ok((dir, name)) = at.parent(rel) else {
        return false;
    };
    match dir.stat(name) {
        Ok(Some(m))
            if m.kind == FileKind::File
                && m.mode == carried_mode(FileKind::File, now.mode)
                && m.size == now.size =>
        {
            dir.hard_link(name, to_dir, to).is_ok()
        }
        _ => false,
    }
}
