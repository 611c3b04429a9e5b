//! The `copy_on_write` strategy: the one home of how a directory is
//! sandboxed by copying it (reflinks where the filesystem has them, via
//! `reflink-copy`; a plain copy elsewhere).
//!
//! Layout of a sandbox's area:
//!
//! * `work/`: the working copy an agent changes.
//! * `base.manifest`: the original's state at creation, one line per entry
//!   (`kind mode size sha256 path`, see `manifest.rs`); `base` is its sha256.
//!   `diff` compares the working copy with it, `apply` first checks that
//!   the original still matches it (else `Conflict`, nothing written).
//! * `checkpoints/<n>/{tree/,stat,label}`: numbered snapshots, built as
//!   `<n>.tmp` and renamed into place, so a crash leaves no half checkpoint
//!   (a stale `*.tmp` is removed by the next checkpoint). `stat` is the
//!   working copy's stat of every entry as the checkpoint copied it (see
//!   `stat.rs`); checkpoints made before it existed have none.
//!
//! Decisions:
//!
//! * Symlinks are never followed: every walk uses `symlink_metadata`, files
//!   are opened `O_NOFOLLOW`, a link is copied as a link with the same
//!   target (even one pointing outside the tree).
//! * What is kept exactly: contents, permission bits (`0o7777`), symlink
//!   targets, the set of entries. Not kept: owners, timestamps, xattrs,
//!   hard-link sharing in the working copy (each link becomes its own
//!   file in a snapshot; a rollback leaves alone the files it can trust,
//!   so links among those survive it).
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
//!   rule: recorded times within 2 s of the record's time), fixes modes,
//!   compares symlink targets. Rolling back a small change costs a walk,
//!   not a copy of the tree. The price: it is not atomic. A crash or
//!   error halfway leaves the working copy partly restored (never a
//!   half-written file under a real name); rollback is idempotent, so
//!   running it again completes it. A checkpoint without a stat record
//!   (made before records existed) still rolls back the old way: the whole
//!   snapshot built in `restore.tmp` and swapped with `work` atomically
//!   (`renameat2(RENAME_EXCHANGE)` on Linux; elsewhere two renames, with
//!   `work.old` as the only crash window).
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
//!   writes nothing but the staging directory (removed); the residual
//!   window is the commit phase (removals and renames, no data copying),
//!   where a crash leaves some paths applied and a `.agents-apply-*`
//!   directory behind. After a successful apply the manifest is the
//!   original's new state, so a second apply sees no conflict.
//! * Confinement: every write into the original (apply's commit phase)
//!   goes through a `cap-std` `Dir` of it, so a path that would escape
//!   (say a directory swapped for a symlink after the conflict check) is
//!   refused. Walks, copies and writes inside the sandbox's own area use
//!   std with `symlink_metadata` and `O_NOFOLLOW`; paths come only from
//!   walks and from manifests and stat records whose paths are checked
//!   (no `.`, `..` or empty component). An area inside the original is refused at create
//!   (the copy would contain itself).
//! * Known limits: a change made to the original between apply's conflict
//!   check and its commit is not detected (the check is not a lock); the
//!   root directory's own mode is copied but not part of diff or apply;
//!   nothing is fsynced, so the crash guarantees (renames) hold for a
//!   process crash, not necessarily for a power loss. Stat trust is
//!   git's, with git's limits: a change that leaves size, mtime and ctime
//!   as they were (the clock stepped back onto a recorded time, a
//!   filesystem that does not keep ctime) is not seen by rollback or
//!   checkpoint; a snapshot edited by hand is not noticed either (and is
//!   edited in every later snapshot that links to it). A file written
//!   less than 2 s before a checkpoint is compared byte for byte by the
//!   next rollback to it (once: that rollback refreshes the record) and
//!   copied, not linked, by the next checkpoint.

mod checkpoint;
mod manifest;
mod rollback;
mod stat;
#[cfg(test)]
mod tests;
mod tree;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};
use tree::{Kind, Tree, io_err};

const WORK: &str = "work";
const CHECKPOINTS: &str = "checkpoints";
/// In a checkpoint's directory: the snapshot, its stat record, its label.
const TREE: &str = "tree";
const STAT: &str = "stat";
const LABEL: &str = "label";
const RESTORE: &str = "restore.tmp";

/// The `copy_on_write` strategy (stateless: everything lives in the area).
#[derive(Debug, Default, Clone, Copy)]
pub struct CopyOnWrite;

impl Strategy for CopyOnWrite {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        let meta = fs::symlink_metadata(original).map_err(io_err("inspect", original))?;
        if !meta.is_dir() {
            return Err(SandboxError::Unsuitable(format!(
                "{} is not a directory (a symlink to one is not followed); copy_on_write sandboxes a directory",
                original.display()
            )));
        }
        let canonical = |p: &Path| fs::canonicalize(p).map_err(io_err("resolve", p));
        if canonical(area)?.starts_with(canonical(original)?) {
            return Err(SandboxError::Unsuitable(format!(
                "the sandbox area {} is inside the original {}; a copy would contain itself: \
                 put the area elsewhere",
                area.display(),
                original.display()
            )));
        }
        let tree = tree::scan(original, true)?;
        let workdir = area.join(WORK);
        tree::copy_tree(original, &workdir, &tree)?;
        let base = manifest::write(area, &tree)?;
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir,
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
        let base = manifest::read(&place.area)?;
        let now = tree::scan(&place.workdir, true)?;
        Ok(compare(&base, &now))
    }

    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError> {
        let base = manifest::read(&place.area)?;
        let current = tree::scan(&place.original, true)?;
        let changed = compare(&base, &current);
        if changed != SandboxDiff::default() {
            let mut paths: Vec<String> =
                [changed.added, changed.modified, changed.deleted].concat();
            paths.sort();
            return Err(SandboxError::Conflict(paths));
        }
        let now = tree::scan(&place.workdir, true)?;
        let diff = compare(&base, &now);
        copy_back(place, &base, &now, &diff)?;
        manifest::write(&place.area, &tree::scan(&place.original, true)?)?;
        Ok(Applied::CopiedBack(diff))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        tree::remove_tree(&place.area)
    }
}

/// What differs from `base` in `now` (kind, mode, size or digest).
fn compare(base: &Tree, now: &Tree) -> SandboxDiff {
    let mut diff = SandboxDiff::default();
    for (path, entry) in now {
        match base.get(path) {
            None => diff.added.push(path.clone()),
            Some(old) if old != entry => diff.modified.push(path.clone()),
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

/// Bring `diff` from the working copy into the original: stage, then
/// commit by removals and renames (see the module doc for the window).
fn copy_back(
    place: &SandboxPlace,
    base: &Tree,
    now: &Tree,
    diff: &SandboxDiff,
) -> Result<(), SandboxError> {
    let original = &place.original;
    let changed: Vec<&String> = {
        let mut v: Vec<&String> = diff.added.iter().chain(&diff.modified).collect();
        v.sort();
        v
    };
    // Every write into the original goes through a capability on it:
    // a path that would leave it (a directory swapped for a symlink since
    // the conflict check) is refused by cap-std, not followed.
    let root = cap_std::fs::Dir::open_ambient_dir(original, cap_std::ambient_authority())
        .map_err(io_err("open", original))?;
    let staging = tempfile::Builder::new()
        .prefix(".agents-apply-")
        .tempdir_in(original)
        .map_err(io_err("create a staging directory in", original))?;
    let staging_name = staging.path().file_name().unwrap_or_default().to_owned();
    let mut staged = Vec::new();
    for (i, path) in changed.iter().enumerate() {
        let entry = &now[*path];
        if entry.kind != Kind::Dir {
            let to = staging.path().join(i.to_string());
            tree::copy_entry(&place.workdir.join(path), &to, entry)?;
            staged.push((Path::new(&staging_name).join(i.to_string()), *path));
        }
    }
    let in_original = |what: &'static str, path: &str| io_err(what, &original.join(path));
    // Commit: removals deepest first (a directory's children are deleted
    // entries too), then new directories, renames, directory modes.
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
        let result = if base[path].kind == Kind::Dir {
            root.remove_dir(path)
        } else {
            root.remove_file(path)
        };
        result.map_err(in_original("remove", path))?;
    }
    let dirs: Vec<&&String> = changed
        .iter()
        .filter(|p| now[**p].kind == Kind::Dir)
        .collect();
    for path in &dirs {
        if base.get(**path).is_none_or(|b| b.kind != Kind::Dir) {
            root.create_dir(path)
                .map_err(in_original("create directory", path))?;
        }
    }
    for (from, to) in staged {
        root.rename(&from, &root, to)
            .map_err(in_original("rename into place", to))?;
    }
    for path in dirs.iter().rev() {
        let mode = fs::Permissions::from_mode(now[**path].mode);
        root.set_permissions(path, cap_std::fs::Permissions::from_std(mode))
            .map_err(in_original("set the mode of", path))?;
    }
    staging
        .close()
        .map_err(io_err("remove the staging directory in", original))
}
