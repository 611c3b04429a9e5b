//! What every killed run must leave in the home, whatever the operation.

use crate::common::Env;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What every run must leave: SQLite's integrity check `ok` and no
/// dangling foreign key; every plugin file and compile-cache entry either
/// what its name and seal say or not trusted. Answers how many temp files
/// the two directories hold (left by kills; never a name that is loaded,
/// and removed by the next write there).
pub fn check_home(env: &Env) -> usize {
    if env.postgres.is_none() && env.db().exists() {
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(integrity, "ok", "PRAGMA integrity_check");
        let dangling: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(dangling, 0, "PRAGMA foreign_key_check");
    }
    check_log(env);
    let home = env.home.path();
    let mut temps = 0;
    for dir in [home.join("plugins"), home.join("cache/components")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') && name.contains(".tmp-") {
                temps += 1;
            } else if let Some(sha) = name.strip_suffix(".wasm") {
                let bytes = std::fs::read(&path).unwrap();
                assert_eq!(
                    resource_host::digest::sha256_hex(&bytes),
                    sha,
                    "{} holds other bytes than its name says",
                    path.display()
                );
                assert_sealed_truly(&path, &bytes);
            } else if name.ends_with(".cwasm") {
                assert_sealed_truly(&path, &std::fs::read(&path).unwrap());
            } else {
                assert!(name.ends_with(".seal"), "unexpected {}", path.display());
            }
        }
    }
    temps
}

/// A seal that vouches for `path` as it is now (same identity) must name
/// the digest of its bytes: else the host would trust bytes nobody checked.
fn assert_sealed_truly(path: &Path, bytes: &[u8]) {
    let seal = PathBuf::from(format!("{}.seal", path.display()));
    let Ok(text) = std::fs::read_to_string(&seal) else {
        return;
    };
    let parts: Vec<&str> = text.trim_end().splitn(4, ' ').collect();
    assert_eq!(parts.len(), 4, "a seal of four parts: {text:?}");
    let m = std::fs::symlink_metadata(path).unwrap();
    let identity = format!(
        "{} {} {} {}.{} {}.{}",
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec()
    );
    if parts[3] == identity {
        assert_eq!(
            parts[2],
            resource_host::digest::sha256_hex(bytes),
            "the seal of {} vouches for bytes it does not hold",
            path.display()
        );
    }
}

/// The event log is whole: its numbers gap-free from 1 (the crash suites
/// never prune), each write's events one run of them.
fn check_log(env: &Env) {
    if env.postgres.is_none() && !env.db().exists() {
        return;
    }
    let count = env.count("SELECT count(*) FROM events");
    let max = env.count("SELECT COALESCE(MAX(seq), 0) FROM events");
    assert_eq!(
        count, max,
        "the event log has gaps: {count} events up to {max}"
    );
    let bad_txn = env.count("SELECT count(*) FROM events WHERE txn > seq OR txn < 1");
    assert_eq!(bad_txn, 0, "events whose write began after them");
}

/// How many events of `op` the log holds.
pub fn events_of(env: &Env, op: &str) -> i64 {
    env.count(&format!("SELECT count(*) FROM events WHERE op = '{op}'"))
}
