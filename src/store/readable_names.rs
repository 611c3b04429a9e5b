//! Migration 0009's data step: discovered names made by the old `_XX`
//! encoding (`test_5f10.py`, `my_20notes.txt`, `caf_c3_a9.txt`) renamed
//! to the readable form the SDK's `name_part` makes now (`test_10.py`,
//! `my notes.txt`, `café.txt`; `%XX` only for what cannot be shown). Ids,
//! links and everything else stay as they are.
//!
//! Only auto-discovered rows are renamed, and only the part of a name
//! below the parent that discovered it (or, for a name `../x` gave — a
//! devcontainer beside its checkout — the last part): a name a person
//! chose (`local/my_20repo`) is never decoded, and a child takes its
//! parent's new name. The rename runs in two steps (every changed row
//! unnamed first, then named), so a new name that was another row's old
//! one (`a_20b` → `a b` while `a_5f20b` → `a_20b`) does not collide; a new
//! name that a person's own resource already holds keeps the old one.

use super::StoreError;
use super::db::{Tx, args};
use crate::model::escape_name_part;
use std::collections::{BTreeMap, HashMap};

/// Rename, inside the migration's transaction.
pub(super) fn migrate(tx: Tx<'_>) -> Result<(), StoreError> {
    let rows: Vec<(String, String, bool)> = tx.rows(
        "SELECT resource_id, namespaced_name, auto_discovered FROM resources \
         WHERE namespaced_name IS NOT NULL",
        args![],
        "resources",
        0,
        |c| Ok((c.get(0)?, c.get(1)?, c.get::<i64>(2)? == 1)),
    )?;
    let links: Vec<(String, String)> = tx.rows(
        "SELECT parent_id, child_id FROM resource_links",
        args![],
        "resource_links",
        0,
        |c| Ok((c.get(0)?, c.get(1)?)),
    )?;
    let renames = plan(&rows, &links);
    if renames.is_empty() {
        return Ok(());
    }
    for id in renames.keys() {
        tx.execute(
            "UPDATE resources SET namespaced_name = NULL WHERE resource_id = ?1",
            args![id.as_str()],
        )?;
    }
    let old: HashMap<&str, &str> = rows
        .iter()
        .map(|(id, n, _)| (id.as_str(), n.as_str()))
        .collect();
    for (id, new) in &renames {
        let taken = |name: &str| -> Result<bool, StoreError> {
            Ok(tx.value::<i64>(
                "SELECT count(*) FROM resources WHERE namespaced_name = ?1",
                args![name],
            )? > 0)
        };
        let name = if !taken(new)? {
            new.as_str()
        } else if !taken(old[id.as_str()])? {
            old[id.as_str()]
        } else {
            return Err(StoreError::Corrupt {
                what: format!("resource {id}"),
                reason: format!(
                    "its readable name {new:?} and its old name {:?} are both taken",
                    old[id.as_str()]
                ),
            });
        };
        tx.execute(
            "UPDATE resources SET namespaced_name = ?1 WHERE resource_id = ?2",
            args![name, id.as_str()],
        )?;
    }
    Ok(())
}

/// Which rows get which new name (id → name), in id order; rows whose
/// name does not change are left out.
fn plan(rows: &[(String, String, bool)], links: &[(String, String)]) -> BTreeMap<String, String> {
    let by_id: HashMap<&str, (&str, bool)> = rows
        .iter()
        .map(|(id, name, auto)| (id.as_str(), (name.as_str(), *auto)))
        .collect();
    let mut parents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (parent, child) in links {
        parents
            .entry(child.as_str())
            .or_default()
            .push(parent.as_str());
    }
    let mut memo: HashMap<&str, String> = HashMap::new();
    let mut out = BTreeMap::new();
    for (id, name, _) in rows {
        let new = renamed(id, &by_id, &parents, &mut memo, 0);
        if &new != name {
            out.insert(id.clone(), new);
        }
    }
    out
}

/// The new name of row `id` (its parent's new name, first).
fn renamed<'a>(
    id: &'a str,
    rows: &HashMap<&'a str, (&'a str, bool)>,
    parents: &HashMap<&'a str, Vec<&'a str>>,
    memo: &mut HashMap<&'a str, String>,
    depth: usize,
) -> String {
    if let Some(done) = memo.get(id) {
        return done.clone();
    }
    let (name, auto) = rows[id];
    let mut new = name.to_owned();
    // The DAG has no cycles; the bound only keeps a corrupt file finite.
    if auto && depth < 4096 {
        let named_parents = parents.get(id).into_iter().flatten().filter_map(|p| {
            let (pname, _) = rows.get(p)?;
            Some((*p, *pname))
        });
        for (parent, pname) in named_parents {
            if let Some(suffix) = name.strip_prefix(pname).and_then(|s| s.strip_prefix('/')) {
                let base = renamed(parent, rows, parents, memo, depth + 1);
                new = format!("{base}/{}", decode_path(suffix));
                break;
            }
            let (place, last) = (pname.rsplit_once('/'), name.rsplit_once('/'));
            if let (Some((pplace, _)), Some((place_here, last))) = (place, last)
                && pplace == place_here
            {
                let base = renamed(parent, rows, parents, memo, depth + 1);
                let (bplace, _) = base.rsplit_once('/').unwrap_or((pplace, ""));
                new = format!("{bplace}/{}", decode_part(last));
                break;
            }
        }
    }
    memo.insert(id, new.clone());
    new
}

fn decode_path(suffix: &str) -> String {
    suffix
        .split('/')
        .map(decode_part)
        .collect::<Vec<_>>()
        .join("/")
}

/// One part made by the old encoding (`_` and two lowercase hex digits
/// per escaped byte; `_5f` alone the empty text) in the new form. A part
/// whose bytes are not UTF-8 once decoded, or that holds what the old
/// encoding never wrote (anything but ASCII letters, digits, `-`, `.`
/// and `_`: it is in the new form already), is left as it was.
fn decode_part(old: &str) -> String {
    if !old
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    {
        return old.to_owned();
    }
    if old == "_5f" {
        return escape_name_part("");
    }
    let bytes = old.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if bytes[i] == b'_' && i + 2 < bytes.len() && hex(bytes[i + 1]) && hex(bytes[i + 2]) {
            let pair = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
            out.push(u8::from_str_radix(pair, 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    match String::from_utf8(out) {
        Ok(text) => escape_name_part(&text),
        Err(_) => old.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_parts_decode_to_the_readable_form() {
        assert_eq!(decode_part("test_5f10.py"), "test_10.py");
        assert_eq!(decode_part("my_20notes.txt"), "my notes.txt");
        assert_eq!(decode_part("caf_c3_a9.txt"), "café.txt");
        assert_eq!(decode_part("bell_07"), "bell%07");
        assert_eq!(decode_part("__init__.py"), "__init__.py");
        assert_eq!(decode_part("_2e_2e"), "%2E%2E");
        assert_eq!(decode_part("_5f"), "%");
        assert_eq!(decode_part("a_25b"), "a%25b");
        assert_eq!(decode_part("x_2"), "x_2");
        assert_eq!(decode_part("100%25.txt"), "100%25.txt");
        assert_eq!(decode_part("my notes.txt"), "my notes.txt");
    }

    #[test]
    fn only_the_discovered_part_of_a_name_is_decoded() {
        let rows = [
            ("R", "local/my_20repo", false),
            ("W", "local/my_20repo/worktree", true),
            ("F", "local/my_20repo/worktree/my_20notes.txt", true),
            ("D", "local/my_5f20repo-devcontainer", true),
            ("U", "local/other_20", false),
        ]
        .map(|(i, n, a)| (i.to_owned(), n.to_owned(), a));
        let links = [("R", "W"), ("W", "F"), ("R", "D")].map(|(p, c)| (p.to_owned(), c.to_owned()));
        let plan = plan(&rows, &links);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert_eq!(plan["F"], "local/my_20repo/worktree/my notes.txt");
        assert_eq!(plan["D"], "local/my_20repo-devcontainer");
    }
}
