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
//!
//! An agent writes the upper layer through the mount while the host
//! reads it (a checkpoint copies it mounted), so it is walked and copied
//! through descriptors like a working copy (`fs_at`): nothing in it is
//! followed, and what is copied carries permission bits, not privileges.

use std::collections::BTreeMap;
use std::ffi::OsStr;

use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree::{self, Entry, Found, Kind, Tree, Walk};
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Mounts, carried_mode};
use crate::sandbox::seam::{self, Moment};

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
pub(super) fn scan(root: &DirFd, hash: bool) -> Result<Layer, SandboxError> {
    let mut layer = Layer::new();
    let how = Walk {
        mounts: Mounts::Stay,
        to_owner: false,
    };
    tree::walk(root, how, &mut |found| match found {
        Found::Foreign {
            rel: Some(rel),
            meta,
            ..
        } if meta.kind == (FileKind::Special { whiteout: true }) => {
            layer.insert(rel.to_owned(), Upper::Whiteout);
            Ok(false)
        }
        Found::Foreign { refusal, .. } => Err(refusal),
        Found::Entry {
            rel,
            dir,
            name,
            kind,
            meta,
        } => {
            let entry = tree::entry_from(dir, name, kind, meta, hash)?;
            let opaque = kind == Kind::Dir && is_opaque(dir, name)?;
            layer.insert(rel.to_owned(), Upper::Entry { entry, opaque });
            Ok(true)
        }
    })?;
    Ok(layer)
}

/// Does the directory `name` of `dir` carry `trusted.overlay.opaque` =
/// `y`? (`x`, which newer kernels write for directories holding xattr
/// whiteouts, is not opaque; such layers are not made by sandboxes.)
fn is_opaque(dir: &DirFd, name: &OsStr) -> Result<bool, SandboxError> {
    let inner = dir.open_dir(name, Mounts::Stay, dir.meta(), false)?;
    Ok(inner.xattr(OPAQUE)?.as_deref() == Some(b"y"))
}

/// Copy the layer at `src` to the new `dst` in `dst_parent`, keeping
/// contents, modes (as a copy carries them), symlink targets, whiteouts
/// and opaque markers; `dst` gets `src`'s own mode. Making a whiteout
/// needs `mknod` of a 0:0 character device, which overlayfs allows
/// wherever it may be mounted.
pub(super) fn copy(src: &DirFd, (dst_parent, dst): (&DirFd, &OsStr)) -> Result<(), SandboxError> {
    let layer = scan(src, false)?;
    dst_parent.mkdir(dst)?;
    let root = dst_parent.open_dir(dst, Mounts::Stay, dst_parent.meta(), false)?;
    let mut from = Cursor::new(src, Mounts::Stay);
    let mut to = Cursor::new(&root, Mounts::Stay);
    for (rel, upper) in &layer {
        seam::reached(Moment::Copy, rel);
        match upper {
            Upper::Whiteout => {
                let (dir, name) = to.parent(rel)?;
                dir.whiteout(name)?;
            }
            Upper::Entry { entry, opaque } => {
                tree::copy_entry(from.parent(rel)?, to.parent(rel)?, entry)?;
                if *opaque {
                    to.dir(rel)?.set_xattr(OPAQUE, b"y")?;
                }
            }
        }
    }
    for (rel, upper) in layer.iter().rev() {
        if let Upper::Entry { entry, .. } = upper
            && entry.kind == Kind::Dir
        {
            to.dir(rel)?.set_mode(entry.carried_mode())?;
        }
    }
    root.set_mode(carried_mode(FileKind::Dir, src.meta().mode))
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
