//! The `copy_on_write` strategy: the one home of how a directory is
//! sandboxed by copying it (reflinks where the filesystem has them, via
//! `reflink-copy`; a plain copy elsewhere).
//!
//! Layout of a sandbox's area:
//!
//! * `work/`: the working copy an agent changes.
//! * `base.manifest`: the original's state at creation, one line per entry
//!   (`kind mode size sha256 path`, see `tree.rs`); `base` is its sha256.
//!   `diff` compares the working copy with it, `apply` first checks that
//!   the original still matches it (else `Conflict`, nothing written).
//! * `checkpoints/<n>/{tree/,label}`: numbered snapshots, built as
//!   `<n>.tmp` and renamed into place, so a crash leaves no half checkpoint
//!   (a stale `*.tmp` is removed by the next checkpoint).
//!
//! Decisions:
//!
//! * Symlinks are never followed: every walk uses `symlink_metadata`, files
//!   are opened `O_NOFOLLOW`, a link is copied as a link with the same
//!   target (even one pointing outside the tree).
//! * What is kept exactly: contents, permission bits (`0o7777`), symlink
//!   targets, the set of entries. Not kept: owners, timestamps, xattrs,
//!   hard-link sharing (each link becomes its own file).
//! * Special files (FIFOs, devices, sockets) and names that are not UTF-8
//!   or hold a newline are refused with `Unsuitable` by the walk that
//!   precedes every copy, so nothing is written.
//! * Directories are diff entries too (a new empty directory is `added`, a
//!   directory whose mode changed is `modified`); a symlink retarget or a
//!   mode change is `modified`.
//! * Rollback builds `restore.tmp` from the snapshot, then swaps it with
//!   `work` atomically (`renameat2(RENAME_EXCHANGE)` on Linux; elsewhere
//!   two renames, with `work.old` as the only crash window).
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
//!   walks and from a manifest whose paths are checked (no `.`, `..` or
//!   empty component). An area inside the original is refused at create
//!   (the copy would contain itself).
//! * Shared with `overlay` (`pub(in crate::sandbox)`), so the two mean the
//!   same by a diff and an apply: the walk and manifests (`tree.rs`),
//!   checkpoints (`make_checkpoint`), `compare`, the conflict check and `copy_back`
//!   (which takes the root to copy from: a working copy or an upper layer).
//! * Known limits: a change made to the original between apply's conflict
//!   check and its commit is not detected (the check is not a lock); the
//!   root directory's own mode is copied but not part of diff or apply;
//!   nothing is fsynced, so the crash guarantees (renames) hold for a
//!   process crash, not necessarily for a power loss.

#[cfg(test)]
pub(in crate::sandbox) mod tests;
pub(in crate::sandbox) mod tree;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};
use tree::{Kind, Tree, io_err};

const WORK: &str = "work";
const MANIFEST: &str = "base.manifest";
const CHECKPOINTS: &str = "checkpoints";
const RESTORE: &str = "restore.tmp";

/// The `copy_on_write` strategy (stateless: everything lives in the area).
#[derive(Debug, Default, Clone, Copy)]
pub struct CopyOnWrite;

impl Strategy for CopyOnWrite {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        refuse_unsuitable(original, area, "copy_on_write")?;
        let tree = tree::scan(original, true)?;
        let workdir = area.join(WORK);
        tree::copy_tree(original, &workdir, &tree)?;
        let base = write_manifest(area, &tree)?;
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir,
            base,
        })
    }

    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
        make_checkpoint(&place.area.join(CHECKPOINTS), label, |tmp| {
            let snapshot = tree::scan(&place.workdir, false)?;
            tree::copy_tree(&place.workdir, &tmp.join("tree"), &snapshot)
        })
    }

    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
        let snap = checkpoint_dir(&place.area.join(CHECKPOINTS), to)?.join("tree");
        let restore = place.area.join(RESTORE);
        tree::remove_tree(&restore)?;
        let built = tree::scan(&snap, false)
            .and_then(|snapshot| tree::copy_tree(&snap, &restore, &snapshot));
        if built.is_err() {
            let _ = tree::remove_tree(&restore);
        }
        built?;
        swap(&restore, &place.workdir)?;
        tree::remove_tree(&restore)
    }

    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        let (base, _) = read_manifest(&place.area)?;
        let now = tree::scan(&place.workdir, true)?;
        Ok(compare(&base, &now))
    }

    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError> {
        let (base, _) = read_manifest(&place.area)?;
        refuse_conflicts(&place.original, &base)?;
        let now = tree::scan(&place.workdir, true)?;
        let diff = compare(&base, &now);
        copy_back(&place.original, &place.workdir, &base, &now, &diff)?;
        write_manifest(&place.area, &tree::scan(&place.original, true)?)?;
        Ok(Applied::CopiedBack(diff))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        tree::remove_tree(&place.area)
    }
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
    fs::create_dir_all(dir).map_err(io_err("create directory", dir))?;
    let mut last = 0u64;
    for item in fs::read_dir(dir).map_err(io_err("read directory", dir))? {
        let item = item.map_err(io_err("read directory", dir))?;
        let name = item.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            tree::remove_tree(&item.path())?;
        } else if let Ok(n) = name.parse::<u64>() {
            last = last.max(n);
        }
    }
    let n = last + 1;
    let tmp = dir.join(format!("{n}.tmp"));
    fs::create_dir(&tmp).map_err(io_err("create directory", &tmp))?;
    let done = dir.join(n.to_string());
    let label_path = tmp.join("label");
    let made = fs::write(&label_path, label)
        .map_err(io_err("write", &label_path))
        .and_then(|()| fill(&tmp))
        .and_then(|()| fs::rename(&tmp, &done).map_err(io_err("rename into place", &done)));
    if made.is_err() {
        // The error to report is the one that stopped the checkpoint.
        let _ = tree::remove_tree(&tmp);
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

/// Exchange two directories: atomically on Linux; elsewhere by two renames.
pub(in crate::sandbox) fn swap(a: &Path, b: &Path) -> Result<(), SandboxError> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        if renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok() {
            return Ok(());
        }
    }
    let old = b.with_extension("old");
    fs::rename(b, &old).map_err(io_err("move aside", b))?;
    fs::rename(a, b).map_err(io_err("move into place", a))?;
    fs::rename(&old, a).map_err(io_err("move aside", &old))
}

/// Write the manifest of `tree` atomically; its sha256 is the sandbox's base.
fn write_manifest(area: &Path, tree: &Tree) -> Result<String, SandboxError> {
    tree::write_manifest(&area.join(MANIFEST), tree)
}

fn read_manifest(area: &Path) -> Result<(Tree, String), SandboxError> {
    tree::read_manifest(&area.join(MANIFEST))
}

/// Refuse with `Conflict` (naming every path) when `original` no longer
/// matches `base`, the state a sandbox was made from.
pub(in crate::sandbox) fn refuse_conflicts(
    original: &Path,
    base: &Tree,
) -> Result<(), SandboxError> {
    let changed = compare(base, &tree::scan(original, true)?);
    if changed == SandboxDiff::default() {
        return Ok(());
    }
    let mut paths: Vec<String> = [changed.added, changed.modified, changed.deleted].concat();
    paths.sort();
    Err(SandboxError::Conflict(paths))
}

/// What differs from `base` in `now` (kind, mode, size or digest).
pub(in crate::sandbox) fn compare(base: &Tree, now: &Tree) -> SandboxDiff {
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

/// Bring `diff` into `original`, taking every added or modified entry of
/// `now` from below `from` (the working copy, or an overlay's upper
/// layer): stage, then commit by removals and renames (see the module doc
/// for the window).
pub(in crate::sandbox) fn copy_back(
    original: &Path,
    from: &Path,
    base: &Tree,
    now: &Tree,
    diff: &SandboxDiff,
) -> Result<(), SandboxError> {
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
            tree::copy_entry(&from.join(path), &to, entry)?;
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
