//! Resource exhaustion: the home on a filesystem filled to the last byte —
//! a small tmpfs mounted over the test's home when this process may mount
//! one (as root; elsewhere the test says SKIPPED and passes, like the
//! full-disk test in `sandboxes/full_disk.rs`).
//!
//! What runs out is the home's disk: on SQLite the registry file, the
//! plugin store and the compile cache; on PostgreSQL the registry is on
//! the server, so only the plugin store and the compile cache. Reading
//! works throughout; a registration (SQLite) and a `plugin add` are
//! refused naming the full disk and leave the registry exactly as it was
//! and no file behind; a handler call whose compile-cache entry cannot be
//! written still works (the cache only costs speed) and leaves no entry;
//! once space is freed the same commands work and the cache is written.

use crate::common::{Env, backend, tmpfs, wasm};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Fill the filesystem `dir` is on to the last byte with `dir/filler`.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    for chunk in [1 << 20, 1 << 16, 4096, 512, 1] {
        let bytes = vec![0u8; chunk];
        while file.write_all(&bytes).and_then(|()| file.flush()).is_ok() {}
    }
    let err = file.write_all(b"x").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(28), "ENOSPC: {err}");
    path
}

/// The compile cache's entries (and seals, and temp files) for the
/// component `sha`.
fn cached(env: &Env, sha: &str) -> Vec<String> {
    let dir = env.home.path().join("cache/components");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(sha))
        .collect();
    names.sort();
    names
}

fn sha_of(path: &Path) -> String {
    resource_host::digest::sha256_hex(&std::fs::read(path).unwrap())
}

#[test]
fn a_full_home_refuses_writes_cleanly_and_works_again_once_space_is_freed() {
    let env = Env::new();
    let Some(_tmpfs) = tmpfs(env.home.path(), "16m") else {
        crate::common::skipped(
            "a_full_home_refuses_writes_cleanly_and_works_again_once_space_is_freed",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let package = wasm("python_package.wasm");
    let package_sha = sha_of(&package);
    let type_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/plugins/examples/python-package/python-package.yaml"
    );
    env.run(&["plugin", "add", package.to_str().unwrap()]).ok();
    env.run(&["resource", "type", "add", type_file]).ok();
    env.write("pkg/pyproject.toml", "[project]\nname = \"acme\"\n");
    let pkg = env.path("pkg");
    env.add("myteam/python-package", "local/pkg", &pkg, &[])
        .ok();
    let small = env.mkdir("small");
    env.add("fs-directory", "local/small", &small, &[]).ok();
    // The package's compiled form goes, so the next handler call must
    // write the cache again.
    for name in cached(&env, &package_sha) {
        std::fs::remove_file(env.home.path().join("cache/components").join(name)).unwrap();
    }
    let big = env.mkdir("big");
    for i in 0..300 {
        std::fs::write(big.join(format!("f{i}")), format!("{i}\n")).unwrap();
    }
    let other = wasm("faulty.wasm");
    let other_sha = sha_of(&other);
    let before = env.state();
    // (The check's own connection took SQLite's index away; a command
    // puts it back, as every command leaves it.)
    env.run(&["resource", "list"]).ok();

    let filler = fill(env.home.path());

    // Reading works.
    env.run(&["resource", "list"]).ok();
    env.run(&["resource", "show", "local/pkg"]).ok();
    // A registration: on SQLite refused naming the full disk; on
    // PostgreSQL the registry is on the server, so it is written there.
    let registered = env.add("fs-directory", "local/big", &big, &[]);
    let before = if backend() == "sqlite" {
        registered.refused(&["the disk holding the registry is full", "free some space"]);
        before
    } else {
        registered.ok();
        env.state()
    };
    // A plugin add: refused naming the full disk (after the warning that
    // its compiled form could not be cached), nothing in the store.
    let added = env.run(&["plugin", "add", other.to_str().unwrap()]);
    assert_eq!(added.code, 1, "{added:?}");
    let (last, warnings) = added
        .stderr
        .trim_end()
        .lines()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, w)| (l.to_string(), w.to_vec()))
        .unwrap();
    assert!(
        last.starts_with("agents: error: cannot add plugin"),
        "{last}"
    );
    assert!(
        last.contains("writing plugin file") && last.contains("No space left on device"),
        "{last}"
    );
    assert!(
        warnings
            .iter()
            .all(|w| w.starts_with("agents: warn: [plugin] cannot write compile cache")),
        "{warnings:?}"
    );
    assert_eq!(
        env.plugin_files(),
        [
            format!("{package_sha}.wasm"),
            format!("{package_sha}.wasm.seal")
        ]
    );
    assert_eq!(cached(&env, &other_sha), Vec::<String>::new());
    // A handler call that must compile: it works, says the cache could
    // not be written, and leaves no entry and no temp file.
    let inspected = env.run(&["resource", "inspect", "local/pkg"]);
    inspected.ok();
    assert!(
        inspected.stderr.contains("cannot write compile cache")
            && inspected.stderr.contains("No space left on device"),
        "{}",
        inspected.stderr
    );
    assert_eq!(cached(&env, &package_sha), Vec::<String>::new());
    assert_eq!(env.state(), before, "the registry is as it was");

    // Space freed: the same commands work, and the cache is written.
    std::fs::remove_file(filler).unwrap();
    if backend() == "sqlite" {
        env.add("fs-directory", "local/big", &big, &[]).ok();
    }
    env.run(&["plugin", "add", other.to_str().unwrap()]).ok();
    let inspected = env.run(&["resource", "inspect", "local/pkg"]);
    inspected.ok();
    assert_eq!(inspected.stderr, "");
    assert_eq!(cached(&env, &package_sha).len(), 2, "an entry and its seal");
    assert_eq!(
        env.run(&["resource", "list", "-o", "json"])
            .json()
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("local/big")))
            .count(),
        301
    );
}

/// A registration big enough that SQLite spills its pages to the log
/// before the commit — where a full disk makes SQLite roll the whole
/// transaction back by itself — is refused with the documented disk-full
/// message, not with the rollback that found no transaction left.
#[test]
fn a_large_registration_on_a_full_disk_says_the_disk_is_full() {
    let env = Env::new();
    if backend() != "sqlite" {
        return; // the registry's writes go to the server
    }
    let Some(_tmpfs) = tmpfs(env.home.path(), "16m") else {
        crate::common::skipped(
            "a_large_registration_on_a_full_disk_says_the_disk_is_full",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };
    let tree = env.mkdir("tree");
    for d in 0..100 {
        let dir = tree.join(format!("d{d}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..200 {
            std::fs::write(dir.join(format!("f{f}")), "").unwrap();
        }
    }
    env.run(&["resource", "list"]).ok();
    let before = env.state();
    env.run(&["resource", "list"]).ok();
    let _filler = fill(env.home.path());
    let refused = env.add("fs-directory", "local/tree", &tree, &[]);
    assert_eq!(refused.code, 1, "{refused:?}");
    // (After the warning that the compiled handler could not be cached.)
    let last = refused.stderr.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("agents: error: the disk holding the registry is full")
            && last.contains("free some space"),
        "{last}"
    );
    assert_eq!(env.state(), before, "the registry is as it was");
}
