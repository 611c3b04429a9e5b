//! What the fs handlers know about one directory entry, read without
//! following symlinks: its kind, size, times, link count, the host's
//! `lstat` mode, a symlink's target, a file's content digest — and how
//! those become properties and lines of text.

use resource_handler_sdk::{Property, host};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::time::UNIX_EPOCH;

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
    /// The facts of `path` (never following a symlink).
    pub fn of(path: &str) -> std::io::Result<Self> {
        let meta = std::fs::symlink_metadata(path)?;
        let stat = host::lstat(path);
        let links = stat.as_ref().map_or(1, |s| s.links);
        let t = meta.file_type();
        let kind = if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Directory
        } else if t.is_file() && links > 1 {
            Kind::Hardlink
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        let modified_nanos = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let target = match kind {
            Kind::Symlink => Some(std::fs::read_link(path)?.to_string_lossy().into_owned()),
            _ => None,
        };
        // A file that cannot be read (no permission) is still listed,
        // without a digest.
        let digest = match kind {
            Kind::File | Kind::Hardlink if meta.len() <= DIGEST_LIMIT => digest(path).ok(),
            _ => None,
        };
        let name = path.rsplit('/').next().unwrap_or(path).to_owned();
        Ok(Self {
            name,
            path: path.to_owned(),
            kind,
            size: meta.len(),
            modified_nanos,
            links,
            inode: stat.as_ref().map_or(0, |s| s.inode),
            mode: stat.as_ref().map(|s| s.mode),
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

    /// A few lines for `inspect`.
    pub fn describe(&self, full: bool) -> String {
        let mut text = format!("{} {}\n", self.kind.article(), self.path);
        text.push_str(&format!("size: {} bytes\n", self.size));
        text.push_str(&format!("modified: {}\n", iso8601(self.modified_nanos)));
        if let Some(mode) = self.mode {
            text.push_str(&format!("mode: {:o}\n", mode & 0o7777));
        }
        if let Some(target) = &self.target {
            text.push_str(&format!("target: {target} (not followed)\n"));
        }
        if self.kind == Kind::Hardlink {
            text.push_str(&format!("links: {} (inode {})\n", self.links, self.inode));
        }
        if full && let Some(digest) = &self.digest {
            text.push_str(&format!("digest: {digest}\n"));
        }
        text
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_text(bytes: &[u8]) -> String {
    let mut text = String::from("sha256:");
    for b in Sha256::digest(bytes) {
        text.push_str(&format!("{b:02x}"));
    }
    text
}

/// `sha256:<hex>` of a file's contents, read in pieces.
fn digest(path: &str) -> std::io::Result<String> {
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
    let mut text = String::from("sha256:");
    for b in hasher.finalize() {
        text.push_str(&format!("{b:02x}"));
    }
    Ok(text)
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
