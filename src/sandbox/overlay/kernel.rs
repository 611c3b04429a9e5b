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

use std::ffi::{CString, OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use rustix::mount::{MountFlags, UnmountFlags, mount, unmount};

use super::layer;
use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree;
use crate::sandbox::fs_at::mounts::{mount_at, unescape};
use crate::sandbox::fs_at::{DirFd, FileKind, carried_mode};
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
    DirFd::open(&made[0])?.set_mode(carried_mode(FileKind::Dir, mode_of(original)?))?;
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
    let Some(found) = mount_at(&merged)? else {
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
    let upper = found
        .options
        .split(',')
        .find_map(|o| o.strip_prefix("upperdir="))
        .map(|v| PathBuf::from(OsString::from_vec(unescape(v))));
    if found.fstype == "overlay" && upper == Some(canonical(&area.join(UPPER))?) {
        return Ok(());
    }
    Err(SandboxError::Unsuitable(format!(
        "{} has a {} mount that is not this sandbox's overlay; unmount it \
         (umount {}) and retry",
        merged.display(),
        found.fstype,
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
    let area_dir = DirFd::open(area)?;
    let restore = OsStr::new(RESTORE);
    tree::remove_at(&area_dir, restore)?;
    let made = match from {
        Some(layer_copy) => DirFd::open(layer_copy)
            .and_then(|layer_copy| layer::copy(&layer_copy, (&area_dir, restore))),
        None => area_dir.mkdir(restore).and_then(|()| {
            let mode = mode_of(&area.join(UPPER))?;
            DirFd::open(&area.join(RESTORE))?.set_mode(mode)
        }),
    };
    if let Err(e) = made.and_then(|()| unmount_merged(area)) {
        tree::remove_at(&area_dir, restore)?;
        return Err(e);
    }
    area_dir.exchange(restore, OsStr::new(UPPER))?;
    tree::remove_at(&area_dir, restore)?;
    let work = OsStr::new(WORK);
    tree::remove_at(&area_dir, work)?;
    fs::create_dir(area.join(WORK)).map_err(io_err("create directory", &area.join(WORK)))?;
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

/// The permission bits of `path` (not following a symlink).
fn mode_of(path: &Path) -> Result<u32, SandboxError> {
    let meta = crate::sandbox::fs_at::lstat(path).map_err(io_err("inspect", path))?;
    Ok(meta.mode)
}
