//! Part 2's baseline: the same tree walked, hashed and inserted natively
//! (no handler, no sandbox), into a registry-shaped SQLite table.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

struct Entry {
    path: PathBuf,
    name: String,
    kind: &'static str,
    properties: String,
    hash: Option<String>,
}

fn hex_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", resource_host::digest::sha256_hex(bytes))
}

/// What the fs component records of one entry, natively.
fn native_entry(path: PathBuf) -> Entry {
    let meta = std::fs::symlink_metadata(&path).expect("lstat");
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let modified = meta
        .modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let (kind, hash) = if meta.is_dir() {
        ("fs-directory", None)
    } else {
        let bytes = std::fs::read(&path).expect("read");
        ("fs-file", Some(hex_digest(&bytes)))
    };
    let mut properties = format!(
        "{{\"size\":\"{}\",\"modified\":\"{modified}\",\"mode\":\"{:o}\"",
        meta.len(),
        meta.mode() & 0o7777
    );
    if let Some(h) = &hash {
        properties.push_str(&format!(",\"digest\":\"{h}\""));
    }
    properties.push('}');
    Entry {
        path,
        name,
        kind,
        properties,
        hash,
    }
}

/// A directory's entries, sorted, and its hash over name, kind, size and
/// mtime of each (as the fs component defines it).
fn native_dir(dir: &Path) -> (Vec<Entry>, String) {
    let mut entries: Vec<Entry> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| native_entry(e.expect("entry").path()))
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut text = String::new();
    for e in &entries {
        let meta = std::fs::symlink_metadata(&e.path).expect("lstat");
        text.push_str(&format!(
            "{}\0{}\0{}\0{:?}\n",
            e.name,
            e.kind,
            meta.len(),
            meta.modified().ok()
        ));
    }
    (entries, hex_digest(text.as_bytes()))
}

/// Walk `root` and insert every entry below it (resources and links) in
/// one transaction; answers the number of resources in the file.
pub fn native_walk_and_insert(db: &Path, root: &Path) -> usize {
    let mut conn = rusqlite::Connection::open(db).expect("open db");
    // The registry's own settings (src/store/mod.rs).
    conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        .expect("pragmas");
    let tx = conn.transaction().expect("tx");
    let mut ids = ulid::Generator::new();
    let now = "2026-11-30T00:00:00.000Z";
    let root_id = ids.generate().expect("ulid").to_string();
    {
        let mut resource = tx
            .prepare_cached(
                "INSERT INTO resources (resource_id, namespaced_name, namespace, type_name,
                   resource_kind, location, read_only, auto_discovered, content_hash,
                   properties_json, created_at, updated_at)
                 VALUES (?1, ?2, 'local', ?3, 'physical', ?4, 0, ?5, ?6, ?7, ?8, ?8)",
            )
            .expect("prepare");
        let mut link = tx
            .prepare_cached(
                "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at)
                 VALUES (?1, ?2, 1, ?3)",
            )
            .expect("prepare");
        let (entries, root_hash) = native_dir(root);
        resource
            .execute(rusqlite::params![
                root_id,
                "local/tree",
                "fs-directory",
                root.to_str(),
                0,
                root_hash,
                "{}",
                now
            ])
            .expect("insert root");
        let mut queue = vec![(root_id, "local/tree".to_owned(), entries)];
        while let Some((parent_id, parent_name, entries)) = queue.pop() {
            for e in entries {
                let id = ids.generate().expect("ulid").to_string();
                let name = format!("{parent_name}/{}", e.name);
                let (below, hash) = if e.kind == "fs-directory" {
                    let (below, hash) = native_dir(&e.path);
                    (Some(below), Some(hash))
                } else {
                    (None, e.hash.clone())
                };
                resource
                    .execute(rusqlite::params![
                        id,
                        name,
                        e.kind,
                        e.path.to_str(),
                        1,
                        hash,
                        e.properties,
                        now
                    ])
                    .expect("insert");
                link.execute(rusqlite::params![parent_id, id, now])
                    .expect("link");
                if let Some(below) = below {
                    queue.push((id, name, below));
                }
            }
        }
    }
    let n: i64 = tx
        .query_row("SELECT count(*) FROM resources", [], |r| r.get(0))
        .expect("count");
    tx.commit().expect("commit");
    n as usize
}
