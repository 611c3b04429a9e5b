//! What git answers, as data: the records the `git` interface returns
//! and the pure parsers that read them from git's `-z` / `%x00`
//! formatted output (unit tested in `tests.rs`).

/// Why the host could not answer (the WIT's `git-error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GitError {
    NotARepository(String),
    NotFound(String),
    Invalid(String),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repository {
    pub git_dir: String,
    pub work_tree: Option<String>,
    pub id_length: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub branch: Option<String>,
    pub commit: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefKind {
    Branch,
    RemoteBranch,
    Tag,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reference {
    pub name: String,
    pub short_name: String,
    pub kind: RefKind,
    pub target: String,
    pub peeled: Option<String>,
    pub upstream: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Remote {
    pub name: String,
    pub url: Option<String>,
    pub push_url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stash {
    pub index: u32,
    pub commit: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Submodule {
    pub name: String,
    pub path: String,
    pub url: Option<String>,
    pub commit: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    pub id: String,
    pub tree: String,
    pub parents: Vec<String>,
    pub author_name: String,
    pub author_email: String,
    pub author_time: i64,
    pub committer_time: i64,
    pub summary: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    Blob,
    Tree,
    Commit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    pub name: String,
    pub mode: u32,
    pub id: String,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathStatus {
    pub path: String,
    pub index: String,
    pub worktree: String,
}

pub(super) fn opt(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

pub(super) fn parse_refs(out: &str) -> Vec<Reference> {
    out.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\0').collect();
            let [name, target, peeled, upstream] = f.as_slice() else {
                return None;
            };
            Some(reference(name, target, opt(peeled), upstream))
        })
        .collect()
}

/// The refs from three cheap answers instead of one `for-each-ref` asking
/// `%(*objectname)` and `%(upstream)` of every ref (which makes git parse
/// every ref's object and look up every branch's configuration: 6–9× the
/// plain listing on a repository with 4,300 refs and 80,000 commits):
/// `listing`, `for-each-ref --format=%(refname)%00%(objectname)`;
/// `peeled`, `show-ref -d` (an annotated tag's fully peeled target, from
/// `packed-refs` where git recorded it, as `<id> <ref>^{}`); `upstreams`,
/// `for-each-ref --format=%(refname)%00%(upstream)` of only the branches
/// whose configuration names an upstream.
pub(super) fn join_refs(listing: &str, peeled: &str, upstreams: &str) -> Vec<Reference> {
    use std::collections::HashMap;
    let peeled: HashMap<&str, &str> = peeled
        .lines()
        .filter_map(|line| {
            let (id, name) = line.split_once(' ')?;
            Some((name.strip_suffix("^{}")?, id))
        })
        .collect();
    let upstreams: HashMap<&str, &str> = upstreams
        .lines()
        .filter_map(|line| line.split_once('\0'))
        .collect();
    listing
        .lines()
        .filter_map(|line| {
            let (name, target) = line.split_once('\0')?;
            let upstream = upstreams.get(name).copied().unwrap_or_default();
            Some(reference(
                name,
                target,
                peeled.get(name).map(|p| (*p).to_owned()),
                upstream,
            ))
        })
        .collect()
}

/// The branch names whose upstream is configured, from `git config
/// --null --name-only --get-regexp '^branch\..*\.merge$'`.
pub(super) fn configured_upstreams(out: &str) -> Vec<&str> {
    out.split('\0')
        .filter_map(|key| key.trim().strip_prefix("branch.")?.strip_suffix(".merge"))
        .filter(|name| !name.is_empty())
        .collect()
}

fn reference(name: &str, target: &str, peeled: Option<String>, upstream: &str) -> Reference {
    let (kind, short_name) = if let Some(s) = name.strip_prefix("refs/heads/") {
        (RefKind::Branch, s)
    } else if let Some(s) = name.strip_prefix("refs/remotes/") {
        (RefKind::RemoteBranch, s)
    } else if let Some(s) = name.strip_prefix("refs/tags/") {
        (RefKind::Tag, s)
    } else {
        (RefKind::Other, name.strip_prefix("refs/").unwrap_or(name))
    };
    Reference {
        name: name.to_owned(),
        short_name: short_name.to_owned(),
        kind,
        target: target.to_owned(),
        peeled,
        upstream: (!upstream.is_empty()).then(|| short_ref(upstream).to_owned()),
    }
}

/// A branch's upstream as its short name: `origin/main` for a remote
/// branch, `main` for a local one.
pub(super) fn short_ref(full: &str) -> &str {
    full.strip_prefix("refs/remotes/")
        .or_else(|| full.strip_prefix("refs/heads/"))
        .or_else(|| full.strip_prefix("refs/"))
        .unwrap_or(full)
}

/// `git config --null --get-regexp` output: `key\nvalue\0` records.
pub(super) fn config_entries(out: &str) -> impl Iterator<Item = (&str, &str)> {
    out.split('\0')
        .filter(|r| !r.is_empty())
        .map(|r| r.split_once('\n').unwrap_or((r, "")))
}

pub(super) fn parse_remotes(out: &str) -> Vec<Remote> {
    let mut remotes: Vec<Remote> = Vec::new();
    for (key, value) in config_entries(out) {
        let Some(rest) = key.strip_prefix("remote.") else {
            continue;
        };
        let (name, field) = match rest.rsplit_once('.') {
            Some(parts) => parts,
            None => continue,
        };
        let at = match remotes.iter().position(|r| r.name == name) {
            Some(i) => i,
            None => {
                remotes.push(Remote {
                    name: name.to_owned(),
                    url: None,
                    push_url: None,
                });
                remotes.len() - 1
            }
        };
        match field {
            "url" if remotes[at].url.is_none() => remotes[at].url = Some(value.to_owned()),
            "pushurl" if remotes[at].push_url.is_none() => {
                remotes[at].push_url = Some(value.to_owned());
            }
            _ => {}
        }
    }
    remotes.sort_by(|a, b| a.name.cmp(&b.name));
    remotes
}

pub(super) fn parse_stashes(out: &str) -> Vec<Stash> {
    let fields: Vec<&str> = out
        .split('\0')
        .map(|f| f.trim_start_matches('\n'))
        .collect();
    fields
        .chunks(2)
        .filter(|pair| pair.len() == 2 && !pair[0].is_empty())
        .enumerate()
        .map(|(index, pair)| Stash {
            index: index as u32,
            commit: pair[0].to_owned(),
            message: pair[1].to_owned(),
        })
        .collect()
}

pub(super) fn parse_submodules(config: &str, staged: &str) -> Vec<Submodule> {
    let mut subs: Vec<Submodule> = Vec::new();
    for (key, value) in config_entries(config) {
        let Some(rest) = key.strip_prefix("submodule.") else {
            continue;
        };
        let Some((name, field)) = rest.rsplit_once('.') else {
            continue;
        };
        let at = match subs.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                subs.push(Submodule {
                    name: name.to_owned(),
                    path: String::new(),
                    url: None,
                    commit: None,
                });
                subs.len() - 1
            }
        };
        match field {
            "path" => subs[at].path = value.to_owned(),
            "url" => subs[at].url = Some(value.to_owned()),
            _ => {}
        }
    }
    // `ls-files --stage -z`: `<mode> <id> <stage>\t<path>\0`.
    for record in staged.split('\0') {
        let Some((meta, path)) = record.split_once('\t') else {
            continue;
        };
        let mut parts = meta.split(' ');
        if parts.next() != Some("160000") {
            continue;
        }
        let id = parts.next().unwrap_or_default();
        match subs.iter_mut().find(|s| s.path == path) {
            Some(sub) => sub.commit = Some(id.to_owned()),
            None => subs.push(Submodule {
                name: path.to_owned(),
                path: path.to_owned(),
                url: None,
                commit: Some(id.to_owned()),
            }),
        }
    }
    subs.retain(|s| !s.path.is_empty());
    subs.sort_by(|a, b| a.path.cmp(&b.path));
    subs
}

pub(super) fn parse_commit(out: &str) -> Option<Commit> {
    let line = out.strip_suffix('\n').unwrap_or(out);
    let f: Vec<&str> = line.splitn(8, '\0').collect();
    let [id, tree, parents, name, email, at, ct, summary] = f.as_slice() else {
        return None;
    };
    Some(Commit {
        id: (*id).to_owned(),
        tree: (*tree).to_owned(),
        parents: parents.split_whitespace().map(str::to_owned).collect(),
        author_name: (*name).to_owned(),
        author_email: (*email).to_owned(),
        author_time: at.parse().unwrap_or(0),
        committer_time: ct.parse().unwrap_or(0),
        summary: (*summary).to_owned(),
    })
}

/// `ls-tree -z`: `<mode> SP <type> SP <id> TAB <name>\0`, read as bytes
/// so that a name that is not UTF-8 reaches the guest one to one
/// ([`wire_name`]).
pub(super) fn parse_tree(out: &[u8]) -> Vec<TreeEntry> {
    out.split(|&b| b == 0)
        .filter_map(|record| {
            let tab = record.iter().position(|&b| b == b'\t')?;
            let (meta, name) = (
                std::str::from_utf8(&record[..tab]).ok()?,
                &record[tab + 1..],
            );
            let mut parts = meta.split(' ');
            let mode = u32::from_str_radix(parts.next()?, 8).ok()?;
            let kind = match parts.next()? {
                "tree" => EntryKind::Tree,
                "commit" => EntryKind::Commit,
                _ => EntryKind::Blob,
            };
            Some(TreeEntry {
                name: wire_name(name),
                mode,
                id: parts.next()?.to_owned(),
                kind,
            })
        })
        .collect()
}

/// The first of the 256 code points that stand for raw bytes on the wire.
const WIRE_BYTE_BASE: u32 = 0x10_FF00;

/// A file name's bytes as the text a guest receives (the WIT has only
/// `string`): valid UTF-8 as it is; every byte that is not — and every
/// byte of a character in `U+10FF00`–`U+10FFFF`, so two names never meet —
/// as the code point `U+10FF00 + byte`. The guest SDK's `name_part` shows
/// each as `%XX` (`caf\xe9.txt` → `caf%E9.txt`); this is the same
/// mapping as the SDK's `name_of_bytes`, which a guest uses on bytes it
/// reads itself.
pub(super) fn wire_name(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let smuggle = |out: &mut String, raw: &[u8]| {
        out.extend(
            raw.iter()
                .filter_map(|&b| char::from_u32(WIRE_BYTE_BASE + u32::from(b))),
        );
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) >= WIRE_BYTE_BASE {
                smuggle(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes());
            } else {
                out.push(c);
            }
        }
        smuggle(&mut out, chunk.invalid());
    }
    out
}

/// `status --porcelain=v1 -z`: `XY path\0`, a rename followed by its
/// source `\0`.
pub(super) fn parse_status(out: &str) -> Vec<PathStatus> {
    let mut found = Vec::new();
    let mut records = out.split('\0');
    while let Some(record) = records.next() {
        if record.len() < 4 || !record.is_char_boundary(3) {
            continue;
        }
        let (xy, path) = record.split_at(3);
        let mut letters = xy.chars();
        let index = letters.next().unwrap_or(' ');
        let worktree = letters.next().unwrap_or(' ');
        if matches!(index, 'R' | 'C') {
            records.next(); // the source path
        }
        found.push(PathStatus {
            path: path.to_owned(),
            index: index.to_string(),
            worktree: worktree.to_string(),
        });
    }
    found
}
