//! `overlay` on the kernel's overlayfs: the one home of how a sandbox's
//! layers are mounted, found in the mount table, unmounted and swapped.
//!
//! A mount outlives the process but not a reboot, and anyone may unmount
//! it; so every operation but `destroy` first calls [`ensure_mounted`],
//! which looks the merged directory up in `/proc/self/mountinfo` and
//! mounts again when it is missing. The upper layer is never changed while
//! it is mounted (overlayfs leaves that undefined): [`replace_upper`]
//! unmounts, swaps the directory, starts a fresh work directory and
//! mounts again.

use std::ffi::{CString, OsString};
use std::fs;
use std::io::ErrorKind;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use rustix::mount::{MountFlags, UnmountFlags, mount, unmount};

use super::layer;
use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::{swap, tree};
use tree::io_err;

use super::{MERGED, RESTORE, UPPER, WORK};

/// Why the kernel overlay cannot hold this sandbox (the mount was refused,
/// or a path cannot be said in overlayfs's mount options).
#[derive(Debug)]
pub(super) struct Unavailable(pub String);

/// Make the layers in `area` and mount them over `original`. On
/// `Ok(Err(_))` the kernel overlay is unavailable and nothing is left in
/// the area; `Err(_)` is a failure of the area itself.
pub(super) fn create(
    original: &Path,
    area: &Path,
) -> Result<Result<(), Unavailable>, SandboxError> {
    if let Err(why) = in_the_initial_user_namespace() {
        return Ok(Err(why));
    }
    let made: Vec<PathBuf> = [UPPER, WORK, MERGED].iter().map(|d| area.join(d)).collect();
    for dir in &made {
        fs::create_dir(dir).map_err(io_err("create directory", dir))?;
    }
    // The merged root shows the upper root's mode: start it as the original's.
    tree::set_mode(&made[0], mode_of(original)?)?;
    match mount_layers(original, area) {
        Ok(()) => Ok(Ok(())),
        Err(why) => {
            for dir in &made {
                tree::remove_tree(dir)?;
            }
            Ok(Err(why))
        }
    }
}

/// Mount the layers when the merged directory is not a mount of them
/// (after a reboot, or someone unmounted it); refuse when something else
/// is mounted there.
pub(super) fn ensure_mounted(original: &Path, area: &Path) -> Result<(), SandboxError> {
    let merged = area.join(MERGED);
    let Some((fstype, options)) = mount_at(&merged)? else {
        let work = area.join(WORK);
        if fs::symlink_metadata(&work).is_err() {
            fs::create_dir(&work).map_err(io_err("create directory", &work))?;
        }
        return mount_layers(original, area).map_err(|Unavailable(why)| {
            SandboxError::Unsuitable(format!(
                "the sandbox's kernel overlay at {} is not mounted and mounting it again \
                 failed: {why}; its changes are safe in {}: fix the cause and retry, or \
                 destroy the sandbox",
                merged.display(),
                area.join(UPPER).display()
            ))
        });
    };
    let upper = options
        .split(',')
        .find_map(|o| o.strip_prefix("upperdir="))
        .map(|v| PathBuf::from(OsString::from_vec(unescape(v))));
    if fstype == "overlay" && upper == Some(canonical(&area.join(UPPER))?) {
        return Ok(());
    }
    Err(SandboxError::Unsuitable(format!(
        "{} has a {fstype} mount that is not this sandbox's overlay; unmount it \
         (umount {}) and retry",
        merged.display(),
        merged.display()
    )))
}

/// Unmount the merged directory (every mount stacked on it), detaching
/// lazily when busy: a process still inside keeps its old view, detached
/// from the sandbox. Succeeds only once nothing is mounted there.
pub(super) fn unmount_merged(area: &Path) -> Result<(), SandboxError> {
    let merged = area.join(MERGED);
    for _ in 0..16 {
        if mount_at(&merged)?.is_none() {
            return Ok(());
        }
        let result = match unmount(&merged, UnmountFlags::empty()) {
            Err(Errno::BUSY) => unmount(&merged, UnmountFlags::DETACH),
            other => other,
        };
        match result {
            Ok(()) | Err(Errno::INVAL) => {}
            Err(e) => return Err(io_err("unmount", &merged)(e.into())),
        }
    }
    Err(SandboxError::Unsuitable(format!(
        "{} is still mounted after 16 unmounts; unmount it by hand (umount -l {})",
        merged.display(),
        merged.display()
    )))
}

/// Make the upper layer a copy of the layer `from` (or empty), with a
/// fresh work directory, and mount again. The copy is made before
/// anything is unmounted, so a failure there changes nothing; after the
/// swap, a failed mount is mended by the next operation.
pub(super) fn replace_upper(
    original: &Path,
    area: &Path,
    from: Option<&Path>,
) -> Result<(), SandboxError> {
    let upper = area.join(UPPER);
    let restore = area.join(RESTORE);
    tree::remove_tree(&restore)?;
    let made = match from {
        Some(layer_copy) => layer::copy(layer_copy, &restore),
        None => fs::create_dir(&restore)
            .map_err(io_err("create directory", &restore))
            .and_then(|()| tree::set_mode(&restore, mode_of(&upper)?)),
    };
    if let Err(e) = made.and_then(|()| unmount_merged(area)) {
        tree::remove_tree(&restore)?;
        return Err(e);
    }
    swap(&restore, &upper)?;
    tree::remove_tree(&restore)?;
    let work = area.join(WORK);
    tree::remove_tree(&work)?;
    fs::create_dir(&work).map_err(io_err("create directory", &work))?;
    ensure_mounted(original, area)
}

/// Overlayfs keeps its markers in `trusted.*` xattrs only for a mounter
/// in the initial user namespace; elsewhere a mount may succeed but
/// without them (or needs `userxattr`, which `layer.rs` does not read), so
/// the kernel overlay is used only where `/proc/self/uid_map` is the
/// identity map of all ids.
fn in_the_initial_user_namespace() -> Result<(), Unavailable> {
    let map = fs::read_to_string("/proc/self/uid_map")
        .map_err(|e| Unavailable(format!("cannot read /proc/self/uid_map: {e}")))?;
    if map.split_whitespace().eq(["0", "0", "4294967295"]) {
        Ok(())
    } else {
        Err(Unavailable(
            "this process runs in a user namespace, where overlayfs cannot keep its \
             trusted.* markers"
                .into(),
        ))
    }
}

/// `mount -t overlay` of `original` (lower, read-only) and the area's
/// upper and work directories on its merged directory.
fn mount_layers(original: &Path, area: &Path) -> Result<(), Unavailable> {
    let path = |p: &Path| canonical(p).map_err(|e| Unavailable(e.to_string()));
    let (lower, upper, work) = (
        path(original)?,
        path(&area.join(UPPER))?,
        path(&area.join(WORK))?,
    );
    let mut data = Vec::new();
    for (key, dir) in [
        ("lowerdir", &lower),
        ("upperdir", &upper),
        ("workdir", &work),
    ] {
        let bytes = dir.as_os_str().as_bytes();
        // Mount options are split at `,`, `lowerdir` also at `:`, and `\`
        // escapes both; refuse rather than escape (escaping rules differ
        // between kernel versions).
        if let Some(c) = bytes.iter().find(|b| b",:\\\n".contains(b)) {
            return Err(Unavailable(format!(
                "{} holds {:?}, which overlayfs mount options cannot carry",
                dir.display(),
                char::from(*c)
            )));
        }
        data.extend_from_slice(format!("{key}=").as_bytes());
        data.extend_from_slice(bytes);
        data.push(b',');
    }
    // The layer format `layer.rs` reads: no redirects, no metadata-only
    // copy-ups, no index (so the lower is never written).
    data.extend_from_slice(b"redirect_dir=off,metacopy=off,index=off");
    let data = CString::new(data).map_err(|e| Unavailable(e.to_string()))?;
    let merged = area.join(MERGED);
    mount(
        "overlay",
        &merged,
        "overlay",
        MountFlags::NOSUID | MountFlags::NODEV,
        data.as_c_str(),
    )
    .map_err(|e| {
        Unavailable(format!(
            "mount -t overlay on {} failed: {}",
            merged.display(),
            std::io::Error::from(e)
        ))
    })
}

fn canonical(path: &Path) -> Result<PathBuf, SandboxError> {
    fs::canonicalize(path).map_err(io_err("resolve", path))
}

/// The filesystem type and super options of the topmost mount on `dir`
/// in `/proc/self/mountinfo`, if any.
fn mount_at(dir: &Path) -> Result<Option<(String, String)>, SandboxError> {
    let dir = match fs::canonicalize(dir) {
        Ok(dir) => dir,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("resolve", dir)(e)),
    };
    let table = Path::new("/proc/self/mountinfo");
    let text = fs::read_to_string(table).map_err(io_err("read", table))?;
    let mut found = None;
    for line in text.lines() {
        // `id parent major:minor root mount-point options [optional…] - type source super-options`
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let point = head.split(' ').nth(4).map(unescape);
        if point.as_deref() != Some(dir.as_os_str().as_bytes()) {
            continue;
        }
        let mut tail = tail.split(' ');
        let fstype = tail.next().unwrap_or_default().to_owned();
        let options = tail.nth(1).unwrap_or_default().to_owned();
        found = Some((fstype, options));
    }
    Ok(found)
}

/// Undo the kernel's octal escapes (`\040` for a space, …) in a
/// mountinfo field.
fn unescape(field: &str) -> Vec<u8> {
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

/// The permission bits of `path` (not following a symlink).
fn mode_of(path: &Path) -> Result<u32, SandboxError> {
    let meta = fs::symlink_metadata(path).map_err(io_err("inspect", path))?;
    Ok(meta.permissions().mode() & 0o7777)
}
