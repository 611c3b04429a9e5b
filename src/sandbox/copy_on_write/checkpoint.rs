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

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::stat::{self, Record, Stat, Verdict};
use super::tree::{self, Entry, Found, Tree};
use super::{CHECKPOINTS, STAT, TREE, make_checkpoint_after};
use crate::sandbox::{CheckpointRef, SandboxError, SandboxPlace};

pub(super) fn checkpoint(place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
    make_checkpoint_after(&place.area.join(CHECKPOINTS), label, |tmp, before| {
        // `<n>.tmp` was made a moment ago, its label in it: its mtime is
        // the filesystem's time before the walk.
        let time_ns = stat::clock(tmp)?;
        let previous = match before {
            None => None,
            Some(at) => Record::read(&at.join(STAT))?.map(|record| Previous {
                tree: at.join(TREE),
                record,
            }),
        };
        let record = snapshot(&place.workdir, &tmp.join(TREE), time_ns, previous.as_ref())?;
        record.write(&tmp.join(STAT))
    })
}

/// The checkpoint before this one, when it has a stat record.
struct Previous {
    tree: PathBuf,
    record: Record,
}

/// Walk `work`, then copy it to `dst`, linking what `previous` holds
/// unchanged; the stat record of the walk, timed `time_ns`.
fn snapshot(
    work: &Path,
    dst: &Path,
    time_ns: i128,
    previous: Option<&Previous>,
) -> Result<Record, SandboxError> {
    let mut record = Record {
        time_ns,
        entries: Default::default(),
    };
    tree::walk(work, &mut |found| match found {
        Found::Foreign { refusal, .. } => Err(refusal),
        Found::Entry {
            rel, kind, meta, ..
        } => {
            record.entries.insert(rel.to_owned(), Stat::of(kind, meta));
            Ok(true)
        }
    })?;
    let copy: Tree = record
        .entries
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
    let link = |rel: &str, to: &Path| {
        previous.is_some_and(|p| link_unchanged(p, rel, &record.entries[rel], to))
    };
    tree::copy_tree_linking(work, dst, &copy, &link)?;
    Ok(record)
}

/// Hard-link `to` to the previous snapshot's file at `rel` if the working
/// copy's file (stat `now`) is unchanged since and the two share a mode.
fn link_unchanged(previous: &Previous, rel: &str, now: &Stat, to: &Path) -> bool {
    if previous.record.verdict(rel, now) != Verdict::Unchanged {
        return false;
    }
    let from = previous.tree.join(rel);
    match fs::symlink_metadata(&from) {
        Ok(m) if m.is_file() && m.mode() & 0o7777 == now.mode && m.len() == now.size => {
            fs::hard_link(&from, to).is_ok()
        }
        _ => false,
    }
}
