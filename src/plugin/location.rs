//! Locations: the one home of where a discovered child may lie and of what
//! a call on a resource's location may see. A location is a path, and
//! paths change, so the rule is applied twice: when a handler answers a
//! child's location ([`contained`]) and again every time a call is about to
//! run on a location ([`view`]).
//!
//! **The rule.** A location is stored as a real path: below its parent's
//! real location, with no component between the two that is a symlink
//! (where the component exists; a missing tail is fine only when nothing
//! above it is a symlink). Only the last component may be a symlink, and
//! it is never followed: the location then names the link itself. A
//! dangling one is refused by the registry for any child that is not a
//! symlink itself ([`dangling_symlink`]): its target may appear later,
//! anywhere. This is
//! stricter than "resolves inside the parent": a symlink that points
//! inside today can point outside tomorrow.
//!
//! **At every use** the location's directory must still be the real
//! directory it was: it is opened and the kernel's own path of the opened
//! descriptor (`/proc/self/fd/N`) must equal the stored path — so no
//! component can have become a symlink, and no swap between the check and
//! the open gets through, because what is handed to the sandbox is that
//! very descriptor. A directory location is preopened through its
//! descriptor; anything else (a file, a symlink) gets a *one-entry view*:
//! a private directory holding a hard link to that entry alone (a copy
//! when the home is on another filesystem, up to [`COPY_LIMIT`]), so a
//! handler for `notes.txt` sees `notes.txt` and nothing beside it.

mod refusal;

pub use refusal::{PlacementRefusal, ViewRefusal};
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// The largest file copied into a one-entry view when it cannot be hard
/// linked (the view directory is on another filesystem).
pub(crate) const COPY_LIMIT: u64 = 64 * 1024 * 1024;

/// `loc` (absolute, or relative to `parent`) as a location inside the real
/// directory `parent`, following the rule above; refusals say why.
pub(crate) fn contained(
    what: impl std::fmt::Display,
    loc: &str,
    parent: &Path,
) -> Result<String, PlacementRefusal> {
    let (what, location) = (|| what.to_string(), || loc.to_owned());
    let path = Path::new(loc);
    if path
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(PlacementRefusal::ParentDir {
            what: what(),
            location: location(),
        });
    }
    let joined: PathBuf = if path.is_absolute() {
        path.components().collect()
    } else {
        parent.join(path).components().collect()
    };
    let Ok(rel) = joined.strip_prefix(parent) else {
        return Err(PlacementRefusal::Outside {
            what: what(),
            location: location(),
            parent: parent.to_path_buf(),
        });
    };
    // Every component but the last must be a real directory; the last is
    // never followed, so what it is does not matter here (a child one
    // level down, the common case, costs no system call).
    let parts: Vec<Component<'_>> = rel.components().collect();
    let mut at = parent.to_path_buf();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(PlacementRefusal::ThroughSymlink {
                    what: what(),
                    location: location(),
                    symlink: at,
                });
            }
            Ok(m) if !m.is_dir() => {
                return Err(PlacementRefusal::ThroughNonDirectory {
                    what: what(),
                    location: location(),
                    at,
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => {
                return Err(PlacementRefusal::Unreadable {
                    what: what(),
                    location: location(),
                    reason: e.to_string(),
                });
            }
        }
    }
    joined
        .into_os_string()
        .into_string()
        .map_err(|p| PlacementRefusal::NotUtf8 {
            what: what(),
            location: p.to_string_lossy().into_owned(),
        })
}

/// Is `location` (a checked child location) a symlink that resolves to
/// nothing — dangling, or a loop? Then why. Whatever later appears at its
/// target, anywhere, would be what a location through it names, so a
/// child whose type is not a symlink's is refused there (the registry's
/// rule, which knows the types: `fs-symlink` children name the link
/// itself and are read as links, dangling or not). One `lstat` per
/// child, and a `stat` for a symlink.
pub fn dangling_symlink(location: &str) -> Option<String> {
    let path = Path::new(location);
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    std::fs::metadata(path).err().map(|e| e.to_string())
}

/// The real directory a resource's children are checked against: its
/// location, which must be a directory that is not a symlink.
pub(crate) fn real_parent(location: &str) -> Result<PathBuf, PlacementRefusal> {
    let path = Path::new(location);
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(path.to_path_buf()),
        Ok(_) => Err(PlacementRefusal::ParentNotADirectory {
            location: location.to_owned(),
        }),
        Err(e) => Err(PlacementRefusal::ParentUnreadable {
            location: location.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// What one call's sandbox is given for a location: the host path to
/// preopen, the path the guest sees it at, the real entry it stands for
/// (for the host's own answers about it), and what must stay alive until
/// the call is over.
#[derive(Debug)]
pub(crate) struct View {
    pub host: PathBuf,
    pub guest: String,
    pub real: Real,
    _held: Option<tempfile::TempDir>,
}

/// The real filesystem entry a view stands for, held open.
#[derive(Debug)]
pub(crate) enum Real {
    /// The location is this directory.
    Dir(OwnedFd),
    /// The location is the entry `name` of this directory; `linked` when
    /// the view holds a hard link to it (one more link than it has).
    Entry {
        dir: OwnedFd,
        name: OsString,
        linked: bool,
    },
}

impl Real {
    /// The directory the location is, or is in.
    pub fn dir(&self) -> &OwnedFd {
        match self {
            Self::Dir(fd) | Self::Entry { dir: fd, .. } => fd,
        }
    }
}

/// Check `location` again and make the sandbox's view of it: its
/// directory when it is one, else a one-entry view under `views` (in a
/// private temp directory when `None`).
pub(crate) fn view(location: &Path, views: Option<&Path>) -> Result<View, ViewRefusal> {
    let text = location.to_str().ok_or_else(|| ViewRefusal::NotUtf8 {
        path: location.to_path_buf(),
    })?;
    // The common case first: a real directory, one open and one readlink.
    let not_a_dir = match open_real_dir(location) {
        Ok(fd) => {
            return Ok(View {
                host: reopen_path(&fd).unwrap_or_else(|| location.to_path_buf()),
                guest: text.to_owned(),
                real: Real::Dir(fd),
                _held: None,
            });
        }
        // Nothing there — unless a dangling symlink is (the location then
        // names the link).
        Err(Refusal::Io(e))
            if e.kind() == io::ErrorKind::NotFound
                && std::fs::symlink_metadata(location).is_err() =>
        {
            return Err(ViewRefusal::Gone {
                location: text.to_owned(),
            });
        }
        Err(refusal) => refusal,
    };
    // Not a real directory: a file, or a symlink (the location names the
    // link itself) — seen alone, through its real parent directory.
    let (Some(dir), Some(name)) = (location.parent(), location.file_name()) else {
        return Err(not_a_dir.say(location));
    };
    let dir_fd = open_real_dir(dir).map_err(|e| e.say(dir))?;
    one_entry_view(dir_fd, dir, name, views, text)
}

/// A private directory holding only `name` of the directory `dir_fd`,
/// preopened where the guest expects that directory to be.
fn one_entry_view(
    dir_fd: OwnedFd,
    dir: &Path,
    name: &std::ffi::OsStr,
    views: Option<&Path>,
    text: &str,
) -> Result<View, ViewRefusal> {
    let fail = |e: io::Error| ViewRefusal::OneEntryView {
        location: text.to_owned(),
        reason: e.to_string(),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix("agents-view-");
    let held = match views {
        Some(views) => {
            create_private_dir(views).map_err(fail)?;
            builder.tempdir_in(views)
        }
        None => builder.tempdir(),
    }
    .map_err(fail)?;
    let into = File::open(held.path()).map_err(fail)?;
    let linked = rustix::fs::linkat(&dir_fd, name, &into, name, rustix::fs::AtFlags::empty());
    if linked.is_err() {
        copy_entry(&dir_fd, name, &into).map_err(fail)?;
    }
    let guest = dir.to_str().ok_or_else(|| ViewRefusal::NotUtf8 {
        path: dir.to_path_buf(),
    })?;
    Ok(View {
        host: held.path().to_path_buf(),
        guest: guest.to_owned(),
        real: Real::Entry {
            dir: dir_fd,
            name: name.to_owned(),
            linked: linked.is_ok(),
        },
        _held: Some(held),
    })
}

/// Copy the entry `name` of `from` into `into` when it cannot be linked: a
/// symlink as a symlink, a regular file (up to [`COPY_LIMIT`]) with its
/// permissions and modification time; anything else is left out.
fn copy_entry(from: &OwnedFd, name: &std::ffi::OsStr, into: &File) -> io::Result<()> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    let stat = rustix::fs::statat(from, name, AtFlags::SYMLINK_NOFOLLOW)?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::Symlink => {
            let target = rustix::fs::readlinkat(from, name, Vec::new())?;
            rustix::fs::symlinkat(target.as_c_str(), into, name)?;
        }
        FileType::RegularFile => {
            if u64::try_from(stat.st_size).unwrap_or(u64::MAX) > COPY_LIMIT {
                return Err(io::Error::other(format!(
                    "it is larger than {} MiB and on another filesystem than the home",
                    COPY_LIMIT >> 20
                )));
            }
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
            let mut src = File::from(rustix::fs::openat(from, name, flags, Mode::empty())?);
            let mode = Mode::from_raw_mode(stat.st_mode) & Mode::from_bits_truncate(0o777);
            let created = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
            let mut dst = File::from(rustix::fs::openat(into, name, created, mode)?);
            io::copy(&mut src, &mut dst)?;
            dst.set_modified(src.metadata()?.modified()?)?;
        }
        _ => {}
    }
    Ok(())
}

/// Why a directory could not be opened as the real directory it should be.
enum Refusal {
    Io(io::Error),
    /// The kernel's path of what was opened differs: a symlink is in the way.
    Moved(PathBuf),
}

impl Refusal {
    fn say(self, path: &Path) -> ViewRefusal {
        let path = path.to_path_buf();
        match self {
            Self::Io(e) => ViewRefusal::Open {
                path,
                reason: e.to_string(),
            },
            Self::Moved(real) => ViewRefusal::Moved { path, real },
        }
    }
}

/// Open `path` as a directory and check that the kernel's own path of the
/// descriptor is `path`: had any component (the last included) become a
/// symlink, the descriptor's path would be where it leads instead.
fn open_real_dir(path: &Path) -> Result<OwnedFd, Refusal> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|e| Refusal::Io(e.into()))?;
    match fd_path(&fd) {
        Some(real) if real != path => Err(Refusal::Moved(real)),
        _ => Ok(fd),
    }
}

/// A path that opens the very directory `fd` is (Linux: the magic link
/// `/proc/self/fd/N`), so the sandbox gets what was checked, not whatever
/// the location's path leads to a moment later.
#[cfg(target_os = "linux")]
fn reopen_path(fd: &OwnedFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    Some(PathBuf::from(format!(
        "/proc/self/fd/{}",
        fd.as_fd().as_raw_fd()
    )))
}

/// The kernel's path of an open descriptor.
#[cfg(target_os = "linux")]
fn fd_path(fd: &OwnedFd) -> Option<PathBuf> {
    std::fs::read_link(reopen_path(fd)?).ok()
}

// Elsewhere the check falls back to the path itself (no race-free reopen).
#[cfg(not(target_os = "linux"))]
fn reopen_path(_fd: &OwnedFd) -> Option<PathBuf> {
    None
}

#[cfg(not(target_os = "linux"))]
fn fd_path(_fd: &OwnedFd) -> Option<PathBuf> {
    None
}

/// Create `dir` (and parents) readable by its owner only.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

mod entries;
pub(crate) use entries::EntryStat;

#[cfg(test)]
mod tests;
