//! What the fs handlers know about one directory entry, read without
//! following symlinks: its kind, size, times, link count, mode and inode
//! (the host's `lstat`, which WASI cannot give), a symlink's target and a
//! file's content digest (read through WASI) — and how those become
//! properties and lines of text.

use resource_handler_sdk::{Inspection, Property, host};
use sha2::{Digest, Sha256};
use std::io::Read;

/// Files larger than this are not digested at discovery (their
/// `content-hash` still reads them).
const DIGEST_LIMIT: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    File,
    /// A regular file with more than one link.
    Hardlink,
    Symlink,
    /// A FIFO, socket or device: not discovered.
    Other,
}

impl Kind {
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Directory => "fs-directory",
            Kind::File => "fs-file",
            Kind::Hardlink => "fs-hardlink",
            Kind::Symlink => "fs-symlink",
            Kind::Other => "other",
        }
    }

    pub fn article(self) -> &'static str {
        match self {
            Kind::Directory => "a directory",
            Kind::File => "a file",
            Kind::Hardlink => "a hard-linked file",
            Kind::Symlink => "a symlink",
            Kind::Other => "neither a file, a directory nor a symlink",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Facts {
    pub name: String,
    pub path: String,
    pub kind: Kind,
    pub size: u64,
    pub modified_nanos: u128,
    pub links: u64,
    /// The inode number, shared by every link of one file.
    pub inode: u64,
    pub mode: Option<u32>,
    pub target: Option<String>,
    pub digest: Option<String>,
}

impl Facts {
    /// The facts of `path` (never following a symlink), a file's digest
    /// included.
    pub fn of(path: &str) -> std::io::Result<Self> {
        Self::read(path, true)
    }

    /// The facts of `path` without reading a file's contents.
    pub fn stat(path: &str) -> std::io::Result<Self> {
        Self::read(path, false)
    }

    fn read(path: &str, with_digest: bool) -> std::io::Result<Self> {
        let stat = host::lstat(path).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file or directory in the location",
            )
        })?;
        let name = path.rsplit('/').next().unwrap_or(path).to_owned();
        Self::from_stat(path.to_owned(), name, &stat, with_digest)
    }

    /// The facts of the entry at `path` (named `name`) that `lstat` said
    /// `stat` of: a symlink's target and (`with_digest`) a file's digest
    /// are read through WASI.
    pub fn from_stat(
        path: String,
        name: String,
        stat: &host::EntryStat,
        with_digest: bool,
    ) -> std::io::Result<Self> {
        let kind = match stat.mode & S_IFMT {
            S_IFLNK => Kind::Symlink,
            S_IFDIR => Kind::Directory,
            S_IFREG if stat.links > 1 => Kind::Hardlink,
            S_IFREG => Kind::File,
            _ => Kind::Other,
        };
        let target = match kind {
            Kind::Symlink => Some(std::fs::read_link(&path)?.to_string_lossy().into_owned()),
            _ => None,
        };
        // A file that cannot be read (no permission) is still listed,
        // without a digest.
        let digest = match kind {
            Kind::File | Kind::Hardlink if with_digest && stat.size <= DIGEST_LIMIT => {
                digest(&path, stat.size).ok()
            }
            _ => None,
        };
        Ok(Self {
            name,
            path,
            kind,
            size: stat.size,
            modified_nanos: u128::from(stat.modified_ns),
            links: stat.links,
            inode: stat.inode,
            mode: Some(stat.mode),
            target,
            digest,
        })
    }

    /// The properties a discovered entry is stored with.
    pub fn properties(&self) -> Vec<Property> {
        let mut props = vec![
            Property::new("size", self.size.to_string()),
            Property::new("modified", iso8601(self.modified_nanos)),
        ];
        if let Some(mode) = self.mode {
            props.push(Property::new("mode", format!("{:o}", mode & 0o7777)));
        }
        if let Some(target) = &self.target {
            props.push(Property::new("target", target.clone()));
        }
        if let Some(digest) = &self.digest {
            props.push(Property::new("digest", digest.clone()));
        }
        if self.kind == Kind::Hardlink {
            props.push(Property::new("links", self.links.to_string()));
            props.push(Property::new("inode", self.inode.to_string()));
        }
        props
    }

    /// What the entry's own `content-hash` would answer, when known
    /// without reading more: a file's digest, a link's target's hash.
    pub fn hash(&self) -> Option<String> {
        match self.kind {
            Kind::File | Kind::Hardlink => self.digest.clone(),
            Kind::Symlink => self.target.as_deref().map(|t| sha256_text(t.as_bytes())),
            _ => None,
        }
    }

    /// One line for a directory listing.
    pub fn line(&self) -> String {
        let what = match self.kind {
            Kind::Directory => "dir ".to_owned(),
            Kind::Symlink => "link".to_owned(),
            Kind::Hardlink => format!("{:>4}", format!("×{}", self.links)),
            _ => "file".to_owned(),
        };
        let mut line = format!("{what} {:>10}  {}", self.size, self.name);
        if let Some(target) = &self.target {
            line.push_str(&format!(" -> {target}"));
        }
        line
    }

    /// A few lines for `inspect`, and the same facts as fields.
    pub fn describe(&self) -> Inspection {
        let modified = iso8601(self.modified_nanos);
        let mut out = Inspection::new()
            .line(format!("{} {}", self.kind.article(), self.path))
            .line(format!("size: {} bytes", self.size))
            .line(format!("modified: {modified}"))
            .data("path", self.path.as_str())
            .data("type", self.kind.type_name())
            .data("size", self.size.to_string())
            .data("modified", modified);
        if let Some(mode) = self.mode {
            let mode = format!("{:o}", mode & 0o7777);
            out = out.line(format!("mode: {mode}")).data("mode", mode);
        }
        if let Some(target) = &self.target {
            out = out
                .line(format!("target: {target} (not followed)"))
                .data("target", target.as_str());
        }
        if self.kind == Kind::Hardlink {
            out = out
                .line(format!("links: {} (inode {})", self.links, self.inode))
                .data("links", self.links.to_string())
                .data("inode", self.inode.to_string());
        }
        if let Some(digest) = &self.digest {
            out = out
                .line(format!("digest: {digest}"))
                .data("digest", digest.as_str());
        }
        out
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_text(bytes: &[u8]) -> String {
    sha256_hex(&Sha256::digest(bytes))
}

/// `sha256:` and the lowercase hex of `digest` (a table, not `format!`:
/// this runs once per file discovered).
fn sha256_hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(7 + digest.len() * 2);
    text.push_str("sha256:");
    for &b in digest {
        text.push(char::from(HEX[usize::from(b >> 4)]));
        text.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    text
}

/// The file-type bits of a mode, and the types the handlers tell apart.
const S_IFMT: u32 = 0o170_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFREG: u32 = 0o100_000;
const S_IFLNK: u32 = 0o120_000;

/// The largest file the host hashes for a handler (`host::sha256_file`).
const HOST_HASH_LIMIT: u64 = 64 * 1024 * 1024;

/// `sha256:<hex>` of the file at `path` (`size` bytes by its `lstat`):
/// hashed by the host up to its limit (no copy through WASI, hardware
/// SHA), larger files read here in pieces.
pub fn digest(path: &str, size: u64) -> std::io::Result<String> {
    if size <= HOST_HASH_LIMIT {
        return host::sha256_file(path).map_err(std::io::Error::other);
    }
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(sha256_hex(&hasher.finalize()))
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC) of nanoseconds since the epoch.
pub fn iso8601(nanos: u128) -> String {
    let secs = (nanos / 1_000_000_000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}
