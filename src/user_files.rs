//! The files a person names to the CLI: the one home of how they are read
//! (a type file, a plugin component, a registry document, a file `plugin
//! wit --out` would replace) and how a document is written out (`registry
//! export --out`).
//!
//! **Reading.** A named file must be a regular file, and is read with a
//! bound that fits its kind ([`InputKind::limit`]). It is opened
//! non-blocking, so a named pipe with no writer or a device is refused at
//! once (by the opened descriptor's own `fstat`) instead of blocking the
//! command or being read forever (`/dev/zero`, `/dev/urandom`); a file
//! that grows past its bound while it is read is refused too. A symlink to
//! a regular file is followed: the path is the person's own choice, not a
//! sandbox's, and the check is on what was opened, so no swap between a
//! check and the read matters. Standard input (`registry import -`) is a
//! stream by nature — a pipe is the point there — and is read under the
//! same bound.
//!
//! **Writing.** `registry export --out PATH` writes only to a regular file
//! or to a path that does not exist yet: through a new temporary file
//! (0600) in the same directory, synced, then renamed over `PATH`. The
//! final name is looked at without following it (`AT_SYMLINK_NOFOLLOW`),
//! and `rename` replaces a name, never what a symlink points at; so a
//! symlink (to `/proc/self/fd/1`, to someone's file), a named pipe, a
//! device (`/dev/full`) or a directory at `PATH` is refused and left as it
//! is. A failed write leaves no temporary file.

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a named file is read as, and so how big it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A resource type's YAML (`resource type add`, `--config`): 1 MiB.
    TypeFile,
    /// A WebAssembly component (`plugin add`, `plugin check`): 256 MiB —
    /// a Python one built with componentize-py is about 18 MB, a Rust one
    /// a few hundred KB.
    PluginComponent,
    /// A registry document (`registry import`): 512 MiB, room for a large
    /// registry with its plugins embedded.
    RegistryDocument,
    /// A contract file `plugin wit --out` compares before writing: 1 MiB.
    WitFile,
}

impl InputKind {
    /// The most bytes a file of this kind may hold.
    pub fn limit(self) -> u64 {
        match self {
            Self::TypeFile | Self::WitFile => 1 << 20,
            Self::PluginComponent => 256 << 20,
            Self::RegistryDocument => 512 << 20,
        }
    }

    /// How messages name it.
    pub fn what(self) -> &'static str {
        match self {
            Self::TypeFile => "type file",
            Self::PluginComponent => "plugin file",
            Self::RegistryDocument => "registry document",
            Self::WitFile => "contract file",
        }
    }
}

/// Why a named file could not be read, or a document not written.
#[derive(Debug, Error)]
pub enum UserFileError {
    #[error("cannot read {what} {}: {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot read {what} {}: it is {kind}, not a regular file; name the file itself",
        path.display()
    )]
    NotRegular {
        what: &'static str,
        path: PathBuf,
        kind: &'static str,
    },
    #[error(
        "cannot read {what} {}: it holds more than {limit} bytes, the most a {what} may hold",
        path.display()
    )]
    TooBig {
        what: &'static str,
        path: PathBuf,
        limit: u64,
    },
    #[error("cannot read {what} {}: it is not UTF-8 text", path.display())]
    NotText { what: &'static str, path: PathBuf },
    #[error(
        "cannot write {}: it is {kind}; the document is written only to a regular file (which \
         it replaces) or to a new path, and what is there was left as it is",
        path.display()
    )]
    NotARegularOutput { path: PathBuf, kind: &'static str },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The words for a file type in a refusal.
fn kind_of(file_type: FileType) -> &'static str {
    match file_type {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symlink (it is not followed)",
        FileType::Fifo => "a named pipe",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "not a file",
    }
}

/// The bytes of the regular file `path`, at most `kind`'s limit (see the
/// module doc).
pub fn read(path: &Path, kind: InputKind) -> Result<Vec<u8>, UserFileError> {
    let what = kind.what();
    let io = |source| UserFileError::Read {
        what,
        path: path.to_owned(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
        .map_err(io)?;
    let stat = rustix::fs::fstat(&file).map_err(|e| io(e.into()))?;
    let file_type = FileType::from_raw_mode(stat.st_mode);
    if file_type != FileType::RegularFile {
        return Err(UserFileError::NotRegular {
            what,
            path: path.to_owned(),
            kind: kind_of(file_type),
        });
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    let capacity = usize::try_from(size.min(kind.limit())).unwrap_or(0);
    read_bounded(file, kind, path, capacity)
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, kind: InputKind) -> Result<String, UserFileError> {
    String::from_utf8(read(path, kind)?).map_err(|_| UserFileError::NotText {
        what: kind.what(),
        path: path.to_owned(),
    })
}

/// Standard input as UTF-8 text, at most `kind`'s limit (messages name it
/// `-`).
pub fn read_stdin_text(kind: InputKind) -> Result<String, UserFileError> {
    let path = Path::new("-");
    let bytes = read_bounded(std::io::stdin().lock(), kind, path, 0)?;
    String::from_utf8(bytes).map_err(|_| UserFileError::NotText {
        what: kind.what(),
        path: path.to_owned(),
    })
}

fn read_bounded(
    input: impl Read,
    kind: InputKind,
    path: &Path,
    capacity: usize,
) -> Result<Vec<u8>, UserFileError> {
    let limit = kind.limit();
    let mut bytes = Vec::with_capacity(capacity);
    input
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| UserFileError::Read {
            what: kind.what(),
            path: path.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(UserFileError::TooBig {
            what: kind.what(),
            path: path.to_owned(),
            limit,
        });
    }
    Ok(bytes)
}

/// Write `bytes` to `path`, replacing only a regular file (see the module
/// doc).
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), UserFileError> {
    let fail = |source: std::io::Error| UserFileError::Write {
        path: path.to_owned(),
        source,
    };
    let Some(name) = path.file_name() else {
        return Err(fail(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it names no file",
        )));
    };
    let dir_path = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let dir = rustix::fs::open(
        dir_path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| fail(e.into()))?;
    match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => {
            let file_type = FileType::from_raw_mode(stat.st_mode);
            if file_type != FileType::RegularFile {
                return Err(UserFileError::NotARegularOutput {
                    path: path.to_owned(),
                    kind: kind_of(file_type),
                });
            }
        }
        Err(rustix::io::Errno::NOENT) => {}
        Err(e) => return Err(fail(e.into())),
    }
    // A short name of our own (the final name may be as long as a name
    // can be), dot-hidden.
    let temp = format!(
        ".agents-{}-{}.tmp",
        std::process::id(),
        ulid::Ulid::generate()
    );
    let fd = rustix::fs::openat(
        &dir,
        temp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::RUSR | Mode::WUSR,
    )
    .map_err(|e| fail(e.into()))?;
    let mut file = std::fs::File::from(fd);
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| rustix::fs::renameat(&dir, temp.as_str(), &dir, name).map_err(Into::into));
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
        return Err(fail(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
