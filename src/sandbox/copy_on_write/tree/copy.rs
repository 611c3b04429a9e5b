//! Copying a tree's entries: the one home of how an entry read through a
//! descriptor becomes a new entry elsewhere (a file copied from the
//! descriptor opened and checked here, holes kept; a symlink recreated; a
//! directory made, its mode set once its contents are in), carrying
//! permission bits, not privileges.

use std::ffi::OsStr;
use std::fs::File;

use super::{Entry, Kind, Tree, io_err};
use crate::sandbox::SandboxError;
use crate::sandbox::fs_at::{Cursor, DirFd, FileKind, Meta, Mounts, carried_mode, contents};
use crate::sandbox::seam::{self, Moment};

/// Copy one entry of a tree, `src` in `src_dir`, to the new `dst` in
/// `dst_dir`: copy a file (its holes kept; a reflink where the
/// filesystem has them) from a descriptor opened here, recreate a symlink
/// with the same target, make a directory. A file's mode is set here (as
/// [`Entry::carried_mode`]); a directory's by the caller once its contents are
/// in (a read-only directory must be filled first). For a file, answers
/// the stat of the descriptor it was copied from.
pub(in crate::sandbox) fn copy_entry(
    (src_dir, src): (&DirFd, &OsStr),
    (dst_dir, dst): (&DirFd, &OsStr),
    entry: &Entry,
) -> Result<Option<Meta>, SandboxError> {
    match entry.kind {
        Kind::Dir => dst_dir.mkdir(dst).map(|()| None),
        Kind::Symlink => {
            let target = src_dir.read_link(src)?;
            dst_dir.symlink(&target, dst).map(|()| None)
        }
        Kind::File => {
            let (file, meta) = src_dir.open_file(src)?;
            let from = (&file, &meta, src_dir.child(src));
            copy_file(from, (dst_dir, dst), entry.carried_mode())?;
            Ok(Some(meta))
        }
    }
}

/// Copy the open file `src` (its stat, its path for messages) to the new
/// `dst` with `mode`; a copy that failed halfway is removed.
fn copy_file(
    (src, meta, path): (&File, &Meta, std::path::PathBuf),
    (dir, dst): (&DirFd, &OsStr),
    mode: u32,
) -> Result<(), SandboxError> {
    let out = dir.create_file(dst)?;
    let copied = contents::copy(src, &out, meta.size, (meta.dev, dir.meta().dev))
        .and_then(|()| {
            rustix::fs::fchmod(&out, rustix::fs::Mode::from_raw_mode(mode)).map_err(Into::into)
        })
        .map_err(io_err("copy", &path));
    if copied.is_err() {
        let _ = dir.unlink(dst);
    }
    copied
}

/// Copy the whole of `tree` (a walk of `src`) to `dst` in `dst_parent`,
/// which must not exist yet; `dst` gets `src`'s own mode too.
pub(in crate::sandbox) fn copy_tree(
    (src, mounts): (&DirFd, Mounts),
    (dst_parent, dst): (&DirFd, &OsStr),
    tree: &Tree,
) -> Result<(), SandboxError> {
    copy_tree_linking(
        (src, mounts),
        (dst_parent, dst),
        tree,
        &mut |_, _| false,
        &mut |_, _| {},
    )
}

/// [`copy_tree`], except that `link(rel, (dir, name))` is offered every
/// file first and may put it there itself (a hard link to an identical
/// file with the same mode); where it returns `false` the file is copied,
/// and `copied(rel, stat)` told the stat of the descriptor it was copied
/// from.
pub(in crate::sandbox) fn copy_tree_linking(
    (src, mounts): (&DirFd, Mounts),
    (dst_parent, dst): (&DirFd, &OsStr),
    tree: &Tree,
    link: &mut dyn FnMut(&str, (&DirFd, &OsStr)) -> bool,
    copied: &mut dyn FnMut(&str, &Meta),
) -> Result<(), SandboxError> {
    dst_parent.mkdir(dst)?;
    let root = dst_parent.open_dir(dst, Mounts::Stay, dst_parent.meta(), false)?;
    let mut from = Cursor::new(src, mounts);
    let mut to = Cursor::new(&root, Mounts::Stay);
    for (rel, entry) in tree {
        seam::reached(Moment::Copy, rel);
        let target = to.parent(rel)?;
        if entry.kind == Kind::File && link(rel, target) {
            continue;
        }
        if let Some(meta) = copy_entry(from.parent(rel)?, target, entry)? {
            copied(rel, &meta);
        }
    }
    for (rel, entry) in tree.iter().rev().filter(|(_, e)| e.kind == Kind::Dir) {
        to.dir(rel)?.set_mode(entry.carried_mode())?;
    }
    root.set_mode(carried_mode(FileKind::Dir, src.meta().mode))
}
