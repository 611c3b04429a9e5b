//! The file trees `copy_on_write` and `overlay` read and write: the one
//! home of how a directory is walked (never following a symlink), what an
//! entry is (kind, mode, size, digest), and how one is copied, compared
//! and removed.
//!
//! A walk shows its visitor what a tree cannot hold (special files:
//! FIFOs, devices, sockets; names that are not UTF-8 or hold a newline,
//! since manifests and stat records are one line per entry, path last)
//! as [`Found::Foreign`], with the refusal to give. Every walk that
//! precedes a copy gives it, so nothing is written; rollback's walk of
//! the working copy removes such entries instead (no snapshot has them).

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use crate::sandbox::SandboxError;

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
/// What a tree cannot hold is refused (see the module doc).
pub(in crate::sandbox) fn scan(root: &Path, hash: bool) -> Result<Tree, SandboxError> {
    let mut tree = Tree::new();
    walk(root, &mut |found| match found {
        Found::Foreign { refusal, .. } => Err(refusal),
        Found::Entry {
            rel, path, meta, ..
        } => {
            tree.insert(rel.to_owned(), entry_from(path, meta, hash)?);
            Ok(true)
        }
    })?;
    Ok(tree)
}

/// What a [`walk`] meets below its root.
pub(super) enum Found<'a> {
    /// An entry a tree can hold: `rel` is its `/`-separated path.
    Entry {
        rel: &'a str,
        path: &'a Path,
        kind: Kind,
        meta: &'a fs::Metadata,
    },
    /// What a tree cannot hold: a special file, or a name that is not
    /// UTF-8 or holds a newline (not descended into). `refusal` says why,
    /// for a walk that must refuse it.
    Foreign {
        path: &'a Path,
        is_dir: bool,
        refusal: SandboxError,
    },
}

/// What a walk shows its visitor; for a directory, the visitor answers
/// whether to go into it.
pub(super) type Visit<'v> = dyn FnMut(Found<'_>) -> Result<bool, SandboxError> + 'v;

/// Visit everything below `root` without following a symlink: names
/// sorted, a directory before its contents, and read only after `visit`
/// said to go into it (so a visitor may first make it readable).
pub(super) fn walk(root: &Path, visit: &mut Visit<'_>) -> Result<(), SandboxError> {
    walk_dir(root, "", visit)
}

fn walk_dir(root: &Path, rel: &str, visit: &mut Visit<'_>) -> Result<(), SandboxError> {
    let dir = root.join(rel);
    let mut names = Vec::new();
    for item in fs::read_dir(&dir).map_err(io_err("read directory", &dir))? {
        names.push(item.map_err(io_err("read directory", &dir))?.file_name());
    }
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
        let Some(name) = name.to_str().filter(|n| !n.contains('\n')) else {
            let refusal = odd_name(&path);
            let is_dir = meta.is_dir();
            visit(Found::Foreign {
                path: &path,
                is_dir,
                refusal,
            })?;
            continue;
        };
        let file_type = meta.file_type();
        let kind = if file_type.is_symlink() {
            Kind::Symlink
        } else if file_type.is_dir() {
            Kind::Dir
        } else if file_type.is_file() {
            Kind::File
        } else {
            let refusal = special_file(&path);
            visit(Found::Foreign {
                path: &path,
                is_dir: false,
                refusal,
            })?;
            continue;
        };
        let rel_path = if rel.is_empty() {
            name.to_owned()
        } else {
            format!("{rel}/{name}")
        };
        let go_in = visit(Found::Entry {
            rel: &rel_path,
            path: &path,
            kind,
            meta: &meta,
        })?;
        if kind == Kind::Dir && go_in {
            walk_dir(root, &rel_path, visit)?;
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
            None => return Err(odd_name(&dir.join(&name))),
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
        let digest = if hash {
            digest_bytes(bytes)
        } else {
            "-".into()
        };
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
        Err(special_file(path))
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
fn special_file(path: &Path) -> SandboxError {
    SandboxError::Unsuitable(format!(
        "{} is a special file (a FIFO, device or socket); the sandbox copies only files, \
         directories and symlinks: remove it or choose another sandbox strategy",
        path.display()
    ))
}

/// A regular file opened for reading without following a symlink and
/// without blocking (a FIFO swapped in since the walk is refused).
fn open_regular(path: &Path) -> Result<fs::File, SandboxError> {
    let flags = (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits();
    let file = fs::OpenOptions::new()
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
    Ok(file)
}

/// Fill in the digests of a tree [`scan`]ned without them (files and
/// symlink targets, read again below `root`).
pub(super) fn hash_entries(root: &Path, tree: &mut Tree) -> Result<(), SandboxError> {
    for (rel, entry) in tree.iter_mut() {
        let path = root.join(rel);
        match entry.kind {
            Kind::File => entry.digest = hash_file(&path)?,
            Kind::Symlink => {
                let target = fs::read_link(&path).map_err(io_err("read symlink", &path))?;
                entry.digest = digest_bytes(target.as_os_str().as_bytes());
            }
            Kind::Dir => {}
        }
    }
    Ok(())
}

/// The digest a manifest records of some bytes (a symlink's target):
/// BLAKE3, hex. Internal change detection only, never an identity shown
/// to anyone, so the fastest well-kept hash there is.
fn digest_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The digest of a regular file's bytes (BLAKE3, hex), read through a
/// descriptor that never follows a symlink.
fn hash_file(path: &Path) -> Result<String, SandboxError> {
    let mut file = open_regular(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; 128 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(io_err("read", path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// Do two regular files hold the same bytes? Read both, never follow a
/// symlink, stop at the first difference.
pub(super) fn same_contents(a: &Path, b: &Path) -> Result<bool, SandboxError> {
    let (mut fa, mut fb) = (open_regular(a)?, open_regular(b)?);
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let na = read_full(&mut fa, &mut ba).map_err(io_err("read", a))?;
        let nb = read_full(&mut fb, &mut bb).map_err(io_err("read", b))?;
        if na != nb || ba[..na] != bb[..nb] {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
    }
}

/// Fill `buf` unless the end comes first; how much was read.
fn read_full(file: &mut fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A `/`-separated relative path with no empty, `.` or `..` component:
/// the only kind a manifest or stat record may name.
pub(super) fn is_plain_relative(path: &str) -> bool {
    !path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
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
            copy_file(src, dst).map_err(io_err("copy", src))?;
            set_mode(dst, entry.mode)
        }
    }
}

/// Whether reflinks work from one device to another, as far as this
/// process has found out.
static REFLINKS: std::sync::Mutex<BTreeMap<(u64, u64), bool>> =
    std::sync::Mutex::new(BTreeMap::new());

/// Clone `src` to the new file `dst` where the filesystem can (a reflink),
/// else copy its bytes (`copy_file_range` in the kernel). A failed clone
/// costs a create and an unlink, so the answer is remembered per pair of
/// devices: on a filesystem without reflinks (ext4) only the first file
/// of a process pays it.
fn copy_file(src: &Path, dst: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let parent = dst.parent().unwrap_or(Path::new("."));
    let key = (
        fs::symlink_metadata(src)?.dev(),
        fs::metadata(parent)?.dev(),
    );
    let known = REFLINKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
        .copied();
    if known != Some(false) {
        match reflink_copy::reflink(src, dst) {
            Ok(()) => return Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound
                        | std::io::ErrorKind::PermissionDenied
                        | std::io::ErrorKind::AlreadyExists
                ) =>
            {
                return Err(e);
            }
            Err(_) => {
                REFLINKS
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(key, false);
            }
        }
    }
    fs::copy(src, dst).map(|_| ())
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
    copy_tree_linking(src, dst, tree, &|_, _| false)
}

/// [`copy_tree`], except that `link(rel, to)` is offered every file first
/// and may put it at `to` itself (a hard link to an identical file with
/// the same mode); where it returns `false` the file is copied.
pub(super) fn copy_tree_linking(
    src: &Path,
    dst: &Path,
    tree: &Tree,
    link: &dyn Fn(&str, &Path) -> bool,
) -> Result<(), SandboxError> {
    fs::create_dir(dst).map_err(io_err("create directory", dst))?;
    for (rel, entry) in tree {
        let to = dst.join(rel);
        if entry.kind != Kind::File || !link(rel, &to) {
            copy_entry(&src.join(rel), &to, entry)?;
        }
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
