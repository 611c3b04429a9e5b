//! Descriptor-relative file operations: the one home of how the host
//! touches a tree an agent can change (a working copy, an overlay's upper
//! layer) and the trees it makes from one (snapshots, staging directories).
//!
//! An agent may rename, replace or exchange (`renameat2(RENAME_EXCHANGE)`)
//! any entry of its working copy at any moment, including while the host
//! walks, copies or removes it. A path the host resolves twice — once to
//! look, once to act — can lead somewhere else the second time: through a
//! directory swapped for a symlink to a directory outside, or into a file
//! swapped for a link to a secret. So nothing here takes a path below a
//! root: a root is opened once ([`DirFd::open`], the last component
//! `O_NOFOLLOW`), and every entry below it is reached by name from the
//! descriptor of its parent directory (`openat`, `statx`, `readlinkat`,
//! `mkdirat`, `renameat`, `unlinkat`, … with `O_NOFOLLOW` /
//! `AT_SYMLINK_NOFOLLOW`). A directory is entered only through a
//! descriptor opened `O_DIRECTORY | O_NOFOLLOW`, so an entry replaced by a
//! symlink since it was looked at fails to open (`ELOOP`/`ENOTDIR`)
//! instead of leading outside; a file is read only through a descriptor
//! opened `O_NOFOLLOW | O_NONBLOCK` and checked (`fstat`) to be a regular
//! file, so a FIFO or device swapped in is refused without blocking.
//!
//! Mounts: a directory descriptor remembers its filesystem (device and
//! mount id from `statx`); [`DirFd::open_dir`] with [`Mounts::Stay`]
//! refuses a directory on another one ([`SandboxError::Mount`], naming
//! it) before reading or changing anything in it — a bind mount of a
//! directory from the same filesystem included (`STATX_ATTR_MOUNT_ROOT`,
//! `stx_mnt_id`). Removal and the walks of a sandbox's own trees always
//! stay; only the walks of an original (the user's directory, which may
//! hold mounts of its own) cross.
//!
//! Modes: the host changes a directory's mode only through a descriptor of
//! it (`fchmod`; for a directory its owner may not read, an `O_PATH`
//! descriptor through `/proc/self/fd`), never by a name that could have
//! become a symlink to something else.

pub(in crate::sandbox) mod contents;
mod cursor;
pub(in crate::sandbox) mod mounts;
#[cfg(test)]
mod tests;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fd::{AsFd, AsRawFd, OwnedFd};
use rustix::fs::{
    AtFlags, CWD, FileType, Mode, OFlags, RenameFlags, StatxAttributes, StatxFlags, makedev,
};
use rustix::io::Errno;

use crate::sandbox::SandboxError;
pub(in crate::sandbox) use cursor::Cursor;

/// What an entry is, as far as a tree cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum FileKind {
    Dir,
    File,
    Symlink,
    /// A FIFO, socket or device; `whiteout`: a character device 0:0,
    /// overlayfs's mark of a deleted entry.
    Special {
        whiteout: bool,
    },
}

/// The `statx` of one entry (never following a symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) struct Meta {
    pub kind: FileKind,
    /// The permission bits, `0o7777`.
    pub mode: u32,
    pub size: u64,
    /// 512-byte blocks allocated (what a sparse file saves).
    pub blocks: u64,
    pub dev: u64,
    pub ino: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    /// The mount it is on (`stx_mnt_id`, Linux ≥ 5.8).
    mount: Option<u64>,
    /// It is the root of a mount (`STATX_ATTR_MOUNT_ROOT`).
    mount_root: bool,
}

impl Meta {
    fn from_statx(x: &rustix::fs::Statx) -> Meta {
        let file_type = FileType::from_raw_mode(x.stx_mode.into());
        let kind = match file_type {
            FileType::Directory => FileKind::Dir,
            FileType::RegularFile => FileKind::File,
            FileType::Symlink => FileKind::Symlink,
            other => FileKind::Special {
                whiteout: other == FileType::CharacterDevice
                    && x.stx_rdev_major == 0
                    && x.stx_rdev_minor == 0,
            },
        };
        let nanos = |t: rustix::fs::StatxTimestamp| {
            i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec)
        };
        let knows_root = x.stx_attributes_mask.contains(StatxAttributes::MOUNT_ROOT);
        Meta {
            kind,
            mode: u32::from(x.stx_mode) & 0o7777,
            size: x.stx_size,
            blocks: x.stx_blocks,
            dev: makedev(x.stx_dev_major, x.stx_dev_minor),
            ino: x.stx_ino,
            mtime_ns: nanos(x.stx_mtime),
            ctime_ns: nanos(x.stx_ctime),
            mount: (x.stx_mask & StatxFlags::MNT_ID.bits() != 0).then_some(x.stx_mnt_id),
            mount_root: knows_root && x.stx_attributes.contains(StatxAttributes::MOUNT_ROOT),
        }
    }

    /// Is this entry, met below a directory whose `Meta` is `root`, on
    /// another filesystem (another device, another mount, a mount's root)?
    pub(in crate::sandbox) fn crosses_from(&self, root: &Meta) -> bool {
        self.dev != root.dev
            || self.mount_root
            || matches!((self.mount, root.mount), (Some(a), Some(b)) if a != b)
    }

    /// The same inode as `other` (a swap since it was looked at changes it).
    pub(in crate::sandbox) fn same_inode(&self, other: &Meta) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// Whether a walk or an open may go into another filesystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum Mounts {
    /// Refuse, naming the mount (a sandbox's own trees, every removal).
    Stay,
    /// Go in (the walks of an original).
    Cross,
}

const STATX_WANTED: StatxFlags = StatxFlags::BASIC_STATS.union(StatxFlags::MNT_ID);

fn statx_at(dir: impl AsFd, name: &OsStr) -> std::io::Result<Meta> {
    let x = rustix::fs::statx(dir, name, AtFlags::SYMLINK_NOFOLLOW, STATX_WANTED)?;
    Ok(Meta::from_statx(&x))
}

/// The `Meta` of what `fd` refers to.
pub(in crate::sandbox) fn fstatx(fd: impl AsFd) -> std::io::Result<Meta> {
    let x = rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, STATX_WANTED)?;
    Ok(Meta::from_statx(&x))
}

/// The `Meta` of `path`, not following a symlink there (tests, and roots).
pub(in crate::sandbox) fn lstat(path: &Path) -> std::io::Result<Meta> {
    let x = rustix::fs::statx(CWD, path, AtFlags::SYMLINK_NOFOLLOW, STATX_WANTED)?;
    Ok(Meta::from_statx(&x))
}

pub(in crate::sandbox) fn io_err(
    what: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> SandboxError + use<> {
    let path = path.to_path_buf();
    move |source| SandboxError::Io { what, path, source }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// An open directory: its descriptor, its path (for messages only; never
/// resolved again) and what it is.
#[derive(Debug)]
pub(in crate::sandbox) struct DirFd {
    fd: OwnedFd,
    path: PathBuf,
    meta: Meta,
}

impl DirFd {
    /// Open the directory at `path` (a root: the components before the
    /// last are the caller's to trust; the last is not followed).
    pub(in crate::sandbox) fn open(path: &Path) -> Result<DirFd, SandboxError> {
        let fd = rustix::fs::openat(CWD, path, DIR_FLAGS, Mode::empty())
            .map_err(|e| io_err("open the directory", path)(e.into()))?;
        let meta = fstatx(&fd).map_err(io_err("inspect", path))?;
        Ok(DirFd {
            fd,
            path: path.to_path_buf(),
            meta,
        })
    }

    pub(in crate::sandbox) fn path(&self) -> &Path {
        &self.path
    }

    pub(in crate::sandbox) fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The path of `name` in this directory, for messages.
    pub(in crate::sandbox) fn child(&self, name: &OsStr) -> PathBuf {
        self.path.join(name)
    }

    /// The entry `name`, not following a symlink; `None` when it is gone.
    pub(in crate::sandbox) fn stat(&self, name: &OsStr) -> Result<Option<Meta>, SandboxError> {
        match statx_at(&self.fd, name) {
            Ok(meta) => Ok(Some(meta)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err("inspect", &self.child(name))(e)),
        }
    }

    /// Open the subdirectory `name` without following a symlink. With
    /// [`Mounts::Stay`], one on another filesystem than `within` is
    /// refused before anything in it is touched. `to_owner`: make it
    /// `u+rwx` first when it is not (through its own descriptor), so a
    /// read-only directory can be read and changed.
    pub(in crate::sandbox) fn open_dir(
        &self,
        name: &OsStr,
        mounts: Mounts,
        within: &Meta,
        to_owner: bool,
    ) -> Result<DirFd, SandboxError> {
        let path = self.child(name);
        let check = |meta: &Meta| {
            if mounts == Mounts::Stay && meta.crosses_from(within) {
                Err(SandboxError::Mounted {
                    points: vec![path.clone()],
                })
            } else {
                Ok(())
            }
        };
        let fd = match rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => {
                let meta = fstatx(&fd).map_err(io_err("inspect", &path))?;
                check(&meta)?;
                if to_owner && meta.mode & 0o700 != 0o700 {
                    rustix::fs::fchmod(&fd, Mode::from_raw_mode(meta.mode | 0o700))
                        .map_err(|e| io_err("set the mode of", &path)(e.into()))?;
                }
                fd
            }
            Err(Errno::ACCESS) if to_owner => {
                // Not readable by its owner: open it as a path, check it,
                // change its mode through that descriptor, then read it.
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let handle = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
                    Ok(handle) => handle,
                    Err(Errno::LOOP | Errno::NOTDIR) => {
                        return Err(changed(&path, "it is not a directory (any more)"));
                    }
                    Err(e) => return Err(io_err("open the directory", &path)(e.into())),
                };
                let meta = fstatx(&handle).map_err(io_err("inspect", &path))?;
                check(&meta)?;
                let through = format!("/proc/self/fd/{}", handle.as_raw_fd());
                rustix::fs::chmod(through.as_str(), Mode::from_raw_mode(meta.mode | 0o700))
                    .map_err(|e| {
                        io_err("set the mode (through /proc/self/fd) of", &path)(e.into())
                    })?;
                rustix::fs::openat(&handle, ".", DIR_FLAGS, Mode::empty())
                    .map_err(|e| io_err("open the directory", &path)(e.into()))?
            }
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(changed(&path, "it is not a directory (any more)"));
            }
            Err(e) => return Err(io_err("open the directory", &path)(e.into())),
        };
        let meta = fstatx(&fd).map_err(io_err("inspect", &path))?;
        Ok(DirFd { fd, path, meta })
    }

    /// The names in this directory (not `.` and `..`), sorted.
    pub(in crate::sandbox) fn names(&self) -> Result<Vec<OsString>, SandboxError> {
        let err = |e: Errno| io_err("read directory", &self.path)(e.into());
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd).map_err(err)? {
            let entry = entry.map_err(err)?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Open the regular file `name` for reading: not following a symlink,
    /// not blocking on a FIFO, and refused unless what was opened is a
    /// regular file. Its `Meta` is the opened descriptor's.
    pub(in crate::sandbox) fn open_file(&self, name: &OsStr) -> Result<(File, Meta), SandboxError> {
        let path = self.child(name);
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| {
            if e == Errno::LOOP {
                changed(&path, "it became a symlink")
            } else {
                io_err("open", &path)(e.into())
            }
        })?;
        let meta = fstatx(&fd).map_err(io_err("inspect", &path))?;
        if meta.kind != FileKind::File {
            return Err(changed(&path, "it stopped being a regular file"));
        }
        Ok((File::from(fd), meta))
    }

    /// Create the new file `name` (never through an existing entry),
    /// private until the caller sets its mode.
    pub(in crate::sandbox) fn create_file(&self, name: &OsStr) -> Result<File, SandboxError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600))
            .map(File::from)
            .map_err(|e| io_err("create", &self.child(name))(e.into()))
    }

    /// Make the directory `name`, private (`0700`) until its mode is set.
    pub(in crate::sandbox) fn mkdir(&self, name: &OsStr) -> Result<(), SandboxError> {
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700))
            .map_err(|e| io_err("create directory", &self.child(name))(e.into()))
    }

    pub(in crate::sandbox) fn symlink(
        &self,
        target: &OsStr,
        name: &OsStr,
    ) -> Result<(), SandboxError> {
        rustix::fs::symlinkat(target, &self.fd, name)
            .map_err(|e| io_err("create symlink", &self.child(name))(e.into()))
    }

    /// The target of the symlink `name` (refused if it is not one).
    pub(in crate::sandbox) fn read_link(&self, name: &OsStr) -> Result<OsString, SandboxError> {
        let path = self.child(name);
        match rustix::fs::readlinkat(&self.fd, name, Vec::new()) {
            Ok(target) => Ok(OsStr::from_bytes(target.as_bytes()).to_owned()),
            Err(Errno::INVAL) => Err(changed(&path, "it stopped being a symlink")),
            Err(e) => Err(io_err("read symlink", &path)(e.into())),
        }
    }

    /// Remove the non-directory `name`; `Ok(false)` when it is gone already.
    pub(in crate::sandbox) fn unlink(&self, name: &OsStr) -> std::io::Result<bool> {
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Remove the empty directory `name`.
    pub(in crate::sandbox) fn rmdir(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR).map_err(Into::into)
    }

    /// Rename `name` to `to_name` in `to`, replacing what is there.
    pub(in crate::sandbox) fn rename(
        &self,
        name: &OsStr,
        to: &DirFd,
        to_name: &OsStr,
    ) -> Result<(), SandboxError> {
        rustix::fs::renameat(&self.fd, name, &to.fd, to_name)
            .map_err(|e| io_err("rename into place", &to.child(to_name))(e.into()))
    }

    /// Exchange `a` and `b` of this directory atomically; where the
    /// filesystem cannot, by two renames through `<b>.old` (the only
    /// crash window).
    pub(in crate::sandbox) fn exchange(&self, a: &OsStr, b: &OsStr) -> Result<(), SandboxError> {
        if rustix::fs::renameat_with(&self.fd, a, &self.fd, b, RenameFlags::EXCHANGE).is_ok() {
            return Ok(());
        }
        let mut old = b.to_owned();
        old.push(".old");
        self.rename(b, self, &old)?;
        self.rename(a, self, b)?;
        self.rename(&old, self, a)
    }

    /// Hard-link `name` as `to_name` in `to` (a symlink is linked itself).
    pub(in crate::sandbox) fn hard_link(
        &self,
        name: &OsStr,
        to: &DirFd,
        to_name: &OsStr,
    ) -> std::io::Result<()> {
        rustix::fs::linkat(&self.fd, name, &to.fd, to_name, AtFlags::empty()).map_err(Into::into)
    }

    /// Flush everything written on this directory's filesystem to disk
    /// (`syncfs`): one call however many files an operation wrote.
    pub(in crate::sandbox) fn sync_filesystem(&self) -> Result<(), SandboxError> {
        rustix::fs::syncfs(&self.fd)
            .map_err(|e| io_err("sync the filesystem of", &self.path)(e.into()))
    }

    /// Set this directory's own mode.
    pub(in crate::sandbox) fn set_mode(&self, mode: u32) -> Result<(), SandboxError> {
        rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(mode))
            .map_err(|e| io_err("set the mode of", &self.path)(e.into()))
    }

    /// Set the mode of the entry `name` when it is (still) of `kind` (a
    /// regular file or a directory), through a descriptor of it
    /// (`O_PATH | O_NOFOLLOW`, checked, then `/proc/self/fd`, which works
    /// whatever the entry's current mode): a symlink or anything else
    /// swapped in is left alone. `false` when it is gone or not of `kind`.
    pub(in crate::sandbox) fn set_mode_of(
        &self,
        name: &OsStr,
        kind: FileKind,
        mode: u32,
    ) -> Result<bool, SandboxError> {
        let path = self.child(name);
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let handle = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
            Ok(handle) => handle,
            Err(Errno::NOENT | Errno::NOTDIR) => return Ok(false),
            Err(e) => return Err(io_err("open", &path)(e.into())),
        };
        let meta = fstatx(&handle).map_err(io_err("inspect", &path))?;
        if meta.kind != kind {
            return Ok(false);
        }
        if meta.mode != mode {
            let through = format!("/proc/self/fd/{}", handle.as_raw_fd());
            rustix::fs::chmod(through.as_str(), Mode::from_raw_mode(mode))
                .map_err(|e| io_err("set the mode (through /proc/self/fd) of", &path)(e.into()))?;
        }
        Ok(true)
    }

    /// Make the overlayfs whiteout `name` (a character device 0:0).
    pub(in crate::sandbox) fn whiteout(&self, name: &OsStr) -> Result<(), SandboxError> {
        rustix::fs::mknodat(
            &self.fd,
            name,
            FileType::CharacterDevice,
            Mode::empty(),
            makedev(0, 0),
        )
        .map_err(|e| io_err("create a whiteout at", &self.child(name))(e.into()))
    }

    /// The value of this directory's xattr `key` (up to 64 bytes), `None`
    /// when it has none.
    pub(in crate::sandbox) fn xattr(&self, key: &str) -> Result<Option<Vec<u8>>, SandboxError> {
        let mut value = [0u8; 64];
        match rustix::fs::fgetxattr(&self.fd, key, &mut value[..]) {
            Ok(len) => Ok(Some(value[..len].to_vec())),
            Err(Errno::NODATA | Errno::NOTSUP) => Ok(None),
            Err(e) => Err(io_err("read the xattrs of", &self.path)(e.into())),
        }
    }

    pub(in crate::sandbox) fn set_xattr(
        &self,
        key: &str,
        value: &[u8],
    ) -> Result<(), SandboxError> {
        rustix::fs::fsetxattr(&self.fd, key, value, rustix::fs::XattrFlags::empty())
            .map_err(|e| io_err("set an xattr of", &self.path)(e.into()))
    }
}

/// The refusal of an entry swapped or replaced while the host worked on it.
pub(in crate::sandbox) fn changed(path: &Path, what: &'static str) -> SandboxError {
    SandboxError::Changed {
        path: path.to_path_buf(),
        what,
    }
}

/// The mode the host gives what it writes (a copy, a restored file, a
/// directory of the original at apply): permission bits only, and the
/// sticky bit of a directory. Setuid and setgid are never carried, nor
/// sticky on a file: an agent's file must not become a privileged one by
/// being copied by the host (as root, as you) — into a snapshot, back
/// into a working copy, into the original.
pub(in crate::sandbox) fn carried_mode(kind: FileKind, mode: u32) -> u32 {
    match kind {
        FileKind::Dir => mode & 0o1777,
        _ => mode & 0o777,
    }
}
