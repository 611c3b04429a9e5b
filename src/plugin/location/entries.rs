//! What the host itself answers about a view's location — an entry's
//! `lstat`, a directory's entries, a file's hash, the directory to run
//! git from, whether it is a mount point — always resolved inside the
//! real location through the descriptor the view holds.

use super::{Real, View, fd_path};
use crate::text::quote;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

impl View {
    /// `lstat` of `path` — the location itself, or (for a directory) a path
    /// below it, absolute or relative — resolved inside the real location
    /// (never leaving it, never following a symlink at the end); `None`
    /// when it is missing or lies elsewhere.
    pub fn entry_stat(&self, path: &str) -> Option<EntryStat> {
        use cap_primitives::fs::{FollowSymlinks, MetadataExt};
        let (dir, rel, ours) = self.resolve(path)?;
        let start = File::from(dir.try_clone().ok()?);
        let meta = cap_primitives::fs::stat(&start, &rel, FollowSymlinks::No).ok()?;
        Some(EntryStat {
            mode: meta.mode(),
            links: meta.nlink().saturating_sub(ours).max(1),
            inode: meta.ino(),
            device: meta.dev(),
            size: meta.size(),
            modified_ns: nanos(meta.mtime(), meta.mtime_nsec()),
        })
    }

    /// The entries of the directory `path` (resolved as for
    /// [`View::entry_stat`]; the directory itself is not followed if it is
    /// a symlink), each with what `lstat` says of it, in byte order of
    /// name. Entries whose names are not UTF-8 are left out (a WIT string
    /// cannot carry them, nor can WASI open them); so is one removed
    /// between listing and `lstat`. More than `max` entries is refused.
    pub fn dir_entries(&self, path: &str, max: usize) -> Result<Vec<(String, EntryStat)>, String> {
        use rustix::fs::{AtFlags, Mode, OFlags};
        let (dir, rel, _) = self
            .resolve(path)
            .ok_or_else(|| format!("{} is not inside the call's location", quote(path)))?;
        if matches!(self.real, Real::Entry { .. }) {
            return Err(format!("{} is not a directory", quote(path)));
        }
        // Below the location, resolved beneath it (an `O_PATH` handle),
        // then opened for reading through that handle.
        let below: Option<OwnedFd> = if rel == Path::new(".") {
            None
        } else {
            let start = File::from(dir.try_clone().map_err(|e| e.to_string())?);
            let found = cap_primitives::fs::open_dir_nofollow(&start, &rel)
                .map_err(|e| format!("{}: {e}", quote(path)))?;
            Some(found.into())
        };
        let fd = rustix::fs::openat(
            below.as_ref().unwrap_or(dir),
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| format!("{}: {}", quote(path), io::Error::from(e)))?;
        let mut listing = rustix::fs::Dir::new(fd)
            .map_err(|e| format!("{}: {}", quote(path), io::Error::from(e)))?;
        let mut out = Vec::new();
        while let Some(entry) = listing.read() {
            let entry = entry.map_err(|e| format!("{}: {}", quote(path), io::Error::from(e)))?;
            let name = entry.file_name();
            let bytes = name.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            let Ok(text) = std::str::from_utf8(bytes) else {
                continue;
            };
            if out.len() == max {
                return Err(format!("{} has more than {max} entries", quote(path)));
            }
            let fd = listing.fd().map_err(|e| e.to_string())?;
            let stat = match rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => stat,
                Err(rustix::io::Errno::NOENT) => continue,
                Err(e) => return Err(format!("{}/{text}: {}", quote(path), io::Error::from(e))),
            };
            // `st_nlink` is narrower than u64 on some targets.
            #[allow(clippy::useless_conversion)]
            let links = u64::from(stat.st_nlink).max(1);
            out.push((
                text.to_owned(),
                EntryStat {
                    mode: stat.st_mode,
                    links,
                    inode: stat.st_ino,
                    device: stat.st_dev,
                    size: u64::try_from(stat.st_size).unwrap_or(0),
                    modified_ns: nanos(
                        stat.st_mtime,
                        i64::try_from(stat.st_mtime_nsec).unwrap_or(0),
                    ),
                },
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// `sha256:<hex>` of the regular file `path` (resolved as for
    /// [`View::entry_stat`], the last component not followed), refused
    /// when it is larger than `max` bytes.
    pub fn sha256_file(&self, path: &str, max: u64) -> Result<String, String> {
        use rustix::fs::{Mode, OFlags};
        use sha2::{Digest, Sha256};
        use std::io::Read;
        let (dir, rel, _) = self
            .resolve(path)
            .ok_or_else(|| format!("{} is not inside the call's location", quote(path)))?;
        let fail = |e: io::Error| format!("{}: {e}", quote(path));
        // Non-blocking, no controlling terminal, never through a symlink:
        // what is opened is checked before a byte is read.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
        let file: File = if rel.components().count() == 1 {
            rustix::fs::openat(dir, &rel, flags | OFlags::CLOEXEC, Mode::empty())
                .map_err(|e| fail(e.into()))?
                .into()
        } else {
            let start = File::from(dir.try_clone().map_err(fail)?);
            let mut options = cap_primitives::fs::OpenOptions::new();
            options.read(true);
            // What `cap_fs_ext::OpenOptionsFollowExt` calls.
            options._cap_fs_ext_follow(cap_primitives::fs::FollowSymlinks::No);
            {
                use cap_primitives::fs::OpenOptionsExt;
                let extra = OFlags::NONBLOCK | OFlags::NOCTTY;
                options.custom_flags(i32::try_from(extra.bits()).unwrap_or(0));
            }
            cap_primitives::fs::open(&start, &rel, &options).map_err(fail)?
        };
        let meta = file.metadata().map_err(fail)?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", quote(path)));
        }
        if meta.len() > max {
            return Err(format!(
                "{} is {} bytes, more than the {max} hashed",
                quote(path),
                meta.len()
            ));
        }
        let mut hasher = Sha256::new();
        let mut buf =
            vec![0u8; usize::try_from(meta.len() + 1).map_or(1 << 16, |n| n.min(1 << 16))];
        let mut file = file.take(max + 1);
        loop {
            let n = file.read(&mut buf).map_err(fail)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(format!("sha256:{}", crate::digest::hex(&hasher.finalize())))
    }

    /// Where `path` is on the real filesystem: a directory held open, the
    /// path below it (`.` for the directory itself), and how many of the
    /// entry's links are the view's own.
    fn resolve(&self, path: &str) -> Option<(&OwnedFd, PathBuf, u64)> {
        let given = Path::new(path);
        let rel = if given.is_absolute() {
            given.strip_prefix(&self.guest).ok()?.to_path_buf()
        } else {
            given.to_path_buf()
        };
        if rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return None;
        }
        let (dir, rel, ours) = match &self.real {
            Real::Dir(fd) => (fd, rel, 0),
            // The entry's view holds only the entry, named as it is (and
            // its hard link is ours, not one of the entry's own).
            Real::Entry { dir, name, linked }
                if rel == Path::new(name) || rel.as_os_str().is_empty() =>
            {
                (dir, PathBuf::from(name), u64::from(*linked))
            }
            Real::Entry { .. } => return None,
        };
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            rel
        };
        Some((dir, rel, ours))
    }

    /// A path naming the real directory the location is (or is in), held
    /// open by this view — what git runs from (`/proc/<pid>/fd/N`).
    pub fn real_dir_path(&self) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        if cfg!(target_os = "linux") {
            Some(PathBuf::from(format!(
                "/proc/{}/fd/{}",
                std::process::id(),
                self.real.dir().as_raw_fd()
            )))
        } else {
            fd_path(self.real.dir())
        }
    }

    /// Where git runs for this view's calls: the real directory (see
    /// [`View::real_dir_path`]) and its device and inode.
    pub fn git_dir(&self) -> Option<crate::plugin::git::GitDir> {
        let stat = rustix::fs::fstat(self.real.dir()).ok()?;
        Some(crate::plugin::git::GitDir {
            path: self.real_dir_path()?,
            #[allow(clippy::useless_conversion)]
            identity: (u64::from(stat.st_dev), u64::from(stat.st_ino)),
        })
    }

    /// Is the location a mount point (on another device than its parent)?
    pub fn is_mount_point(&self) -> bool {
        let Real::Dir(fd) = &self.real else {
            return false;
        };
        let (Ok(here), Ok(up)) = (
            rustix::fs::fstat(fd),
            rustix::fs::statat(fd, "..", rustix::fs::AtFlags::empty()),
        ) else {
            return false;
        };
        here.st_dev != up.st_dev || here.st_ino == up.st_ino
    }
}

/// What `lstat` says of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    pub mode: u32,
    pub links: u64,
    pub inode: u64,
    pub device: u64,
    pub size: u64,
    /// Modification time, nanoseconds since the epoch (0 before it).
    pub modified_ns: u64,
}

fn nanos(secs: i64, nsec: i64) -> u64 {
    u64::try_from(secs)
        .ok()
        .and_then(|s| s.checked_mul(1_000_000_000))
        .and_then(|n| n.checked_add(u64::try_from(nsec).unwrap_or(0)))
        .unwrap_or(0)
}
