//! Removing a tree: the one home of how the host deletes what it made
//! (an area, a snapshot, a staging directory, what a rollback drops)
//! without following a symlink swapped in, without going into a mount,
//! and without giving up on a directory the agent keeps refilling — a
//! few tries, then a refusal.

use std::ffi::OsStr;
use std::path::Path;

use super::io_err;
use crate::sandbox::SandboxError;
use crate::sandbox::fs_at::{self, DirFd, Meta, Mounts};
use crate::sandbox::seam::{self, Moment};

/// Remove the tree at `path` (a directory with everything in it, or any
/// other entry), even where a copied directory is read-only (its owner's
/// mode was copied faithfully). Symlinks are removed, never followed; a
/// mount met inside is refused, naming it, and nothing on it is removed
/// or has its mode changed. What is gone already is fine.
pub(in crate::sandbox) fn remove_tree(path: &Path) -> Result<(), SandboxError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(SandboxError::Unsuitable(format!(
            "{} names no entry to remove",
            path.display()
        )));
    };
    let parent = match DirFd::open(parent) {
        Ok(parent) => parent,
        Err(SandboxError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    remove_at(&parent, name)
}

/// Remove `name` of `parent` (see [`remove_tree`]), staying on
/// `parent`'s filesystem.
pub(in crate::sandbox) fn remove_at(parent: &DirFd, name: &OsStr) -> Result<(), SandboxError> {
    remove_entry(parent, name, parent.meta())
}

/// How often a removal retries an entry the agent keeps changing (a
/// directory refilled while it is emptied, a file turned into one).
const REMOVE_TRIES: usize = 4;

fn remove_entry(parent: &DirFd, name: &OsStr, root: &Meta) -> Result<(), SandboxError> {
    use rustix::io::Errno;
    let path = parent.child(name);
    let mounted = || SandboxError::Mounted {
        points: vec![path.clone()],
    };
    let is = |e: &std::io::Error, errno: Errno| e.raw_os_error() == Some(errno.raw_os_error());
    for _ in 0..REMOVE_TRIES {
        seam::reached(Moment::Remove, &name.to_string_lossy());
        // Anything but a directory goes at once (a symlink itself, never
        // what it points at; a file mounted over is busy).
        match parent.unlink(name) {
            Ok(_) => return Ok(()),
            Err(e) if is(&e, Errno::ISDIR) => {}
            Err(e) if is(&e, Errno::BUSY) => return Err(mounted()),
            Err(e) => return Err(io_err("remove", &path)(e)),
        }
        let Some(meta) = parent.stat(name)? else {
            return Ok(());
        };
        if meta.crosses_from(root) {
            return Err(mounted());
        }
        let dir = match parent.open_dir(name, Mounts::Stay, root, true) {
            Ok(dir) => dir,
            // It stopped being a directory since: look again.
            Err(SandboxError::Changed { .. }) => continue,
            Err(e) => return Err(e),
        };
        for inner in dir.names()? {
            remove_entry(&dir, &inner, root)?;
        }
        match parent.rmdir(name) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if is(&e, Errno::BUSY) => return Err(mounted()),
            // Refilled while it was emptied, or replaced: again.
            Err(e)
                if e.kind() == std::io::ErrorKind::DirectoryNotEmpty || is(&e, Errno::NOTDIR) =>
            {
                continue;
            }
            Err(e) => return Err(io_err("remove", &path)(e)),
        }
    }
    Err(fs_at::changed(
        &path,
        "it kept changing while it was removed",
    ))
}
