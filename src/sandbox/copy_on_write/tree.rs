//! The file trees `copy_on_write` reads and writes: the one home of how a
//! directory is walked (never following a symlink), what an entry is
//! (kind, mode, size, digest), and how one is copied and removed.
//!
//! A walk refuses, before anything is written, what the strategy cannot
//! copy faithfully: special files (FIFOs, devices, sockets), and names
//! that are not UTF-8 or hold a newline (the manifest is one line per
//! entry, path last).

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::digest::{hex, sha256_hex};
use crate::sandbox::SandboxError;

/// What an entry is. Symlinks are entries of their own, never followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Dir,
    File,
    Symlink,
}

impl Kind {
    /// How a manifest writes it.
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
}

/// One entry of a tree: a symlink's `mode` is 0 and its digest is that of
/// its target; a directory's size is 0 and its digest `-`; a walk without
/// hashing leaves every digest `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub kind: Kind,
    pub mode: u32,
    pub size: u64,
    pub digest: String,
}

/// Every entry below a root, by `/`-separated relative path; a parent
/// sorts before its children.
pub(super) type Tree = BTreeMap<String, Entry>;

pub(super) fn io_err(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> SandboxError + use<> {
    let path = path.to_path_buf();
    move |source| SandboxError::Io { what, path, source }
}

/// Walk `root` (not itself recorded). `hash`: digest file contents and
/// symlink targets (for manifests and diffs; copies do not need it).
pub(super) fn scan(root: &Path, hash: bool) -> Result<Tree, SandboxError> {
    let mut tree = Tree::new();
    scan_dir(root, "", hash, &mut tree)?;
    Ok(tree)
}

fn scan_dir(root: &Path, rel: &str, hash: bool, tree: &mut Tree) -> Result<(), SandboxError> {
    let dir = root.join(rel);
    let mut names = Vec::new();
    for item in fs::read_dir(&dir).map_err(io_err("read directory", &dir))? {
        names.push(item.map_err(io_err("read directory", &dir))?.file_name());
    }
    names.sort();
    for name in names {
        let Some(name) = name.to_str().filter(|n| !n.contains('\n')) else {
            return Err(SandboxError::Unsuitable(format!(
                "{}: a name that is not UTF-8 or holds a newline; copy_on_write records paths \
                 in a text manifest, so rename it first",
                dir.join(&name).display()
            )));
        };
        let rel_path = if rel.is_empty() {
            name.to_owned()
        } else {
            format!("{rel}/{name}")
        };
        let path = root.join(&rel_path);
        let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
        let kind = meta.file_type();
        let entry = if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(io_err("read symlink", &path))?;
            let bytes = target.as_os_str().as_bytes();
            let digest = if hash { sha256_hex(bytes) } else { "-".into() };
            Entry {
                kind: Kind::Symlink,
                mode: 0,
                size: bytes.len() as u64,
                digest,
            }
        } else if kind.is_dir() {
            Entry {
                kind: Kind::Dir,
                mode: meta.permissions().mode() & 0o7777,
                size: 0,
                digest: "-".into(),
            }
        } else if kind.is_file() {
            let digest = if hash { hash_file(&path)? } else { "-".into() };
            Entry {
                kind: Kind::File,
                mode: meta.permissions().mode() & 0o7777,
                size: meta.len(),
                digest,
            }
        } else {
            return Err(SandboxError::Unsuitable(format!(
                "{} is a special file (a FIFO, device or socket); copy_on_write copies only files, \
                 directories and symlinks: remove it or choose another sandbox strategy",
                path.display()
            )));
        };
        let is_dir = entry.kind == Kind::Dir;
        tree.insert(rel_path.clone(), entry);
        if is_dir {
            scan_dir(root, &rel_path, hash, tree)?;
        }
    }
    Ok(())
}

/// sha256 of a regular file, opened without following a symlink and
/// without blocking (a FIFO swapped in since the walk is refused).
fn hash_file(path: &Path) -> Result<String, SandboxError> {
    let flags = (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits();
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags as i32)
        .open(path)
        .map_err(io_err("open", path))?;
    if !file.metadata().map_err(io_err("inspect", path))?.is_file() {
        return Err(SandboxError::Unsuitable(format!(
            "{} stopped being a regular file while it was read",
            path.display()
        )));
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(io_err("read", path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// A `/`-separated relative path with no empty, `.` or `..` component:
/// the only kind a manifest may name.
pub(super) fn is_plain_relative(path: &str) -> bool {
    !path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
}

/// Copy one entry of `tree` from `src` to `dst` (the parent exists):
/// reflink or copy a file, recreate a symlink with the same target, make
/// a directory. Modes of files are set here; of directories by the caller
/// once their contents are in (a read-only directory must be filled first).
pub(super) fn copy_entry(src: &Path, dst: &Path, entry: &Entry) -> Result<(), SandboxError> {
    match entry.kind {
        Kind::Dir => fs::create_dir(dst).map_err(io_err("create directory", dst)),
        Kind::Symlink => {
            let target = fs::read_link(src).map_err(io_err("read symlink", src))?;
            symlink(&target, dst).map_err(io_err("create symlink", dst))
        }
        Kind::File => {
            reflink_copy::reflink_or_copy(src, dst).map_err(io_err("copy", src))?;
            set_mode(dst, entry.mode)
        }
    }
}

pub(super) fn set_mode(path: &Path, mode: u32) -> Result<(), SandboxError> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(io_err("set the mode of", path))
}

/// Copy the whole of `tree` (a walk of `src`) to `dst`, which must not
/// exist yet; `dst` gets `src`'s own mode too.
pub(super) fn copy_tree(src: &Path, dst: &Path, tree: &Tree) -> Result<(), SandboxError> {
    fs::create_dir(dst).map_err(io_err("create directory", dst))?;
    for (rel, entry) in tree {
        copy_entry(&src.join(rel), &dst.join(rel), entry)?;
    }
    for (rel, entry) in tree.iter().rev().filter(|(_, e)| e.kind == Kind::Dir) {
        set_mode(&dst.join(rel), entry.mode)?;
    }
    let root_mode = fs::symlink_metadata(src)
        .map_err(io_err("inspect", src))?
        .permissions()
        .mode();
    set_mode(dst, root_mode & 0o7777)
}

/// Remove a tree this strategy made, even where a copied directory is
/// read-only (its owner's mode was copied faithfully). Symlinks are
/// removed, never followed.
pub(super) fn remove_tree(path: &Path) -> Result<(), SandboxError> {
    if fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    if fs::remove_dir_all(path).is_ok() {
        return Ok(());
    }
    make_dirs_writable(path)?;
    fs::remove_dir_all(path).map_err(io_err("remove", path))
}

fn make_dirs_writable(path: &Path) -> Result<(), SandboxError> {
    let meta = fs::symlink_metadata(path).map_err(io_err("inspect", path))?;
    if !meta.is_dir() {
        return Ok(());
    }
    set_mode(path, 0o700)?;
    let children: Vec<PathBuf> = fs::read_dir(path)
        .map_err(io_err("read directory", path))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    children.iter().try_for_each(|c| make_dirs_writable(c))
}
