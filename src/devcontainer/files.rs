//! A devcontainer's files: the one home of how the configuration and what
//! it builds from (its Dockerfile, `.dockerignore`, Compose files, local
//! features, scripts its commands name) are found and read.
//!
//! Everything lies inside the **repository** — the directory the person
//! registered (a checkout's work tree, a directory), which the workspace
//! and its configuration are in — and is read through it:
//!
//! * the repository is opened once as a directory, and (on Linux) the
//!   kernel's own path of that descriptor must be the path it was given,
//!   so no component above it was swapped for a symlink;
//! * a path is made relative to it *lexically* (`..` that stays inside is
//!   fine — `"context": ".."` is common when the configuration is in
//!   `.devcontainer/`; `..` past the top, or an absolute path elsewhere,
//!   is refused), and then opened component by component below that
//!   descriptor with `O_NOFOLLOW`: since no symlink is ever followed, the
//!   lexical `..` and the real one are the same directory;
//! * a file must be a regular file (asked before it is opened, and of the
//!   opened descriptor again): a FIFO, a device, a socket or a directory
//!   is refused, and the open is non-blocking, so nothing waits on a FIFO
//!   swapped in between;
//! * at most [`MAX_FILE`] bytes are read: a larger file is refused, never
//!   read to its end (`"dockerfile": "/dev/zero"` is refused long before,
//!   for lying outside).

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::DevcontainerError;
use crate::text::escape_line;

/// The largest file read (a configuration, a Dockerfile, a script).
pub const MAX_FILE: u64 = 1024 * 1024;

/// The repository, opened.
#[derive(Debug)]
pub(crate) struct Repository {
    root: PathBuf,
    dir: OwnedFd,
}

/// Why a path of the configuration is refused (the caller says which
/// key named it).
#[derive(Debug)]
pub(crate) enum Refused {
    /// It lies outside the repository.
    Outside,
    /// A component is a symlink, or not a directory where one is needed.
    Symlink(PathBuf),
    /// It is not a regular file (or, for a context, a directory).
    NotRegular(&'static str),
    TooLarge,
    Missing,
    Io(io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Outside => f.write_str("it lies outside the repository"),
            Self::Symlink(at) => write!(
                f,
                "{} is a symlink or not a directory (no symlink is followed inside the \
                 repository)",
                escape_line(&at.display().to_string())
            ),
            Self::NotRegular(kind) => write!(f, "it is a {kind}, not a regular file"),
            Self::TooLarge => write!(f, "it is larger than the {MAX_FILE} bytes read"),
            Self::Missing => f.write_str("it does not exist"),
            Self::Io(e) => e.fmt(f),
        }
    }
}

impl Repository {
    /// Opens `root` (absolute) as the directory everything lies in.
    pub fn open(root: &Path) -> Result<Self, DevcontainerError> {
        let refuse = |reason: String| DevcontainerError::Config {
            path: root.to_path_buf(),
            reason,
        };
        if !root.is_absolute() {
            return Err(refuse(
                "the repository must be named by an absolute path".into(),
            ));
        }
        let dir = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| {
            refuse(format!(
                "cannot open the repository: {}",
                io::Error::from(e)
            ))
        })?;
        if let Some(real) = fd_path(&dir)
            && real != root
        {
            return Err(refuse(format!(
                "the repository now resolves to {} (a symlink was put in its path); register it \
                 again",
                escape_line(&real.display().to_string())
            )));
        }
        Ok(Self {
            root: root.to_path_buf(),
            dir,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` (absolute, or relative to the repository's directory `base`)
    /// relative to the repository, `..` resolved lexically.
    pub fn relative(&self, base: &Path, path: &Path) -> Result<PathBuf, Refused> {
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(base).join(path)
        };
        let mut out = PathBuf::new();
        for part in joined.components() {
            match part {
                Component::RootDir | Component::CurDir => {}
                Component::Prefix(_) => return Err(Refused::Outside),
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(Refused::Outside);
                    }
                }
                Component::Normal(name) => out.push(name),
            }
        }
        let absolute = Path::new("/").join(&out);
        absolute
            .strip_prefix(&self.root)
            .map(Path::to_path_buf)
            .map_err(|_| Refused::Outside)
    }

    /// The absolute path of `rel` (the root itself for an empty one).
    pub fn path(&self, rel: &Path) -> PathBuf {
        if rel.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    /// The bytes of the regular file `rel` (at most [`MAX_FILE`]).
    pub fn read(&self, rel: &Path) -> Result<Vec<u8>, Refused> {
        let (dir, name) = self.parent_of(rel)?;
        let Some(name) = name else {
            return Err(Refused::NotRegular("directory"));
        };
        let stat = rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW).map_err(io_err)?;
        check_regular(stat.st_mode)?;
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&dir, &name, flags, Mode::empty()).map_err(io_err)?;
        let opened = rustix::fs::fstat(&fd).map_err(io_err)?;
        check_regular(opened.st_mode)?;
        if (opened.st_dev, opened.st_ino) != (stat.st_dev, stat.st_ino) {
            return Err(Refused::Io(io::Error::other(
                "it was replaced while being opened",
            )));
        }
        let mut bytes = Vec::new();
        File::from(fd)
            .take(MAX_FILE + 1)
            .read_to_end(&mut bytes)
            .map_err(Refused::Io)?;
        if bytes.len() as u64 > MAX_FILE {
            return Err(Refused::TooLarge);
        }
        Ok(bytes)
    }

    /// Checks that `rel` is a regular file reached through directories
    /// only (nothing is opened but directories).
    pub fn check_file(&self, rel: &Path) -> Result<(), Refused> {
        let (dir, name) = self.parent_of(rel)?;
        let Some(name) = name else {
            return Err(Refused::NotRegular("directory"));
        };
        let stat = rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW).map_err(io_err)?;
        check_regular(stat.st_mode)
    }

    /// [`Repository::read`], `None` when `rel` does not exist.
    pub fn read_optional(&self, rel: &Path) -> Result<Option<Vec<u8>>, Refused> {
        match self.read(rel) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(Refused::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Checks that `rel` is a directory reached through directories only.
    pub fn check_dir(&self, rel: &Path) -> Result<(), Refused> {
        self.open_dir(rel).map(drop)
    }

    /// Every regular file below the directory `rel`, at any depth, sorted
    /// (at most `max`; more is refused, and so is a symlink, a FIFO, a
    /// device or a socket among them: what is copied into a build must be
    /// what was read).
    pub fn files_below(&self, rel: &Path, max: usize) -> Result<Vec<PathBuf>, Refused> {
        let mut out = Vec::new();
        let mut pending = vec![rel.to_path_buf()];
        while let Some(dir_rel) = pending.pop() {
            let dir = self.open_dir(&dir_rel)?;
            let mut listing = rustix::fs::Dir::new(dir).map_err(io_err)?;
            while let Some(entry) = listing.read() {
                let entry = entry.map_err(io_err)?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name == "." || name == ".." {
                    continue;
                }
                let path = dir_rel.join(&name);
                match entry.file_type() {
                    FileType::RegularFile => out.push(path),
                    FileType::Directory => pending.push(path),
                    other => {
                        return Err(Refused::Io(io::Error::other(format!(
                            "{} is a {}, not a regular file or directory",
                            escape_line(&self.root.join(&path).display().to_string()),
                            match other {
                                FileType::Symlink => "symlink",
                                FileType::Fifo => "FIFO",
                                FileType::Socket => "socket",
                                _ => "device or file of unknown kind",
                            }
                        ))));
                    }
                }
                if out.len() + pending.len() > max {
                    return Err(Refused::Io(io::Error::other(format!(
                        "it holds more than {max} files and folders"
                    ))));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The directory holding `rel`, opened, and `rel`'s last name.
    fn parent_of(&self, rel: &Path) -> Result<(OwnedFd, Option<PathBuf>), Refused> {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let dir = self.open_dir(parent)?;
        Ok((dir, rel.file_name().map(PathBuf::from)))
    }

    /// `rel` opened as a directory, one component at a time, following
    /// no symlink.
    fn open_dir(&self, rel: &Path) -> Result<OwnedFd, Refused> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut dir = rustix::fs::openat(&self.dir, ".", flags, Mode::empty()).map_err(io_err)?;
        let mut at = PathBuf::new();
        for part in rel.components() {
            let Component::Normal(name) = part else {
                continue;
            };
            at.push(name);
            dir = match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
                Ok(next) => next,
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                    return Err(Refused::Symlink(self.root.join(&at)));
                }
                Err(e) => return Err(io_err(e)),
            };
        }
        Ok(dir)
    }
}

fn check_regular(mode: u32) -> Result<(), Refused> {
    match FileType::from_raw_mode(mode) {
        FileType::RegularFile => Ok(()),
        FileType::Symlink => Err(Refused::NotRegular("symlink")),
        FileType::Directory => Err(Refused::NotRegular("directory")),
        FileType::Fifo => Err(Refused::NotRegular("FIFO")),
        FileType::CharacterDevice | FileType::BlockDevice => Err(Refused::NotRegular("device")),
        FileType::Socket => Err(Refused::NotRegular("socket")),
        FileType::Unknown => Err(Refused::NotRegular("file of unknown kind")),
    }
}

fn io_err(e: rustix::io::Errno) -> Refused {
    if e == rustix::io::Errno::NOENT {
        Refused::Missing
    } else {
        Refused::Io(e.into())
    }
}

/// The kernel's path of an open descriptor (Linux).
#[cfg(target_os = "linux")]
fn fd_path(fd: &OwnedFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
fn fd_path(_fd: &OwnedFd) -> Option<PathBuf> {
    None
}

/// The repository a devcontainer's workspace lies in, found from the
/// filesystem alone: the nearest folder at or above `workspace` holding a
/// `.git` (a directory, or the file of a linked worktree or submodule) —
/// the git work tree the Dev Containers CLI mounts — else the workspace
/// itself. Never a registered resource's location: who registered what
/// decides nothing here.
pub fn repository_of(workspace: &Path) -> PathBuf {
    let mut at = Some(workspace);
    while let Some(dir) = at {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok_and(|m| m.is_dir() || m.is_file()) {
            return dir.to_path_buf();
        }
        at = dir.parent();
    }
    workspace.to_path_buf()
}

/// The configuration file `path` (absolute, or relative to `location`)
/// of a devcontainer whose location is `location`, as an absolute path —
/// when it is a regular file inside `location`, reached without a
/// symlink; else why not. What the host checks of a `config-path` a
/// handler answers.
pub fn config_inside(location: &Path, path: &str) -> Result<PathBuf, String> {
    let repo = Repository::open(location).map_err(|e| e.to_string())?;
    let shown = crate::text::quote(path);
    let rel = repo
        .relative(Path::new(""), Path::new(path))
        .map_err(|e| format!("config-path {shown}: {e} ({})", location.display()))?;
    repo.check_file(&rel)
        .map_err(|e| format!("config-path {shown}: {e}"))?;
    Ok(repo.path(&rel))
}
