//! The kernel overlay's upper layer as `overlay` reads and copies it: the
//! one home of what a whiteout and an opaque directory are, how a layer
//! is walked and copied keeping both, and how a layer over the lower
//! manifest becomes the merged tree.
//!
//! The markers are overlayfs's own (Documentation/filesystems/overlayfs):
//! a whiteout is a character device 0:0 and hides the lower entry of its
//! name; a directory with the xattr `trusted.overlay.opaque` = `y` hides
//! every lower entry below it. Sandboxes are mounted with
//! `redirect_dir=off,metacopy=off`, so no other marker changes what the
//! merged tree holds (a renamed directory is copied, a mode change copies
//! the whole file up); the rest of overlay's bookkeeping xattrs
//! (`origin`, `impure`, `uuid`) only keep inode numbers stable and are not
//! copied (overlay recreates what it needs).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{CWD, FileType, Mode, XattrFlags, lgetxattr, lsetxattr, makedev, mknodat};

use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree::{self, Entry, Kind, Tree, io_err};

const OPAQUE: &str = "trusted.overlay.opaque";

/// One entry of an upper layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Upper {
    /// Deleted: the lower entry of this name (and all below it) is hidden.
    Whiteout,
    /// Present in the merged tree as this entry; `opaque` (directories
    /// only): no lower entry below it shows through.
    Entry { entry: Entry, opaque: bool },
}

/// Every entry of a layer by `/`-separated relative path, parents first.
pub(super) type Layer = BTreeMap<String, Upper>;

/// Walk the layer at `root` (`hash`: digest files and symlink targets).
/// Special files other than whiteouts are refused, as in any walk.
pub(super) fn scan(root: &Path, hash: bool) -> Result<Layer, SandboxError> {
    let mut layer = Layer::new();
    scan_dir(root, "", hash, &mut layer)?;
    Ok(layer)
}

fn scan_dir(root: &Path, rel: &str, hash: bool, layer: &mut Layer) -> Result<(), SandboxError> {
    for name in tree::names(&root.join(rel))? {
        let rel_path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let path = root.join(&rel_path);
        let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
        if is_whiteout(&meta) {
            layer.insert(rel_path, Upper::Whiteout);
            continue;
        }
        let entry = tree::entry_from(&path, &meta, hash)?;
        let is_dir = entry.kind == Kind::Dir;
        let opaque = is_dir && is_opaque(&path)?;
        layer.insert(rel_path.clone(), Upper::Entry { entry, opaque });
        if is_dir {
            scan_dir(root, &rel_path, hash, layer)?;
        }
    }
    Ok(())
}

fn is_whiteout(meta: &fs::Metadata) -> bool {
    meta.file_type().is_char_device() && meta.rdev() == 0
}

/// Does the directory at `path` carry `trusted.overlay.opaque` = `y`?
/// (`x`, which newer kernels write for directories holding xattr
/// whiteouts, is not opaque; such layers are not made by sandboxes.)
fn is_opaque(path: &Path) -> Result<bool, SandboxError> {
    let mut value = [0u8; 8];
    match lgetxattr(path, OPAQUE, &mut value[..]) {
        Ok(len) => Ok(value[..len] == *b"y"),
        Err(e) if e == rustix::io::Errno::NODATA || e == rustix::io::Errno::NOTSUP => Ok(false),
        Err(e) => Err(io_err("read the overlay xattrs of", path)(e.into())),
    }
}

/// Copy the layer at `src` to `dst` (which must not exist), keeping
/// contents, modes, symlink targets, whiteouts and opaque markers; `dst`
/// gets `src`'s own mode. Making a whiteout needs `mknod` of a 0:0
/// character device, which overlayfs allows wherever it may be mounted.
pub(super) fn copy(src: &Path, dst: &Path) -> Result<(), SandboxError> {
    let layer = scan(src, false)?;
    fs::create_dir(dst).map_err(io_err("create directory", dst))?;
    for (rel, upper) in &layer {
        let to = dst.join(rel);
        match upper {
            Upper::Whiteout => mknodat(
                CWD,
                &to,
                FileType::CharacterDevice,
                Mode::empty(),
                makedev(0, 0),
            )
            .map_err(|e| io_err("create a whiteout at", &to)(e.into()))?,
            Upper::Entry { entry, opaque } => {
                tree::copy_entry(&src.join(rel), &to, entry)?;
                if *opaque {
                    lsetxattr(&to, OPAQUE, b"y", XattrFlags::empty())
                        .map_err(|e| io_err("mark opaque", &to)(e.into()))?;
                }
            }
        }
    }
    for (rel, upper) in layer.iter().rev() {
        if let Upper::Entry { entry, .. } = upper
            && entry.kind == Kind::Dir
        {
            tree::set_mode(&dst.join(rel), entry.mode)?;
        }
    }
    let root_mode = fs::symlink_metadata(src)
        .map_err(io_err("inspect", src))?
        .permissions()
        .mode();
    tree::set_mode(dst, root_mode & 0o7777)
}

/// The tree an overlay of `layer` on `lower` shows: a whiteout hides the
/// lower entry and everything below it; an upper entry replaces the lower
/// one, and hides what was below it unless both are directories and the
/// upper one is not opaque (then the two merge).
pub(super) fn merged(lower: &Tree, layer: &Layer) -> Tree {
    let mut tree = lower.clone();
    for (path, upper) in layer {
        let merges = match upper {
            Upper::Whiteout => false,
            Upper::Entry { entry, opaque } => {
                entry.kind == Kind::Dir
                    && !opaque
                    && tree.get(path).is_some_and(|e| e.kind == Kind::Dir)
            }
        };
        if !merges {
            remove_below(&mut tree, path);
        }
        match upper {
            Upper::Whiteout => tree.remove(path),
            Upper::Entry { entry, .. } => tree.insert(path.clone(), entry.clone()),
        };
    }
    tree
}

/// Remove every entry strictly below `path` (they sort together, right
/// after `path/`).
fn remove_below(tree: &mut Tree, path: &str) {
    let prefix = format!("{path}/");
    let below: Vec<String> = tree
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .map(|(p, _)| p.clone())
        .collect();
    for p in below {
        tree.remove(&p);
    }
}
