//! The mount table as the sandbox reads it (`/proc/self/mountinfo`): the
//! one home of which mounts are where, so that an operation that would
//! remove or rewrite a tree refuses a mount inside it up front, before it
//! changes anything — rather than halfway, where the descriptor checks
//! ([`super::Mounts::Stay`]) would stop it.
//!
//! The table shows this process's mount namespace; a mount made in another
//! one (a container's) is invisible here and hides nothing from the host
//! either. Where the table cannot be read (no `/proc`) the up-front check
//! finds nothing and the descriptor checks still refuse as they meet one.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use super::io_err;
use crate::sandbox::SandboxError;

/// One line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sandbox) struct Mount {
    pub point: PathBuf,
    pub fstype: String,
    /// The filesystem's own options (overlayfs's `upperdir=…`, …).
    pub options: String,
}

/// Every mount of this process's namespace, in the table's order (a mount
/// stacked on another comes after it); empty where there is no table.
pub(in crate::sandbox) fn table() -> Result<Vec<Mount>, SandboxError> {
    let path = Path::new("/proc/self/mountinfo");
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("read", path)(e)),
    };
    let mut mounts = Vec::new();
    for line in text.lines() {
        // `id parent major:minor root mount-point options [optional…] - type source super-options`
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let Some(point) = head.split(' ').nth(4) else {
            continue;
        };
        let mut tail = tail.split(' ');
        let fstype = tail.next().unwrap_or_default().to_owned();
        let options = tail.nth(1).unwrap_or_default().to_owned();
        mounts.push(Mount {
            point: PathBuf::from(OsString::from_vec(unescape(point))),
            fstype,
            options,
        });
    }
    Ok(mounts)
}

/// The topmost mount on `dir`, if any (`dir` is resolved first; one that
/// does not exist has none).
pub(in crate::sandbox) fn mount_at(dir: &Path) -> Result<Option<Mount>, SandboxError> {
    let dir = match std::fs::canonicalize(dir) {
        Ok(dir) => dir,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("resolve", dir)(e)),
    };
    Ok(table()?.into_iter().rfind(|m| m.point == dir))
}

/// Refuse when anything is mounted at or below `dir` (except at `own`, a
/// mount the strategy made and undoes itself), naming every mount point
/// and saying how to unmount them. A `dir` that does not exist has none.
pub(in crate::sandbox) fn refuse_mounts_below(
    dir: &Path,
    own: Option<&Path>,
) -> Result<(), SandboxError> {
    let dir = match std::fs::canonicalize(dir) {
        Ok(dir) => dir,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err("resolve", dir)(e)),
    };
    let own = own.and_then(|p| std::fs::canonicalize(p).ok());
    let mut found: Vec<PathBuf> = table()?
        .into_iter()
        .map(|m| m.point)
        .filter(|p| p.starts_with(&dir) && Some(p) != own.as_ref())
        .collect();
    found.sort();
    found.dedup();
    if found.is_empty() {
        return Ok(());
    }
    Err(SandboxError::Mounted { points: found })
}

/// Undo the kernel's octal escapes (`\040` for a space, …) in a
/// mountinfo field.
pub(in crate::sandbox) fn unescape(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal {
            Some(d) => {
                out.push(d.iter().fold(0u8, |n, b| n.wrapping_mul(8) + (b - b'0')));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}
