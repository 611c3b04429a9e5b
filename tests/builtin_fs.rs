//! The built-in filesystem handlers through the real binary, compared with
//! what the filesystem itself says (`std::fs`), and a plugin's git view
//! scoped to its own repository.

use crate::common;
use crate::common::{Env, faulty_home, git, rich_repo};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;

fn children_of(env: &Env, name: &str) -> Vec<Value> {
    let shown = env.run(&["resource", "show", name, "-o", "json"]).json();
    let ids: Vec<&str> = shown["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    ids.iter()
        .map(|id| env.run(&["resource", "show", id, "-o", "json"]).json())
        .collect()
}

fn add_dir(env: &Env, name: &str, rel: &str) -> common::Run {
    let path = env.path(rel);
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        name,
        "--path",
        path.to_str().unwrap(),
    ])
}

#[test]
fn a_directory_discovers_its_entries_as_the_filesystem_has_them() {
    let env = Env::new();
    rich_repo(&env.path("tree"));
    add_dir(&env, "local/tree", "tree").ok();
    let root = std::fs::canonicalize(env.path("tree")).unwrap();
    let found: BTreeMap<String, Value> = children_of(&env, "local/tree")
        .into_iter()
        .map(|c| (c["location"].as_str().unwrap().to_owned(), c))
        .collect();
    let mut expected = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ".git" {
            continue;
        }
        expected += 1;
        let path = entry.path();
        let child = &found[path.to_str().unwrap()];
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let ty = child["resource_type_name"].as_str().unwrap();
        let props = &child["properties"];
        if meta.file_type().is_symlink() {
            assert_eq!(ty, "fs-symlink", "{name}");
            let target = std::fs::read_link(&path).unwrap();
            assert_eq!(props["target"], target.to_str().unwrap());
        } else if meta.is_dir() {
            assert_eq!(ty, "fs-directory", "{name}");
        } else {
            let kind = if meta.nlink() > 1 {
                "fs-hardlink"
            } else {
                "fs-file"
            };
            assert_eq!(ty, kind, "{name}");
            assert_eq!(props["size"], meta.len().to_string());
            let digest = Sha256::digest(std::fs::read(&path).unwrap());
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(props["digest"], format!("sha256:{hex}"), "{name}");
            if kind == "fs-hardlink" {
                assert_eq!(props["links"], meta.nlink().to_string());
                assert_eq!(props["inode"], meta.ino().to_string());
            }
        }
        if !meta.file_type().is_symlink() {
            assert_eq!(
                props["mode"],
                format!("{:o}", meta.mode() & 0o7777),
                "{name}"
            );
        }
    }
    assert_eq!(found.len(), expected, "{found:?}");
    // Names: spaces and non-ASCII stay as they are.
    assert!(
        found
            .values()
            .any(|c| c["name"] == "local/tree/with space.txt")
    );
    assert!(
        found
            .values()
            .any(|c| c["name"] == "local/tree/naïve-ü.txt")
    );
}

#[test]
fn a_directory_hash_changes_with_its_entries_and_only_then() {
    let env = Env::new();
    env.write("d/a.txt", "a");
    env.write("d/b.txt", "b");
    add_dir(&env, "local/d", "d").ok();
    let hash = |env: &Env| {
        env.run(&["resource", "discover", "local/d", "-o", "json"])
            .json()["resource"]["content_hash"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let first = hash(&env);
    assert_eq!(hash(&env), first, "unchanged");
    env.write("d/c.txt", "c");
    let added = hash(&env);
    assert_ne!(added, first, "an entry added");
    std::fs::rename(env.path("d/c.txt"), env.path("d/e.txt")).unwrap();
    let renamed = hash(&env);
    assert_ne!(renamed, added, "renamed");
    std::fs::write(env.path("d/e.txt"), "longer now").unwrap();
    assert_ne!(hash(&env), renamed, "modified");
    std::fs::remove_file(env.path("d/e.txt")).unwrap();
    assert_eq!(hash(&env), first, "back as it was");
}

#[test]
fn recursive_discovery_finds_every_entry_and_rediscovery_keeps_them() {
    let env = Env::new();
    for i in 0..5 {
        for j in 0..4 {
            env.write(&format!("deep/d{i}/e{j}/f.txt"), "x");
        }
    }
    add_dir(&env, "local/deep", "deep").ok();
    let report = env
        .run(&[
            "resource",
            "discover",
            "--recursive",
            "local/deep",
            "-o",
            "json",
        ])
        .json();
    // Registration found d* (5) and e* (20); recursion adds the 20 files.
    assert_eq!(report["added"].as_array().unwrap().len(), 20);
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    assert_eq!(list.as_array().unwrap().len(), 1 + 5 + 20 + 20);
    let again = env
        .run(&[
            "resource",
            "discover",
            "--recursive",
            "local/deep",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(again["added"].as_array().unwrap().len(), 0);
    assert_eq!(again["kept"], 45);
    assert_eq!(again["updated"], 0, "nothing changed, nothing written");
    let stamp = |env: &Env, name: &str| {
        env.run(&["resource", "show", name, "-o", "json"]).json()["updated_at"].clone()
    };
    let file = "local/deep/d1/e2/f.txt";
    let untouched = "local/deep/d1/e1/f.txt";
    let (file_before, dir_before, untouched_before) = (
        stamp(&env, file),
        stamp(&env, "local/deep/d1/e2"),
        stamp(&env, untouched),
    );
    // One file edited: its digest and size, and its directory's hash.
    env.write("deep/d1/e2/f.txt", "longer");
    let edited = env
        .run(&[
            "resource",
            "discover",
            "--recursive",
            "local/deep",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(edited["updated"], 2, "{edited}");
    assert_ne!(stamp(&env, file), file_before);
    assert_ne!(stamp(&env, "local/deep/d1/e2"), dir_before);
    assert_eq!(stamp(&env, untouched), untouched_before, "not rewritten");
    let shown = env.run(&["resource", "show", file, "-o", "json"]).json();
    assert_eq!(shown["properties"]["size"], "6");
    std::fs::remove_dir_all(env.path("deep/d0")).unwrap();
    let gone = env
        .run(&["resource", "discover", "local/deep", "-o", "json"])
        .json();
    assert_eq!(gone["removed"].as_array().unwrap().len(), 1 + 4 + 4);
}

#[test]
fn a_path_that_is_not_what_the_type_says_is_refused() {
    let env = Env::new();
    env.write("f.txt", "x");
    env.run(&["resource", "list"]).ok();
    let before = env.state();
    add_dir(&env, "local/f", "f.txt").refused(&["is not a directory"]);
    let d = env.mkdir("d");
    env.run(&[
        "resource",
        "add",
        "fs-mount",
        "local/m",
        "--path",
        d.to_str().unwrap(),
    ])
    .refused(&["is not a mount point", "fs-directory"]);
    assert_eq!(env.state(), before);
}

#[test]
fn inspect_describes_a_directory_and_a_file_in_it() {
    let env = Env::new();
    env.write("d/notes.txt", "hello\n");
    env.mkdir("d/sub");
    add_dir(&env, "local/d", "d").ok();
    let dir = env.run(&["resource", "inspect", "local/d"]);
    let text = dir.ok();
    assert!(text.contains("2 entries: 1 directories, 1 files"), "{text}");
    let file = env.run(&["resource", "inspect", "--file", "notes.txt", "local/d"]);
    let text = file.ok();
    assert!(text.contains("size: 6 bytes"), "{text}");
    assert!(text.contains("digest: sha256:"), "{text}");
    // The same facts as data, checked against the filesystem.
    let dir = env
        .run(&["resource", "inspect", "local/d", "-o", "json"])
        .json();
    assert_eq!(dir["fields"]["entries"], "2");
    assert_eq!(dir["fields"]["directories"], "1");
    assert_eq!(dir["fields"]["bytes-in-files"], "6");
    let file = env
        .run(&[
            "resource",
            "inspect",
            "--file",
            "notes.txt",
            "local/d",
            "-o",
            "json",
        ])
        .json();
    let fields = &file["fields"];
    let path = env.path("d/notes.txt");
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert_eq!(fields["type"], "fs-file");
    assert_eq!(fields["size"], meta.len().to_string());
    assert_eq!(
        fields["mode"],
        format!(
            "{:o}",
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777
        )
    );
    assert_eq!(
        fields["digest"],
        "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    );
}

#[test]
fn a_failure_deep_in_discovery_writes_nothing() {
    let env = faulty_home(&["Fails"]);
    let yaml = "name: test/parent\nresource_kind: physical\nuser_addable: true\n\
                cli_args:\n  - {name: path, type: path, required: true}\n\
                child_types: [test/fails]\nhandler: test.faulty:ChildAt\n";
    let file = env.write("parent.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("loc/type.txt", "test/fails");
    env.write("loc/where.txt", "sub");
    let before = env.state();
    let loc = env.path("loc");
    env.run(&[
        "resource",
        "add",
        "test/parent",
        "local/p",
        "--path",
        loc.to_str().unwrap(),
    ])
    .refused(&["handler test.faulty:Fails refused discover"]);
    assert_eq!(env.state(), before);
}

#[test]
fn a_plugin_asking_git_sees_only_its_own_repository() {
    let env = faulty_home(&["GitProbe"]);
    let mine = env.path("mine");
    let other = env.path("other");
    rich_repo(&mine);
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q"]);
    std::fs::write(other.join("secret.txt"), "secret\n").unwrap();
    git(&other, &["add", "-A"]);
    git(
        &other,
        &["commit", "-q", "-m", "only in the other repository"],
    );
    let theirs = git(&other, &["rev-parse", "HEAD"]);
    std::fs::write(mine.join("other.txt"), &theirs).unwrap();
    env.run(&[
        "resource",
        "add",
        "test/gitprobe",
        "local/probe",
        "--path",
        mine.to_str().unwrap(),
    ])
    .ok();
    let report = env.run(&["resource", "inspect", "local/probe"]);
    let text = report.ok();
    let real = std::fs::canonicalize(&mine).unwrap();
    assert!(
        text.contains(&format!("git-dir: {}/.git", real.display())),
        "{text}"
    );
    assert!(text.contains("refs: feature/x fix-ü main"), "{text}");
    assert!(text.contains("other commit: refused"), "{text}");
    assert!(text.contains("climb: refused GitError::Invalid"), "{text}");
    assert!(!text.contains("ALLOWED"), "{text}");
}

/// A directory with more entries than one discovery may answer is refused
/// naming that limit, before the handler gathers them — gathering them
/// first ran out of the call's memory (here a small one, as 200,000
/// entries do in the default 128 MiB), which named no limit that helps.
/// (A directory of over 100,000 entries, too big for the host's one-call
/// listing, is counted through WASI the same way; not made here, as
/// creating that many files takes half a minute.)
#[test]
fn a_directory_with_more_entries_than_a_discovery_answers_is_refused_naming_the_limit() {
    let env = Env::new();
    let dir = env.mkdir("wide");
    // One more than the 100,000 children one answer may hold (empty
    // files: a few seconds to make).
    for i in 0..100_001 {
        std::fs::File::create(dir.join(format!("f{i}"))).unwrap();
    }
    let wide = dir.to_str().unwrap();
    let refused = env.run(&[
        "--handler-memory",
        "16",
        "resource",
        "add",
        "fs-directory",
        "local/wide",
        "--path",
        wide,
    ]);
    refused.refused(&[
        "holds more than 100000 entries",
        "the most children one discovery may answer",
        "register its subdirectories",
    ]);
    assert_eq!(
        env.count("SELECT count(*) FROM resources WHERE namespaced_name LIKE 'local/%'"),
        0
    );
}
