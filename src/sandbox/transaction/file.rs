//! Which path a sandbox opens: the one home of the checks made before
//! SQLite sees a path, so that a refused path is never created or changed.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::unsuitable;
use crate::sandbox::SandboxError;

const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses, without creating anything, what is not an existing regular
/// file that starts with the SQLite header.
pub fn check_database_file(path: &Path) -> Result<(), SandboxError> {
    let shown = path.display();
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(unsuitable(format!(
                "{shown} does not exist; a transaction_rollback sandbox opens an existing SQLite \
                 database and creates nothing"
            )));
        }
        Err(source) => {
            return Err(SandboxError::Io {
                what: "inspect",
                path: path.to_owned(),
                source,
            });
        }
    };
    if meta.file_type().is_symlink() {
        return Err(unsuitable(format!(
            "{shown} is a symbolic link, which a sandbox does not follow; give the database \
             file's own path"
        )));
    }
    if !meta.is_file() {
        return Err(unsuitable(format!(
            "{shown} is not a regular file, so not a SQLite database file"
        )));
    }
    let mut head = Vec::with_capacity(HEADER.len());
    // Not following a link swapped in since the check, nor blocking on a
    // FIFO.
    let flags = (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits();
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags as i32)
        .open(path)
        .and_then(|file| file.take(HEADER.len() as u64).read_to_end(&mut head));
    if let Err(source) = opened {
        return Err(SandboxError::Io {
            what: "read the header of",
            path: path.to_owned(),
            source,
        });
    }
    if head != HEADER {
        return Err(unsuitable(format!(
            "{shown} is not a SQLite database (it does not start with the \"SQLite format 3\" \
             header{}); nothing was opened",
            if head.is_empty() { "; it is empty" } else { "" }
        )));
    }
    Ok(())
}
