//! The `copy_on_write` strategy: the one home of how a directory is
//! sandboxed by copying it (reflinks where the filesystem has them,
//! `FICLONE`; elsewhere a copy of the data that keeps holes).
//!
//! Layout of a sandbox's area:
//!
//! * `work/`: the working copy an agent changes.
//! * `base.manifest`: the original's state at creation, one line per entry
//!   (`kind mode size digest path`, the digest BLAKE3, see `manifest.rs`;
//!   manifest format 3: a file's digest covers its data blocks and its
//!   length, never reading a hole; format 2 manifests, whose digests
//!   covered every byte, are still read and compared their way, see
//!   `tree::rehash_like`); `base` is the sha256 of the manifest's text.
//!   `diff` compares the working copy with it, `apply` first checks that
//!   the original still matches it (else `Conflict`, nothing written).
//! * `checkpoints/<n>/{tree/,stat,label}`: numbered snapshots, built as
//!   `<n>.tmp` and renamed into place, so a crash leaves no half checkpoint
//!   (a stale `*.tmp` is removed by the next checkpoint). `stat` is the
//!   working copy's stat of every entry as the checkpoint copied it (see
//!   `stat.rs`).
//!
//! Decisions:
//!
//! * Symlinks are never followed, and no path below a root is resolved
//!   twice: every walk, copy, rename and removal goes through directory
//!   descriptors (`fs_at`), each opened `O_NOFOLLOW` from its parent's, so
//!   an agent that swaps an entry for a symlink to outside while the host
//!   works (`renameat2(RENAME_EXCHANGE)`) gets a refusal, not a copy of
//!   outside or a write there; a link is copied as a link with the same
//!   target (even one pointing outside the tree). The working copy's own
//!   root is opened from the area's descriptor, so a `work` replaced by a
//!   symlink is refused by diff, checkpoint and apply (and replaced by a
//!   directory by rollback), never followed.
//! * Mounts: nothing is read, restored or removed on another filesystem
//!   mounted inside the working copy or the area (a bind mount included);
//!   rollback and destroy refuse up front, naming the mount point, and
//!   change nothing, and the walks refuse when they meet one (see
//!   `fs_at`). The original's own walks cross its mounts.
//! * What is kept exactly: contents (holes of sparse files included),
//!   permission bits (`0o777`, and the sticky bit of a directory), symlink
//!   targets, the set of entries. Not kept: setuid and setgid bits, and
//!   sticky on a file — the host copies content, not privileges, so a file
//!   an agent marked setuid is never made one by the host (in a snapshot,
//!   a rollback, the original); diff does not report those bits, and apply
//!   writes a changed file without them. Neither owners, timestamps,
//!   xattrs, nor hard-link sharing in the working copy (each link becomes
//!   its own file in a snapshot; a rollback leaves alone the files it can
//!   trust, so links among those survive it).
//! * Special files (FIFOs, devices, sockets) and names that are not UTF-8
//!   or hold a newline are refused with `Unsuitable` by the walk that
//!   precedes every copy, so nothing is written; rollback removes them
//!   from the working copy (no snapshot holds one).
//! * Directories are diff entries too (a new empty directory is `added`, a
//!   directory whose mode changed is `modified`); a symlink retarget or a
//!   mode change is `modified`.
//! * Rollback is incremental (`rollback.rs`): it walks the working copy
//!   and the snapshot, without hashing, and touches only what differs —
//!   removes what the snapshot lacks (deepest first), recreates what is
//!   missing or of another kind, puts back every file whose stat is not
//!   the recorded one (a copy out of the snapshot to a temporary name,
//!   renamed over), compares byte for byte the racily clean ones (git's
//!   rule: recorded times within 10 ms of the record's time), fixes modes,
//!   compares symlink targets. Rolling back a small change costs a walk,
//!   not a copy of the tree. The price: it is not atomic. A crash or
//!   error halfway leaves the working copy partly restored (never a
//!   half-written file under a real name); rollback is idempotent, so
//!   running it again completes it.
//! * Checkpoints share unchanged files (`checkpoint.rs`): a file whose
//!   stat is the one the previous checkpoint recorded (and not racily
//!   clean there), with the same mode, is hard-linked to that snapshot's
//!   file instead of copied. Hard links share a mode, hence the mode
//!   condition. Snapshots are never written in place, which is what
//!   makes sharing safe: checkpoints only add names, rollback copies out
//!   of a snapshot (reflink or copy, never a link into the working copy),
//!   and nothing else opens a snapshot file for writing.
//! * Trust in a stat (`stat.rs`): a file whose device, inode, size, mode,
//!   mtime and ctime are what the record holds is taken to hold what was
//!   copied, as git takes its index. A successful incremental rollback
//!   refreshes its checkpoint's record (new time, new stats of what it
//!   put back), so a second rollback copies nothing that did not change.
//! * Apply stages every new file and symlink in a hidden directory at the
//!   original's root (same filesystem, so renames are atomic), then
//!   removes deleted entries, creates directories, renames the staged
//!   entries into place and sets directory modes. A failure while staging
//!   writes nothing but the staging directory (removed). The commit phase
//!   is journalled (`apply.rs`): the staging directory's name is written
//!   to `<area>/apply.intent` before it is made; once everything is
//!   staged and synced (`syncfs`), the commit's steps are written to
//!   `<area>/apply.journal` (synced, renamed into place: the commit
//!   point), then carried out, then the manifest, then the journal goes.
//!   A crash (kill, power cut, full disk) anywhere is finished (a journal:
//!   each step is skipped when done, so the original ends fully applied)
//!   or undone (only an intent: the staging directory is removed, the
//!   original was never written) by the next apply or destroy, with a
//!   warning saying which; a diff refuses meanwhile (it writes nothing).
//!   After a successful apply the manifest is the original's new state,
//!   so a second apply sees no conflict.
//! * Confinement: every write into the original (apply's commit phase)
//!   goes through descriptors of its directories, opened `O_NOFOLLOW`
//!   component by component, so a path that would escape (say a directory
//!   swapped for a symlink after the conflict check) is refused. Paths
//!   come only from walks and from manifests and stat records whose paths
//!   are checked (no `.`, `..` or empty component). An area inside the
//!   original is refused at create (the copy would contain itself).
//! * Shared with `overlay` (`pub(in crate::sandbox)`), so the two mean the
//!   same by a diff and an apply: the walk (`tree.rs`), manifests
//!   (`manifest.rs`), checkpoints (`make_checkpoint`), `compare`, the
//!   conflict check and `copy_back` (which takes the root to copy from: a
//!   working copy or an upper layer). Stat records, hard-linked
//!   checkpoints and incremental rollback are `copy_on_write`'s alone.
//! * Known limits: a change made to the original between apply's conflict
//!   check and its commit is not detected (the check is not a lock); the
//!   root directory's own mode is copied but not part of diff or apply;
//!   only apply syncs (its staged data and journal); the other operations'
//!   crash guarantees (renames) hold for a process crash, not necessarily
//!   for a power loss. Stat trust is
//!   git's, with git's limits: a change that leaves size, mtime and ctime
//!   as they were (the clock stepped back onto a recorded time, a
//!   filesystem that does not keep ctime) is not seen by rollback or
//!   checkpoint; a snapshot edited by hand is not noticed either (and is
//!   edited in every later snapshot that links to it). A file written
//!   less than 10 ms before a checkpoint is compared byte for byte by the
//!   next rollback to it (once: that rollback refreshes the record) and
//!   copied, not linked, by the next checkpoint.

mod apply;
mod checkpoint;
pub(in crate::sandbox) mod manifest;
mod rollback;
mod stat;
#[cfg(test)]
pub(in crate::sandbox) mod tests;
pub(in crate::sandbox) mod tree;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use crate::sandbox::fs_at::{DirFd, Mounts, mounts};
use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};
pub(in crate::sandbox) use apply::copy_back;
use tree::{Tree, io_err};

const WORK: &str = "work";
const MANIFEST: &str = "base.manifest";
const CHECKPOINTS: &str = "checkpoints";
/// In a checkpoint's directory: the snapshot, its stat record, its label.
const TREE: &str = "tree";
const STAT: &str = "stat";
const LABEL: &str = "label";

/// The `copy_on_write` strategy (stateless: everything lives in the area).
#[derive(Debug, Default, Clone, Copy)]
pub struct CopyOnWrite;

impl Strategy for CopyOnWrite {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        refuse_unsuitable(original, area, "copy_on_write")?;
        let source = DirFd::open(original)?;
        let listed = tree::scan(&source, Mounts::Cross, false)?;
        let area_dir = DirFd::open(area)?;
        // The manifest's digests are computed on a second thread while the
        // copy runs (the copy is the kernel's work where it can be), so
        // creating costs about the longer of the two, not their sum.
        let (hashed, copied) = std::thread::scope(|s| {
            let hasher = s.spawn(|| {
                let mut tree = listed.clone();
                tree::hash_entries(&source, Mounts::Cross, &mut tree).map(|()| tree)
            });
            let copied = tree::copy_tree(
                (&source, Mounts::Cross),
                (&area_dir, OsStr::new(WORK)),
                &listed,
            );
            (hasher.join(), copied)
        });
        copied?;
        let tree = hashed.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let base = write_manifest(area, &tree)?;
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir: area.join(WORK),
            base,
        })
    }

    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
        checkpoint::checkpoint(place, label)
    }

    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
        rollback::rollback(place, to)
    }

    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        refuse_interrupted(place)?;
        let (base, _) = read_manifest(&place.area)?;
        let work = open_working_copy(&place.area, WORK)?;
        let now = scan_like(&work, Mounts::Stay, &base)?;
        Ok(compare(&base, &now))
    }

    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError> {
        let after = |original: &DirFd| {
            write_manifest(&place.area, &tree::scan(original, Mounts::Cross, true)?).map(drop)
        };
        finish_interrupted_apply(place, &after)?;
        let (base, _) = read_manifest(&place.area)?;
        let original = DirFd::open(&place.original)?;
        refuse_conflicts(&original, &base)?;
        let work = open_working_copy(&place.area, WORK)?;
        let now = scan_like(&work, Mounts::Stay, &base)?;
        let diff = compare(&base, &now);
        copy_back(&place.area, &original, &work, (&base, &now, &diff), &after)?;
        Ok(Applied::CopiedBack(diff))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        finish_or_abandon_apply(place);
        mounts::refuse_mounts_below(&place.area, None)?;
        tree::remove_tree(&place.area)
    }
}

/// Finish or undo an apply a crash interrupted (see
/// [`apply::Interrupted`]), saying which as a warning; `after` writes
/// the strategy's record of the original once it is finished.
pub(in crate::sandbox) fn finish_interrupted_apply(
    place: &SandboxPlace,
    after: &dyn Fn(&DirFd) -> Result<(), SandboxError>,
) -> Result<Option<apply::Interrupted>, SandboxError> {
    let found = apply::finish_interrupted(&place.area, &place.original, after)?;
    if let Some(found) = &found {
        log::warn!(target: "sandbox", "{}", found.say(&place.original));
    }
    Ok(found)
}

/// Before a destroy: an apply a crash interrupted is finished, so the
/// original is not left half applied; one that cannot be finished (the
/// original changed in its way) is given up, its staging directory
/// removed from the original, saying so — a sandbox can always be
/// destroyed.
pub(in crate::sandbox) fn finish_or_abandon_apply(place: &SandboxPlace) {
    if let Err(e) = finish_interrupted_apply(place, &|_| Ok(())) {
        log::warn!(
            target: "sandbox",
            "an apply into {} was interrupted and cannot be finished ({e}); it is given up: \
             the original may hold part of its changes",
            place.original.display()
        );
        apply::abandon(&place.area, &place.original);
    }
}

/// A diff does not write: an apply a crash interrupted is left for the
/// next apply (or destroy) to finish, and the diff refused meanwhile.
pub(in crate::sandbox) fn refuse_interrupted(place: &SandboxPlace) -> Result<(), SandboxError> {
    if apply::interrupted_in(&place.area) {
        return Err(SandboxError::Unsuitable(format!(
            "an apply into {} was interrupted (a crash, a kill, a full disk); run the apply \
             again to finish it (or destroy the sandbox, which finishes it too) before a diff",
            place.original.display()
        )));
    }
    Ok(())
}

/// The working copy `name` of the sandbox whose area is `area`, opened
/// from the area's descriptor without following a symlink: one put in
/// its place (by an agent with access to the area) is refused, not
/// followed to whatever it points at.
pub(in crate::sandbox) fn open_working_copy(
    area: &Path,
    name: &str,
) -> Result<DirFd, SandboxError> {
    let area = DirFd::open(area)?;
    area.open_dir(OsStr::new(name), Mounts::Stay, area.meta(), false)
        .map_err(|e| match e {
            SandboxError::Changed { path, .. } => SandboxError::Unsuitable(format!(
                "the working copy {} is not a directory (something was put in its place, a \
                 symlink perhaps); the host does not follow it: roll back to a checkpoint \
                 (which makes it a directory again) or destroy the sandbox",
                path.display()
            )),
            other => other,
        })
}

/// Refuse an `original` that is not a directory, and an `area` inside it
/// (a copy would contain itself); `strategy` names who refuses.
pub(in crate::sandbox) fn refuse_unsuitable(
    original: &Path,
    area: &Path,
    strategy: &str,
) -> Result<(), SandboxError> {
    let meta = fs::symlink_metadata(original).map_err(io_err("inspect", original))?;
    if !meta.is_dir() {
        return Err(SandboxError::Unsuitable(format!(
            "{} is not a directory (a symlink to one is not followed); {strategy} sandboxes a directory",
            original.display()
        )));
    }
    let canonical = |p: &Path| fs::canonicalize(p).map_err(io_err("resolve", p));
    if canonical(area)?.starts_with(canonical(original)?) {
        return Err(SandboxError::Unsuitable(format!(
            "the sandbox area {} is inside the original {}; the sandbox would contain itself: \
             put the area elsewhere",
            area.display(),
            original.display()
        )));
    }
    Ok(())
}

/// Make checkpoint `<n>` (one past the highest) in `dir`: `fill` fills
/// `<n>.tmp` (which already holds `label`), then it is renamed to `<n>`,
/// its name the reference. A `*.tmp` a crash left is removed first, and
/// one whose filling failed is removed at once: a half copy must not hold
/// the space (a full disk is the usual cause) the next rollback needs.
pub(in crate::sandbox) fn make_checkpoint(
    dir: &Path,
    label: &str,
    fill: impl FnOnce(&Path) -> Result<(), SandboxError>,
) -> Result<CheckpointRef, SandboxError> {
    make_checkpoint_after(dir, label, |tmp, _| fill(tmp))
}

/// [`make_checkpoint`], also telling `fill` where the checkpoint before
/// this one is (`<n-1>`, if any).
fn make_checkpoint_after(
    dir: &Path,
    label: &str,
    fill: impl FnOnce(&Path, Option<&Path>) -> Result<(), SandboxError>,
) -> Result<CheckpointRef, SandboxError> {
    fs::create_dir_all(dir).map_err(io_err("create directory", dir))?;
    let checkpoints = DirFd::open(dir)?;
    let mut last = 0u64;
    for name in checkpoints.names()? {
        let text = name.to_string_lossy();
        if text.ends_with(".tmp") {
            tree::remove_at(&checkpoints, &name)?;
        } else if let Ok(n) = text.parse::<u64>() {
            last = last.max(n);
        }
    }
    let n = last + 1;
    let tmp_name = format!("{n}.tmp");
    checkpoints.mkdir(OsStr::new(&tmp_name))?;
    let tmp = dir.join(&tmp_name);
    let previous = (last > 0).then(|| dir.join(last.to_string()));
    let label_path = tmp.join(LABEL);
    let made = fs::write(&label_path, label)
        .map_err(io_err("write", &label_path))
        .and_then(|()| fill(&tmp, previous.as_deref()))
        .and_then(|()| {
            let done = n.to_string();
            checkpoints.rename(OsStr::new(&tmp_name), &checkpoints, OsStr::new(&done))
        });
    if made.is_err() {
        // The error to report is the one that stopped the checkpoint.
        let _ = tree::remove_at(&checkpoints, OsStr::new(&tmp_name));
    }
    made.map(|()| CheckpointRef(n.to_string()))
}

/// The directory of checkpoint `to` in `dir`; a name that is not one of
/// ours (not a number, or no such directory) is `NoCheckpoint`.
pub(in crate::sandbox) fn checkpoint_dir(
    dir: &Path,
    to: &CheckpointRef,
) -> Result<PathBuf, SandboxError> {
    let missing = || SandboxError::NoCheckpoint(to.0.clone());
    if to.0.is_empty() || !to.0.bytes().all(|b| b.is_ascii_digit()) {
        return Err(missing());
    }
    let path = dir.join(&to.0);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        _ => Err(missing()),
    }
}

/// Write the manifest of `tree` atomically; its sha256 is the sandbox's base.
fn write_manifest(area: &Path, tree: &Tree) -> Result<String, SandboxError> {
    manifest::write_manifest(&area.join(MANIFEST), tree)
}

fn read_manifest(area: &Path) -> Result<(Tree, String), SandboxError> {
    manifest::read_manifest(&area.join(MANIFEST))
}

/// Refuse with `Conflict` (naming every path) when `original` no longer
/// matches `base`, the state a sandbox was made from.
pub(in crate::sandbox) fn refuse_conflicts(
    original: &DirFd,
    base: &Tree,
) -> Result<(), SandboxError> {
    let changed = compare(base, &scan_like(original, Mounts::Cross, base)?);
    if changed == SandboxDiff::default() {
        return Ok(());
    }
    let mut paths: Vec<String> = [changed.added, changed.modified, changed.deleted].concat();
    paths.sort();
    Err(SandboxError::Conflict(paths))
}

/// Walk `root`, hashed, with file digests comparable to `base`'s (a
/// manifest of format 2 or 3, see [`tree::rehash_like`]).
pub(in crate::sandbox) fn scan_like(
    root: &DirFd,
    mounts: Mounts,
    base: &Tree,
) -> Result<Tree, SandboxError> {
    let mut now = tree::scan(root, mounts, true)?;
    tree::rehash_like(root, mounts, base, &mut now)?;
    Ok(now)
}

/// What differs from `base` in `now` (kind, size, digest, or the mode a
/// copy carries: setuid, setgid and a file's sticky bit are not compared,
/// since nothing copies them).
pub(in crate::sandbox) fn compare(base: &Tree, now: &Tree) -> SandboxDiff {
    let mut diff = SandboxDiff::default();
    for (path, entry) in now {
        match base.get(path) {
            None => diff.added.push(path.clone()),
            Some(old) if !old.same_as(entry) => diff.modified.push(path.clone()),
            Some(_) => {}
        }
    }
    diff.deleted = base
        .keys()
        .filter(|p| !now.contains_key(*p))
        .cloned()
        .collect();
    diff
}
