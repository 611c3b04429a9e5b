//! What git does not keep of a working copy, kept beside each
//! checkpoint: every file's and directory's permission bits (git keeps a
//! file's executable bit only, so a file the agent made `0600` would come
//! back as the umask says — world-readable — or not, depending on whether
//! git rewrote it), and the rule that special files (FIFOs, sockets,
//! devices), which git never records, are not part of any checkpoint.
//!
//! A checkpoint writes `<area>/modes/<commit>`: for each file and
//! directory of its tree, `<octal mode> <path>` and a NUL, as it was when
//! recorded (permission bits and a directory's sticky bit; never setuid or
//! setgid, [`carried_mode`]). Rollback, after git has put the tree back,
//! sets each recorded mode and removes every special file of the working
//! copy (nested repositories left alone). Everything is reached by
//! descriptor ([`Cursor`]): a path the agent turned into a symlink is
//! skipped, never followed. A checkpoint made before this record existed
//! has none; its rollback restores what git keeps, as before.

use std::ffi::OsStr;
use std::path::PathBuf;

use super::repo::{Git, Side};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts, carried_mode, io_err};
use crate::sandbox::{SandboxError, SandboxPlace};

fn record_path(place: &SandboxPlace, commit: &str) -> PathBuf {
    place.area.join("modes").join(commit)
}

/// Record the modes of the entries of `tree` (a checkpoint's) as the
/// working copy has them now, for the checkpoint `commit`.
pub(super) fn record(
    git: &Git<'_>,
    place: &SandboxPlace,
    tree: &str,
    commit: &str,
) -> Result<(), SandboxError> {
    let listed = git.run(
        Side::Sandbox,
        &["ls-tree", "-r", "-t", "-z", "--full-tree", tree],
    )?;
    let root = DirFd::open(&place.workdir)?;
    let mut cursor = Cursor::new(&root, Mounts::Stay);
    let mut out = Vec::new();
    for entry in listed.split('\0') {
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let kind = match meta.split(' ').next() {
            Some("100644" | "100755") => FileKind::File,
            Some("040000") => FileKind::Dir,
            _ => continue,
        };
        // An entry the agent changed since (or made unreachable) has no
        // mode to keep; git's own record of it stands.
        let Ok((dir, name)) = cursor.parent(path) else {
            continue;
        };
        if let Ok(Some(now)) = dir.stat(name)
            && now.kind == kind
        {
            out.extend_from_slice(
                format!("{:o} {path}\0", carried_mode(kind, now.mode)).as_bytes(),
            );
        }
    }
    let dir = place.area.join("modes");
    std::fs::create_dir_all(&dir).map_err(io_err("cannot create", &dir))?;
    let to = record_path(place, commit);
    let partial = dir.join(format!("{commit}.partial"));
    std::fs::write(&partial, out)
        .and_then(|()| std::fs::rename(&partial, &to))
        .map_err(io_err("cannot write", &to))
}

/// Put back the modes recorded for checkpoint `commit` (when it has a
/// record), then remove every special file of the working copy.
pub(super) fn restore(place: &SandboxPlace, commit: &str) -> Result<(), SandboxError> {
    let root = DirFd::open(&place.workdir)?;
    let from = record_path(place, commit);
    match std::fs::read(&from) {
        Ok(bytes) => set_modes(&root, &bytes)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("cannot read", &from)(e)),
    }
    remove_special_files(&root)
}

fn set_modes(root: &DirFd, record: &[u8]) -> Result<(), SandboxError> {
    let mut dirs = Vec::new();
    let mut cursor = Cursor::new(root, Mounts::Stay);
    for entry in record.split(|b| *b == 0) {
        let Some((mode, path)) = std::str::from_utf8(entry)
            .ok()
            .and_then(|e| e.split_once(' '))
            .and_then(|(m, p)| Some((u32::from_str_radix(m, 8).ok()?, p)))
        else {
            continue;
        };
        if path.is_empty()
            || path
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
        {
            continue;
        }
        // Files now; directories after, deepest first, so a directory
        // made unreadable is closed only once nothing below it is left.
        let Ok((dir, name)) = cursor.parent(path) else {
            continue;
        };
        match dir.stat(name)? {
            Some(now) if now.kind == FileKind::Dir => dirs.push((path.to_owned(), mode)),
            Some(now) if now.kind == FileKind::File => {
                dir.set_mode_of(name, FileKind::File, carried_mode(FileKind::File, mode))?;
            }
            _ => {}
        }
    }
    drop(cursor);
    dirs.sort_by_key(|(path, _)| std::cmp::Reverse(path.matches('/').count()));
    for (path, mode) in dirs {
        let mut cursor = Cursor::new(root, Mounts::Stay);
        if let Ok((dir, name)) = cursor.parent(&path) {
            dir.set_mode_of(name, FileKind::Dir, carried_mode(FileKind::Dir, mode))?;
        }
    }
    Ok(())
}

/// Remove every FIFO, socket and device below `root`, never entering the
/// host's `.git` file or a nested repository.
fn remove_special_files(root: &DirFd) -> Result<(), SandboxError> {
    let mut stack: Vec<(DirFd, bool)> = Vec::new();
    let top = DirFd::open(root.path())?;
    stack.push((top, true));
    while let Some((dir, is_top)) = stack.pop() {
        let names = dir.names()?;
        if !is_top && names.iter().any(|n| n == OsStr::new(".git")) {
            continue;
        }
        for name in names {
            if is_top && name == OsStr::new(".git") {
                continue;
            }
            match dir.stat(&name)? {
                Some(meta) if matches!(meta.kind, FileKind::Special { .. }) => {
                    dir.unlink(&name)
                        .map_err(io_err("cannot remove", &dir.child(&name)))?;
                }
                Some(meta) if meta.kind == FileKind::Dir => {
                    let below = dir.open_dir(&name, Mounts::Stay, root.meta(), false)?;
                    stack.push((below, false));
                }
                _ => {}
            }
        }
    }
    Ok(())
}
