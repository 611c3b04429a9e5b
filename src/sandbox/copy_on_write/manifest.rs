//! Manifests: the one home of how a tree is written as text (one line
//! per entry, path last) and read back, and of writing one atomically.
//! `copy_on_write`'s `base.manifest` and `overlay`'s manifests are these.

use std::fs;
use std::path::{Path, PathBuf};

use super::tree::{Entry, Kind, LEGACY_DIGEST, Tree, io_err, is_plain_relative};
use crate::digest::sha256_hex;
use crate::sandbox::SandboxError;

/// Format 3: file digests over the data blocks and the length
/// (`contents::digest`), so holes are never read.
const MANIFEST_HEADER: &str = "agents copy_on_write manifest 3";
/// Format 2, still read: file digests over every byte, holes included
/// (held as [`LEGACY_DIGEST`]`<digest>`, see [`super::tree::rehash_like`]).
const MANIFEST_HEADER_2: &str = "agents copy_on_write manifest 2";

/// `kind mode size digest path`, one line per entry after a header line;
/// kind `d`/`f`/`l`, mode in octal, path last so it may hold spaces.
fn render(tree: &Tree) -> String {
    let mut text = format!("{MANIFEST_HEADER}\n");
    for (path, e) in tree {
        text.push_str(&format!(
            "{} {:o} {} {} {path}\n",
            e.kind.letter(),
            e.mode,
            e.size,
            e.digest
        ));
    }
    text
}

/// Read back what [`render`] wrote; anything else (including a path with
/// an empty, `.` or `..` component) is refused, never guessed at.
fn parse(text: &str, source: &Path) -> Result<Tree, SandboxError> {
    let bad = |line: &str| {
        SandboxError::Unsuitable(format!(
            "{} is not a sandbox manifest (at {line:?}); the sandbox is damaged: destroy it",
            source.display()
        ))
    };
    let mut lines = text.lines();
    let legacy = match lines.next() {
        Some(MANIFEST_HEADER) => false,
        Some(MANIFEST_HEADER_2) => true,
        _ => return Err(bad("header")),
    };
    let mut tree = Tree::new();
    for line in lines {
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        let [kind, mode, size, digest, path] = fields[..] else {
            return Err(bad(line));
        };
        let kind = Kind::from_letter(kind).ok_or_else(|| bad(line))?;
        let mode = u32::from_str_radix(mode, 8).map_err(|_| bad(line))?;
        let size = size.parse().map_err(|_| bad(line))?;
        if !is_plain_relative(path) {
            return Err(bad(line));
        }
        tree.insert(
            path.to_owned(),
            Entry {
                kind,
                mode,
                size,
                digest: if legacy && kind == Kind::File {
                    format!("{LEGACY_DIGEST}{digest}")
                } else {
                    digest.to_owned()
                },
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
