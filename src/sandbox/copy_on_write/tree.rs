//! The file trees `copy_on_write` and `overlay` read and write: the one
//! home of how a directory is walked (never following a symlink), what an
//! entry is (kind, mode, size, digest), how a tree is written as a text
//! manifest, and how one is copied and removed.
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
pub(in crate::sandbox) enum Kind {
    Dir,
    File,
    Symlink,
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

/// Every entry below a root, by `/`-separated relative path; a parent
/// sorts before its children.
pub(in crate::sandbox) type Tree = BTreeMap<String, Entry>;

pub(in crate::sandbox) fn io_err(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> SandboxError + use<> {
    let path = path.to_path_buf();
    move |source| SandboxError::Io { what, path, source }
}

/// Walk `root` (not itself recorded). `hash`: digest file contents and
/// symlink targets (for manifests and diffs; copies do not need it).
pub(in crate::sandbox) fn scan(root: &Path, hash: bool) -> Result<Tree, SandboxError> {
    let mut tree = Tree::new();
    scan_dir(root, "", hash, &mut tree)?;
    Ok(tree)
}

fn scan_dir(root: &Path, rel: &str, hash: bool, tree: &mut Tree) -> Result<(), SandboxError> {
    for name in names(&root.join(rel))? {
        let rel_path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let path = root.join(&rel_path);
        let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
        let entry = entry_from(&path, &meta, hash)?;
        let is_dir = entry.kind == Kind::Dir;
        tree.insert(rel_path.clone(), entry);
        if is_dir {
            scan_dir(root, &rel_path, hash, tree)?;
        }
    }
    Ok(())
}

/// The names in `dir`, sorted; a name that is not UTF-8 or holds a
/// newline is refused (manifests are one line per entry, path last).
pub(in crate::sandbox) fn names(dir: &Path) -> Result<Vec<String>, SandboxError> {
    let mut names = Vec::new();
    for item in fs::read_dir(dir).map_err(io_err("read directory", dir))? {
        let name = item.map_err(io_err("read directory", dir))?.file_name();
        match name.to_str().filter(|n| !n.contains('\n')) {
            Some(name) => names.push(name.to_owned()),
            None => {
                return Err(SandboxError::Unsuitable(format!(
                    "{}: a name that is not UTF-8 or holds a newline; the sandbox records paths \
                     in a text manifest, so rename it first",
                    dir.join(&name).display()
                )));
            }
        }
    }
    names.sort();
    Ok(names)
}

/// The entry at `path`, whose `symlink_metadata` is `meta`; a special file
/// (FIFO, device, socket) is refused.
pub(in crate::sandbox) fn entry_from(
    path: &Path,
    meta: &fs::Metadata,
    hash: bool,
) -> Result<Entry, SandboxError> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = fs::read_link(path).map_err(io_err("read symlink", path))?;
        let bytes = target.as_os_str().as_bytes();
        let digest = if hash { sha256_hex(bytes) } else { "-".into() };
        Ok(Entry {
            kind: Kind::Symlink,
            mode: 0,
            size: bytes.len() as u64,
            digest,
        })
    } else if kind.is_dir() {
        Ok(Entry {
            kind: Kind::Dir,
            mode: meta.permissions().mode() & 0o7777,
            size: 0,
            digest: "-".into(),
        })
    } else if kind.is_file() {
        let digest = if hash { hash_file(path)? } else { "-".into() };
        Ok(Entry {
            kind: Kind::File,
            mode: meta.permissions().mode() & 0o7777,
            size: meta.len(),
            digest,
        })
    } else {
        Err(SandboxError::Unsuitable(format!(
            "{} is a special file (a FIFO, device or socket); the sandbox copies only files, \
             directories and symlinks: remove it or choose another sandbox strategy",
            path.display()
        )))
    }
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

const MANIFEST_HEADER: &str = "agents copy_on_write manifest 1";

/// `kind mode size digest path`, one line per entry after a header line;
/// kind `d`/`f`/`l`, mode in octal, path last so it may hold spaces.
pub(in crate::sandbox) fn render(tree: &Tree) -> String {
    let mut text = format!("{MANIFEST_HEADER}\n");
    for (path, e) in tree {
        let kind = match e.kind {
            Kind::Dir => 'd',
            Kind::File => 'f',
            Kind::Symlink => 'l',
        };
        text.push_str(&format!(
            "{kind} {:o} {} {} {path}\n",
            e.mode, e.size, e.digest
        ));
    }
    text
}

/// Read back what [`render`] wrote; anything else (including a path with
/// an empty, `.` or `..` component) is refused, never guessed at.
pub(in crate::sandbox) fn parse(text: &str, source: &Path) -> Result<Tree, SandboxError> {
    let bad = |line: &str| {
        SandboxError::Unsuitable(format!(
            "{} is not a sandbox manifest (at {line:?}); the sandbox is damaged: destroy it",
            source.display()
        ))
    };
    let mut lines = text.lines();
    if lines.next() != Some(MANIFEST_HEADER) {
        return Err(bad("header"));
    }
    let mut tree = Tree::new();
    for line in lines {
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        let [kind, mode, size, digest, path] = fields[..] else {
            return Err(bad(line));
        };
        let kind = match kind {
            "d" => Kind::Dir,
            "f" => Kind::File,
            "l" => Kind::Symlink,
            _ => return Err(bad(line)),
        };
        let mode = u32::from_str_radix(mode, 8).map_err(|_| bad(line))?;
        let size = size.parse().map_err(|_| bad(line))?;
        if path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
        {
            return Err(bad(line));
        }
        tree.insert(
            path.to_owned(),
            Entry {
                kind,
                mode,
                size,
                digest: digest.to_owned(),
            },
        );
    }
    Ok(tree)
}

/// Write the manifest of `tree` to `path` atomically (via `<path>.tmp`);
/// returns its sha256.
pub(in crate::sandbox) fn write_manifest(path: &Path, tree: &Tree) -> Result<String, SandboxError> {
    let text = render(tree);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, &text).map_err(io_err("write", &tmp))?;
    fs::rename(&tmp, path).map_err(io_err("rename into place", path))?;
    Ok(sha256_hex(text.as_bytes()))
}

/// Read back what [`write_manifest`] wrote, and its sha256.
pub(in crate::sandbox) fn read_manifest(path: &Path) -> Result<(Tree, String), SandboxError> {
    let text = fs::read_to_string(path).map_err(io_err("read", path))?;
    Ok((parse(&text, path)?, sha256_hex(text.as_bytes())))
}

/// Copy one entry of `tree` from `src` to `dst` (the parent exists):
/// reflink or copy a file, recreate a symlink with the same target, make
/// a directory. Modes of files are set here; of directories by the caller
/// once their contents are in (a read-only directory must be filled first).
pub(in crate::sandbox) fn copy_entry(
    src: &Path,
    dst: &Path,
    entry: &Entry,
) -> Result<(), SandboxError> {
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

pub(in crate::sandbox) fn set_mode(path: &Path, mode: u32) -> Result<(), SandboxError> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(io_err("set the mode of", path))
}

/// Copy the whole of `tree` (a walk of `src`) to `dst`, which must not
/// exist yet; `dst` gets `src`'s own mode too.
pub(in crate::sandbox) fn copy_tree(
    src: &Path,
    dst: &Path,
    tree: &Tree,
) -> Result<(), SandboxError> {
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
pub(in crate::sandbox) fn remove_tree(path: &Path) -> Result<(), SandboxError> {
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
