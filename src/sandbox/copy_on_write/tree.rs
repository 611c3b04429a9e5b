//! The file trees `copy_on_write` and `overlay` read and write: the one
//! home of how a directory is walked, what an entry is (kind, mode, size,
//! digest), and how one is copied, compared and removed — all of it
//! through directory descriptors (`fs_at`), never following a symlink and
//! never resolving a path below a root twice.
//!
//! A walk shows its visitor what a tree cannot hold (special files:
//! FIFOs, devices, sockets; names that are not UTF-8 or hold a newline,
//! since manifests and stat records are one line per entry, path last)
//! as [`Found::Foreign`], with the refusal to give. Every walk that
//! precedes a copy gives it, so nothing is written; rollback's walk of
//! the working copy removes such entries instead (no snapshot has them).
//!
//! Walks of a sandbox's own trees ([`Mounts::Stay`]) refuse an entry on
//! another filesystem, naming it; only an original's walk crosses. A
//! copy reads each file through a descriptor it opened itself
//! (`O_NOFOLLOW | O_NONBLOCK`, checked to be a regular file), so an entry
//! swapped since the walk is refused, never followed; holes of sparse
//! files are kept (`fs_at::contents`). Copies carry permission bits, not
//! privileges (`fs_at::carried_mode`): setuid, setgid, and sticky on a
//! file, are dropped.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::sandbox::SandboxError;
pub(in crate::sandbox) use crate::sandbox::fs_at::io_err;
use crate::sandbox::fs_at::{self, Cursor, DirFd, FileKind, Meta, Mounts, carried_mode, contents};

mod copy;
mod remove;
pub(in crate::sandbox) use copy::{copy_entry, copy_tree, copy_tree_linking};
pub(in crate::sandbox) use remove::{remove_at, remove_tree};

/// What an entry is. Symlinks are entries of their own, never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum Kind {
    Dir,
    File,
    Symlink,
}

impl Kind {
    /// How a manifest or a stat record writes it.
    pub(super) fn letter(self) -> char {
        match self {
            Kind::Dir => 'd',
            Kind::File => 'f',
            Kind::Symlink => 'l',
        }
    }

    pub(super) fn from_letter(text: &str) -> Option<Kind> {
        match text {
            "d" => Some(Kind::Dir),
            "f" => Some(Kind::File),
            "l" => Some(Kind::Symlink),
            _ => None,
        }
    }

    pub(in crate::sandbox) fn of(kind: FileKind) -> Option<Kind> {
        match kind {
            FileKind::Dir => Some(Kind::Dir),
            FileKind::File => Some(Kind::File),
            FileKind::Symlink => Some(Kind::Symlink),
            FileKind::Special { .. } => None,
        }
    }

    fn file_kind(self) -> FileKind {
        match self {
            Kind::Dir => FileKind::Dir,
            Kind::File => FileKind::File,
            Kind::Symlink => FileKind::Symlink,
        }
    }
}

/// One entry of a tree: a symlink's `mode` is 0 and its digest is that of
/// its target; a directory's size is 0 and its digest `-`; a walk without
/// hashing leaves every digest `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::sandbox) struct Entry {
    pub kind: Kind,
    pub mode: u32,
    pub size: u64,
    pub digest: String,
}

impl Entry {
    /// The mode a copy of the entry gets (and a diff compares): without
    /// the bits a copy does not carry.
    pub(in crate::sandbox) fn carried_mode(&self) -> u32 {
        match self.kind {
            Kind::Symlink => 0,
            kind => carried_mode(kind.file_kind(), self.mode),
        }
    }

    /// Do the two hold the same, as far as a copy carries (kind, size,
    /// digest, [`Entry::carried_mode`])?
    pub(in crate::sandbox) fn same_as(&self, other: &Entry) -> bool {
        self.kind == other.kind
            && self.size == other.size
            && self.digest == other.digest
            && self.carried_mode() == other.carried_mode()
    }
}

/// Every entry below a root, by `/`-separated relative path; a parent
/// sorts before its children.
pub(in crate::sandbox) type Tree = BTreeMap<String, Entry>;

/// Walk `root` (not itself recorded). `hash`: digest file contents and
/// symlink targets (for manifests and diffs; copies do not need it).
/// What a tree cannot hold is refused (see the module doc).
pub(in crate::sandbox) fn scan(
    root: &DirFd,
    mounts: Mounts,
    hash: bool,
) -> Result<Tree, SandboxError> {
    let mut tree = Tree::new();
    let how = Walk {
        mounts,
        to_owner: false,
    };
    walk(root, how, &mut |found| match found {
        Found::Foreign { refusal, .. } => Err(refusal),
        Found::Entry {
            rel,
            dir,
            name,
            kind,
            meta,
        } => {
            tree.insert(rel.to_owned(), entry_from(dir, name, kind, meta, hash)?);
            Ok(true)
        }
    })?;
    Ok(tree)
}

/// How a [`walk`] goes.
#[derive(Debug, Clone, Copy)]
pub(in crate::sandbox) struct Walk {
    pub mounts: Mounts,
    /// Make every directory gone into `u+rwx` first (rollback).
    pub to_owner: bool,
}

/// What a [`walk`] meets below its root, by its parent's descriptor and
/// its name there.
pub(in crate::sandbox) enum Found<'a> {
    /// An entry a tree can hold: `rel` is its `/`-separated path.
    Entry {
        rel: &'a str,
        dir: &'a DirFd,
        name: &'a OsStr,
        kind: Kind,
        meta: &'a Meta,
    },
    /// What a tree cannot hold: a special file, or a name that is not
    /// UTF-8 or holds a newline (not descended into; `rel` is `None`).
    /// `refusal` says why, for a walk that must refuse it.
    Foreign {
        rel: Option<&'a str>,
        dir: &'a DirFd,
        name: &'a OsStr,
        meta: &'a Meta,
        refusal: SandboxError,
    },
}

/// What a walk shows its visitor; for a directory, the visitor answers
/// whether to go into it.
pub(in crate::sandbox) type Visit<'v> = dyn FnMut(Found<'_>) -> Result<bool, SandboxError> + 'v;

/// Visit everything below `root` without following a symlink: names
/// sorted, a directory before its contents, and opened only after `visit`
/// said to go into it (through a descriptor, checked to be the directory
/// the walk saw).
pub(in crate::sandbox) fn walk(
    root: &DirFd,
    how: Walk,
    visit: &mut Visit<'_>,
) -> Result<(), SandboxError> {
    walk_dir(root.meta(), root, "", how, visit)
}

fn walk_dir(
    root: &Meta,
    dir: &DirFd,
    rel: &str,
    how: Walk,
    visit: &mut Visit<'_>,
) -> Result<(), SandboxError> {
    for name in dir.names()? {
        // Gone since the directory was read: it is not in the tree.
        let Some(meta) = dir.stat(&name)? else {
            continue;
        };
        if how.mounts == Mounts::Stay && meta.crosses_from(root) {
            return Err(SandboxError::Mounted {
                points: vec![dir.child(&name)],
            });
        }
        let Some(plain) = name.to_str().filter(|n| !n.contains('\n')) else {
            let refusal = odd_name(&dir.child(&name));
            visit(Found::Foreign {
                rel: None,
                dir,
                name: &name,
                meta: &meta,
                refusal,
            })?;
            continue;
        };
        let rel_path = join(rel, plain);
        let Some(kind) = Kind::of(meta.kind) else {
            let refusal = special_file(&dir.child(&name));
            visit(Found::Foreign {
                rel: Some(&rel_path),
                dir,
                name: &name,
                meta: &meta,
                refusal,
            })?;
            continue;
        };
        let go_in = visit(Found::Entry {
            rel: &rel_path,
            dir,
            name: &name,
            kind,
            meta: &meta,
        })?;
        if kind == Kind::Dir && go_in {
            let inner = dir.open_dir(&name, how.mounts, root, how.to_owner)?;
            if !inner.meta().same_inode(&meta) {
                return Err(fs_at::changed(inner.path(), "it was replaced while walked"));
            }
            walk_dir(root, &inner, &rel_path, how, visit)?;
        }
    }
    Ok(())
}

/// `rel/name`, or `name` at the root.
pub(in crate::sandbox) fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// The entry `name` of `dir`, whose stat is `meta` and kind `kind`. A
/// file is hashed through a descriptor opened without following a
/// symlink, and then described by that descriptor's stat.
pub(in crate::sandbox) fn entry_from(
    dir: &DirFd,
    name: &OsStr,
    kind: Kind,
    meta: &Meta,
    hash: bool,
) -> Result<Entry, SandboxError> {
    match kind {
        Kind::Symlink => {
            let target = dir.read_link(name)?;
            let bytes = target.as_bytes();
            let digest = if hash {
                digest_bytes(bytes)
            } else {
                "-".into()
            };
            Ok(Entry {
                kind,
                mode: 0,
                size: bytes.len() as u64,
                digest,
            })
        }
        Kind::Dir => Ok(Entry {
            kind,
            mode: meta.mode,
            size: 0,
            digest: "-".into(),
        }),
        Kind::File if !hash => Ok(Entry {
            kind,
            mode: meta.mode,
            size: meta.size,
            digest: "-".into(),
        }),
        Kind::File => {
            let (file, opened) = dir.open_file(name)?;
            let digest =
                contents::digest(&file, opened.size).map_err(io_err("read", &dir.child(name)))?;
            Ok(Entry {
                kind,
                mode: opened.mode,
                size: opened.size,
                digest,
            })
        }
    }
}

/// The refusal of a name a manifest cannot hold.
fn odd_name(path: &Path) -> SandboxError {
    SandboxError::Unsuitable(format!(
        "{}: a name that is not UTF-8 or holds a newline; the sandbox records paths \
         in a text manifest, so rename it first",
        path.display()
    ))
}

/// The refusal of a special file.
pub(in crate::sandbox) fn special_file(path: &Path) -> SandboxError {
    SandboxError::Unsuitable(format!(
        "{} is a special file (a FIFO, device or socket); the sandbox copies only files, \
         directories and symlinks: remove it or choose another sandbox strategy",
        path.display()
    ))
}

/// Fill in the digests of a tree [`scan`]ned without them (files and
/// symlink targets, read again below `root`).
pub(in crate::sandbox) fn hash_entries(
    root: &DirFd,
    mounts: Mounts,
    tree: &mut Tree,
) -> Result<(), SandboxError> {
    let mut at = Cursor::new(root, mounts);
    for (rel, entry) in tree.iter_mut() {
        if entry.kind == Kind::Dir {
            continue;
        }
        let (dir, name) = at.parent(rel)?;
        entry.digest = match entry.kind {
            Kind::File => {
                let (file, opened) = dir.open_file(name)?;
                contents::digest(&file, opened.size).map_err(io_err("read", &dir.child(name)))?
            }
            _ => digest_bytes(dir.read_link(name)?.as_bytes()),
        };
    }
    Ok(())
}

/// How a file digest read from a manifest of format 2 is held in memory:
/// `v2:` and the whole-file digest that format recorded
/// (`contents::digest_v2`). See [`rehash_like`].
pub(in crate::sandbox) const LEGACY_DIGEST: &str = "v2:";

/// Make the file digests of `now` (a walk of `root`, hashed) comparable
/// with those of `reference` (a manifest): a file whose reference entry is
/// a file of the same size with a format 2 digest is hashed again the way
/// format 2 did. A sandbox made before format 3 thus still diffs exactly
/// (at format 2's cost: holes hashed as zeros); with a format 3 reference
/// this does nothing.
pub(in crate::sandbox) fn rehash_like(
    root: &DirFd,
    mounts: Mounts,
    reference: &Tree,
    now: &mut Tree,
) -> Result<(), SandboxError> {
    let mut at = Cursor::new(root, mounts);
    for (rel, entry) in now.iter_mut() {
        let legacy = reference.get(rel).is_some_and(|old| {
            old.kind == Kind::File
                && old.size == entry.size
                && old.digest.starts_with(LEGACY_DIGEST)
        });
        if entry.kind != Kind::File || !legacy || entry.digest.starts_with(LEGACY_DIGEST) {
            continue;
        }
        let (dir, name) = at.parent(rel)?;
        let (file, opened) = dir.open_file(name)?;
        let digest =
            contents::digest_v2(&file, opened.size).map_err(io_err("read", &dir.child(name)))?;
        entry.digest = format!("{LEGACY_DIGEST}{digest}");
    }
    Ok(())
}

/// The entry `name` of `dir` (stat `meta`), of `like`'s kind, hashed so
/// that it compares with `like`: the format 2 way when `like` is a file
/// recorded by a manifest of format 2 (see [`rehash_like`]).
pub(in crate::sandbox) fn entry_like(
    dir: &DirFd,
    name: &OsStr,
    meta: &Meta,
    like: &Entry,
) -> Result<Entry, SandboxError> {
    let mut entry = entry_from(dir, name, like.kind, meta, true)?;
    if like.kind == Kind::File && like.size == entry.size && like.digest.starts_with(LEGACY_DIGEST)
    {
        let (file, opened) = dir.open_file(name)?;
        let digest =
            contents::digest_v2(&file, opened.size).map_err(io_err("read", &dir.child(name)))?;
        entry.digest = format!("{LEGACY_DIGEST}{digest}");
    }
    Ok(entry)
}

/// The digest a manifest records of some bytes (a symlink's target):
/// BLAKE3, hex. Internal change detection only, never an identity shown
/// to anyone, so the fastest well-kept hash there is.
fn digest_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Do the regular files `a` in `a_dir` and `b` in `b_dir` hold the same
/// bytes? Both read through descriptors, never following a symlink.
pub(in crate::sandbox) fn same_contents(
    (a_dir, a): (&DirFd, &OsStr),
    (b_dir, b): (&DirFd, &OsStr),
) -> Result<bool, SandboxError> {
    let (fa, _) = a_dir.open_file(a)?;
    let (fb, _) = b_dir.open_file(b)?;
    contents::same(&fa, &fb).map_err(io_err("read", &a_dir.child(a)))
}

/// A `/`-separated relative path with no empty, `.` or `..` component:
/// the only kind a manifest or stat record may name.
pub(in crate::sandbox) fn is_plain_relative(path: &str) -> bool {
    !path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
}
