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

use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::tree::{self, Kind, Tree};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::{SandboxDiff, SandboxError};

/// The apply journal's file in the sandbox's area: the commit phase's
/// steps, written (and synced) before the first of them, removed after
/// the last and after the sandbox's records of the original are written.
pub(in crate::sandbox) const JOURNAL: &str = "apply.journal";
/// The staging directory's name, written before it is made: a crash
/// while staging leaves this and the directory, which the next command
/// removes (the original untouched).
const INTENT: &str = "apply.intent";
const JOURNAL_HEADER: &str = "agents apply journal v1";

/// What the next command found of an apply that a crash (a kill, a power
/// cut, a full disk) interrupted, and did about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sandbox) enum Interrupted {
    /// It was still copying into its staging directory: nothing had been
    /// written into the original; the staging directory was removed.
    Undone,
    /// It had begun its commit: it was finished, so the original holds
    /// every change of that apply.
    Finished,
}

impl Interrupted {
    pub(in crate::sandbox) fn say(&self, original: &std::path::Path) -> String {
        match self {
            Interrupted::Undone => format!(
                "an apply into {} was interrupted before it wrote anything there; its staging \
                 directory was removed and the original is as it was",
                original.display()
            ),
            Interrupted::Finished => format!(
                "an apply into {} was interrupted halfway; it was finished, so the original \
                 holds all of that apply's changes",
                original.display()
            ),
        }
    }
}

/// Is an interrupted apply waiting in `area` (for a command that will not
/// finish it, such as a diff, to refuse)?
pub(in crate::sandbox) fn interrupted_in(area: &Path) -> bool {
    area.join(JOURNAL).exists() || area.join(INTENT).exists()
}

/// Bring `diff` into `original`, taking every added or modified entry of
/// `now` from below `from` (the working copy, or an overlay's upper
/// layer): stage, write the journal (the commit point), commit by
/// removals and renames, then `after` (the strategy's records of the
/// original), then drop the journal. A crash anywhere is finished or
/// undone by [`finish_interrupted`].
pub(in crate::sandbox) fn copy_back(
    area: &Path,
    original: &DirFd,
    from: &DirFd,
    (base, now, diff): (&Tree, &Tree, &SandboxDiff),
    after: &dyn Fn(&DirFd) -> Result<(), SandboxError>,
) -> Result<(), SandboxError> {
    let staging_name = staging_name();
    write_synced(area, INTENT, staging_name.as_bytes())?;
    let staged = original.mkdir(OsStr::new(&staging_name)).and_then(|()| {
        let staging = original.open_dir(
            OsStr::new(&staging_name),
            Mounts::Stay,
            original.meta(),
            false,
        )?;
        stage(&staging, from, now, diff)
    });
    let staged = match staged {
        Ok(staged) => staged,
        Err(e) => {
            let _ = tree::remove_at(original, OsStr::new(&staging_name));
            let _ = std::fs::remove_file(area.join(INTENT));
            return Err(e);
        }
    };
    // The staged data durable before the journal that commits to it.
    sync_fs(original)?;
    let journal = journal(&staging_name, base, now, diff, &staged);
    if let Err(e) = write_synced(area, JOURNAL, &journal) {
        let _ = tree::remove_at(original, OsStr::new(&staging_name));
        let _ = std::fs::remove_file(area.join(INTENT));
        return Err(e);
    }
    seam::reached(Moment::Commit, "");
    replay(area, original, &journal, after)
}

/// Finish or undo an apply a crash interrupted in `area` (see
/// [`Interrupted`]); `None` when there was none.
pub(in crate::sandbox) fn finish_interrupted(
    area: &Path,
    original: &Path,
    after: &dyn Fn(&DirFd) -> Result<(), SandboxError>,
) -> Result<Option<Interrupted>, SandboxError> {
    let read = |name: &str| match std::fs::read(area.join(name)) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(tree::io_err("read", &area.join(name))(e)),
    };
    if let Some(journal) = read(JOURNAL)? {
        let original = DirFd::open(original)?;
        replay(area, &original, &journal, after)?;
        return Ok(Some(Interrupted::Finished));
    }
    let Some(intent) = read(INTENT)? else {
        return Ok(None);
    };
    let name = String::from_utf8_lossy(&intent).into_owned();
    if is_staging_name(&name) {
        let original = DirFd::open(original)?;
        tree::remove_at(&original, OsStr::new(&name))?;
    }
    std::fs::remove_file(area.join(INTENT)).map_err(tree::io_err("remove", &area.join(INTENT)))?;
    Ok(Some(Interrupted::Undone))
}

/// Give up an interrupted apply that cannot be finished (the sandbox is
/// being destroyed): its staging directory is removed from the original
/// (which may stay partly applied: the caller says so) and the journal
/// with it.
pub(in crate::sandbox) fn abandon(area: &Path, original: &Path) {
    for name in [JOURNAL, INTENT] {
        let Ok(bytes) = std::fs::read(area.join(name)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let staging = if name == JOURNAL {
            text.lines().nth(1).unwrap_or_default().to_owned()
        } else {
            text.into_owned()
        };
        if is_staging_name(&staging)
            && let Ok(original) = DirFd::open(original)
        {
            let _ = tree::remove_at(&original, OsStr::new(&staging));
        }
        let _ = std::fs::remove_file(area.join(name));
    }
}

/// A staging directory's name: hidden, at the original's root, unique.
fn staging_name() -> String {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".agents-apply-{}-{nanos:x}-{n}", std::process::id())
}

/// Only a name [`staging_name`] makes is ever removed from the original
/// on a journal's or an intent's word (the area is writable by others).
fn is_staging_name(name: &str) -> bool {
    name.strip_prefix(".agents-apply-").is_some_and(|rest| {
        !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    })
}

/// `name` in `dir`, written whole and synced, then renamed into place
/// and the directory synced: there or not, never half.
fn write_synced(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), SandboxError> {
    use std::io::Write;
    let to = dir.join(name);
    let partial = dir.join(format!("{name}.partial"));
    let written = std::fs::File::create(&partial)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&partial, &to))
        .and_then(|()| std::fs::File::open(dir).and_then(|d| d.sync_all()));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.map_err(tree::io_err("write", &to))
}

fn sync_fs(dir: &DirFd) -> Result<(), SandboxError> {
    dir.sync_filesystem()
}

/// The commit's steps, in order: removals deepest first (`R <kind>
/// <path>`, the kind the base had), new directories (`M <path>`), the
/// staged entries' renames (`N <staged> <path>`), directory modes (`P
/// <octal> <path>`); each record ends with a NUL, the path last.
fn journal(
    staging: &str,
    base: &Tree,
    now: &Tree,
    diff: &SandboxDiff,
    staged: &[(OsString, &String)],
) -> Vec<u8> {
    let mut out = format!("{JOURNAL_HEADER}\n{staging}\n").into_bytes();
    let mut record = |text: String| {
        out.extend_from_slice(text.as_bytes());
        out.push(0);
    };
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
        record(format!("R {} {path}", base[path].kind.letter()));
    }
    let changed = changed(diff);
    let dirs: Vec<&&String> = changed
        .iter()
        .filter(|p| now[**p].kind == Kind::Dir)
        .collect();
    for path in &dirs {
        if base.get(**path).is_none_or(|b| b.kind != Kind::Dir) {
            record(format!("M {path}"));
        }
    }
    for (from, to) in staged {
        record(format!("N {} {to}", from.to_string_lossy()));
    }
    for path in dirs.iter().rev() {
        record(format!("P {:o} {path}", now[**path].carried_mode()));
    }
    out
}

/// Carry out a journal's steps, each one skipped when it is done already
/// (so a journal replayed after a crash halfway finishes the apply),
/// then `after`, the staging directory's removal, and the journal's.
fn replay(
    area: &Path,
    original: &DirFd,
    journal: &[u8],
    after: &dyn Fn(&DirFd) -> Result<(), SandboxError>,
) -> Result<(), SandboxError> {
    let damaged = || {
        SandboxError::Unsuitable(format!(
            "the apply journal {} is damaged; the original may be partly applied — compare it \
             with the sandbox (diff) and destroy the sandbox, or restore the original from a \
             backup",
            area.join(JOURNAL).display()
        ))
    };
    let text = std::str::from_utf8(journal).map_err(|_| damaged())?;
    let (header, rest) = text.split_once('\n').ok_or_else(damaged)?;
    let (staging_name, records) = rest.split_once('\n').ok_or_else(damaged)?;
    if header != JOURNAL_HEADER || !is_staging_name(staging_name) {
        return Err(damaged());
    }
    let staging_name = OsStr::new(staging_name);
    let staging = match original.stat(staging_name)? {
        Some(_) => Some(original.open_dir(staging_name, Mounts::Stay, original.meta(), false)?),
        None => None,
    };
    let in_original =
        |what: &'static str, path: &str| tree::io_err(what, &original.path().join(path));
    let mut dst = Cursor::new(original, Mounts::Cross);
    for record in records.split('\0').filter(|r| !r.is_empty()) {
        let (op, rest) = record.split_once(' ').ok_or_else(damaged)?;
        match op {
            "R" => {
                let (kind, path) = rest.split_once(' ').ok_or_else(damaged)?;
                let (dir, name) = dst.parent(path)?;
                let want = match kind {
                    "d" => FileKind::Dir,
                    "l" => FileKind::Symlink,
                    "f" => FileKind::File,
                    _ => return Err(damaged()),
                };
                // Gone, or already replaced by what the apply renamed
                // there (another kind): done.
                match dir.stat(name)? {
                    Some(meta) if meta.kind == want && want == FileKind::Dir => {
                        dir.rmdir(name).map_err(in_original("remove", path))?;
                    }
                    Some(meta) if meta.kind == want => {
                        dir.unlink(name).map_err(in_original("remove", path))?;
                    }
                    _ => {}
                }
            }
            "M" => {
                let (dir, name) = dst.parent(rest)?;
                if !dir.stat(name)?.is_some_and(|m| m.kind == FileKind::Dir) {
                    dir.mkdir(name)?;
                }
            }
            "N" => {
                let (from, path) = rest.split_once(' ').ok_or_else(damaged)?;
                let Some(staging) = &staging else { continue };
                if staging.stat(OsStr::new(from))?.is_some() {
                    seam::reached(Moment::Rename, path);
                    let (dir, name) = dst.parent(path)?;
                    staging.rename(OsStr::new(from), dir, name)?;
                }
            }
            "P" => {
                let (mode, path) = rest.split_once(' ').ok_or_else(damaged)?;
                let mode = u32::from_str_radix(mode, 8).map_err(|_| damaged())?;
                dst.dir(path)?.set_mode(mode)?;
            }
            _ => return Err(damaged()),
        }
    }
    drop(dst);
    // Every rename done: the staging directory is empty of what matters
    // (a replay after this finds it gone and skips the renames).
    if staging.is_some() {
        tree::remove_at(original, staging_name)?;
    }
    sync_fs(original)?;
    after(original)?;
    let _ = std::fs::remove_file(area.join(INTENT));
    std::fs::remove_file(area.join(JOURNAL)).map_err(tree::io_err("remove", &area.join(JOURNAL)))
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
