//! Git's objects as the batch process hands them over — a commit's or a
//! tree's raw bytes — read into the same records the one-shot answers
//! give (`git show -s --format=…` and `git ls-tree -z`). Pure functions,
//! unit tested against those answers on real repositories
//! (`batch_tests.rs`).
//!
//! They follow git's own readers where git's formatting shapes the
//! answer: a subject is the message's first paragraph with its lines
//! joined by a space and trailing white space cut (`format_subject`), a
//! person is split as `split_ident_line` splits it, a tree entry's mode
//! is canonical as `ls-tree` prints it (`canon_mode`). Where reading the
//! raw bytes could differ from the one-shot answer — a commit that names
//! an `encoding` (git re-encodes its message), a header out of shape —
//! they answer `None` and the caller asks the one-shot way.

use super::{Commit, EntryKind, TreeEntry, wire_name};

/// A raw commit object (`cat-file --batch`'s content for a `commit`) as
/// the [`Commit`] `git show -s --format=%H%x00%T%x00%P%x00%an%x00%ae%x00
/// %at%x00%ct%x00%s` would answer for `id`; `None` when only git's own
/// formatting can say.
pub(super) fn commit_of_raw(id: &str, raw: &[u8]) -> Option<Commit> {
    // git's subject stops at a NUL; so does nothing here: let git say.
    if raw.contains(&0) {
        return None;
    }
    let (headers, message) = match find(raw, b"\n\n") {
        Some(at) => (&raw[..at], &raw[at + 2..]),
        None => (raw.strip_suffix(b"\n").unwrap_or(raw), &b""[..]),
    };
    let mut lines = headers.split(|&b| b == b'\n').peekable();
    // `tree` first, then the parents, as git's parser wants them.
    let tree = object_id(lines.next()?.strip_prefix(b"tree ")?, id.len())?;
    let mut parents = Vec::new();
    while let Some(parent) = lines.peek().and_then(|l| l.strip_prefix(b"parent ")) {
        parents.push(object_id(parent, id.len())?);
        lines.next();
    }
    let (mut author, mut committer) = (None, None);
    for line in lines {
        if line.starts_with(b" ") {
            continue; // a multi-line header's continuation (gpgsig)
        }
        let (key, value) = match line.iter().position(|&b| b == b' ') {
            Some(at) => (&line[..at], &line[at + 1..]),
            None => (line, &b""[..]),
        };
        let slot = match key {
            b"author" => &mut author,
            b"committer" => &mut committer,
            // git re-encodes such a message for `show`, and reads a
            // header out of place its own way: let it.
            b"encoding" | b"tree" | b"parent" => return None,
            _ => continue,
        };
        if slot.replace(value).is_some() {
            return None; // twice: which one git shows is git's to say
        }
    }
    let (author_name, author_email, author_time) = person(author.unwrap_or_default());
    let (_, _, committer_time) = person(committer.unwrap_or_default());
    Some(Commit {
        id: id.to_owned(),
        tree,
        parents,
        author_name,
        author_email,
        author_time,
        committer_time,
        summary: subject(message),
    })
}

/// A header's object id: hex of the commit's own id length.
fn object_id(value: &[u8], len: usize) -> Option<String> {
    (value.len() == len && value.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| text(value))
}

/// An ident (`Name <email> 1700000000 +0000`) as `%an`, `%ae` and `%at`
/// read it (`split_ident_line`): the name before the first `<` without
/// its trailing white space, the mail up to the next `>`, the digits
/// after the last `>`; empty (and 0) where git prints nothing.
fn person(ident: &[u8]) -> (String, String, i64) {
    let Some(open) = ident.iter().position(|&b| b == b'<') else {
        return (String::new(), String::new(), 0);
    };
    let Some(close) = ident[open + 1..].iter().position(|&b| b == b'>') else {
        return (String::new(), String::new(), 0);
    };
    let name = trim_end(&ident[..open]);
    let mail = &ident[open + 1..open + 1 + close];
    let last = ident
        .iter()
        .rposition(|&b| b == b'>')
        .unwrap_or(open + 1 + close);
    let rest = &ident[last + 1..];
    let start = rest
        .iter()
        .position(|b| !is_space(*b))
        .unwrap_or(rest.len());
    let digits: Vec<u8> = rest[start..]
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .collect();
    let time = std::str::from_utf8(&digits)
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    (text(name), text(mail), time)
}

/// `%s`: the first paragraph after any blank lines, its lines' trailing
/// white space cut, joined by a space (git's `format_subject`).
fn subject(message: &[u8]) -> String {
    let mut lines = message.split_inclusive(|&b| b == b'\n').peekable();
    while lines.peek().is_some_and(|l| is_blank(l)) {
        lines.next();
    }
    let mut out: Vec<u8> = Vec::new();
    for line in lines {
        if is_blank(line) {
            break;
        }
        if !out.is_empty() {
            out.push(b' ');
        }
        out.extend_from_slice(trim_end(line));
    }
    text(&out)
}

/// A raw tree object as the entries `ls-tree -z --full-tree` lists, in
/// the tree's order; `id_bytes` is the object id's length in bytes (20
/// for sha1, 32 for sha256). With them, how many bytes `ls-tree -z`
/// prints for them (`<mode> <type> <id>\t<name>\0` each): the one-shot
/// answer's size, which its bound applies to. `None` for bytes out of
/// shape.
pub(super) fn tree_of_raw(raw: &[u8], id_bytes: usize) -> Option<(Vec<TreeEntry>, usize)> {
    let mut entries = Vec::new();
    let mut listed = 0;
    let mut rest = raw;
    while !rest.is_empty() {
        let space = rest.iter().position(|&b| b == b' ')?;
        let mode = std::str::from_utf8(&rest[..space]).ok()?;
        let mode = canon_mode(u32::from_str_radix(mode, 8).ok()?);
        rest = &rest[space + 1..];
        let nul = rest.iter().position(|&b| b == 0)?;
        let name = &rest[..nul];
        rest = &rest[nul + 1..];
        if rest.len() < id_bytes {
            return None;
        }
        let (id, after) = rest.split_at(id_bytes);
        rest = after;
        let (kind, type_name) = match mode & S_IFMT {
            S_IFDIR => (EntryKind::Tree, "tree"),
            S_IFGITLINK => (EntryKind::Commit, "commit"),
            _ => (EntryKind::Blob, "blob"),
        };
        listed += format!("{mode:06o}").len() + type_name.len() + id_bytes * 2 + name.len() + 4;
        entries.push(TreeEntry {
            name: wire_name(name),
            mode,
            id: hex(id),
            kind,
        });
    }
    Some((entries, listed))
}

const S_IFMT: u32 = 0o170000;
const S_IFREG: u32 = 0o100000;
const S_IFDIR: u32 = 0o040000;
const S_IFLNK: u32 = 0o120000;
const S_IFGITLINK: u32 = 0o160000;

/// A tree entry's mode as git reads it back (`canon_mode`): a regular
/// file is 100644 or 100755 by its owner's execute bit; anything that is
/// not a file, a symlink or a directory is a submodule.
fn canon_mode(mode: u32) -> u32 {
    match mode & S_IFMT {
        S_IFREG => S_IFREG | if mode & 0o100 != 0 { 0o755 } else { 0o644 },
        S_IFLNK => S_IFLNK,
        S_IFDIR => S_IFDIR,
        _ => S_IFGITLINK,
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Bytes as the one-shot answer's text: lossy UTF-8, as its whole output
/// was read.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `isspace` in git's sense (its own ctype table: space, `\t`, `\n`,
/// `\r`; not `\v` or `\f`).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !is_space(*b))
        .map_or(0, |at| at + 1);
    &bytes[..end]
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| is_space(*b))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
