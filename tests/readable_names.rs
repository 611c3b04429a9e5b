//! Names that read like what they name: a discovered name keeps
//! the file's name as it is and escapes only what cannot be shown or typed
//! as `%XX`; `show` finds each by that name; names the old `_XX` encoding
//! made are renamed once when a registry is opened (ids and links kept);
//! a name a person chooses takes letters of any script, normalised to NFC.

use crate::common::{Env, backend, git, skipped};
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Every resource's name → id.
fn names(env: &Env) -> BTreeMap<String, String> {
    env.run(&["resource", "list", "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            Some((
                r["name"].as_str()?.to_owned(),
                r["resource_id"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// `local/notes`: a directory of files whose names need no escaping but
/// did, and one with a control character.
fn notes(env: &Env) {
    for f in [
        "test_10.py",
        "my notes.txt",
        "café.txt",
        "bell\u{7}.txt",
        "100%.txt",
    ] {
        env.write(&format!("notes/{f}"), "x\n");
    }
    env.add("fs-directory", "local/notes", &env.path("notes"), &[])
        .ok();
}

#[test]
fn discovered_names_keep_file_names_and_escape_only_what_cannot_be_shown() {
    let env = Env::new();
    notes(&env);
    let found = names(&env);
    for name in [
        "local/notes/test_10.py",
        "local/notes/my notes.txt",
        "local/notes/café.txt",
        "local/notes/bell%07.txt",
        "local/notes/100%25.txt",
    ] {
        assert!(found.contains_key(name), "{name} missing from {found:?}");
        let shown = env.run(&["resource", "show", name, "-o", "json"]).json();
        assert_eq!(shown["resource_id"].as_str(), Some(found[name].as_str()));
    }
    // As a person reads it: the name as it is, quoted by nothing.
    let text = env
        .run(&["resource", "show", "local/notes/my notes.txt"])
        .ok()
        .to_owned();
    assert!(text.contains("local/notes/my notes.txt"), "{text}");
    // Rediscovery keeps every id.
    env.run(&["resource", "discover", "local/notes"]).ok();
    assert_eq!(names(&env), found);
}

#[test]
fn a_git_file_name_that_is_not_utf8_reads_back_as_percent_escapes() {
    let env = Env::new();
    let repo = env.path("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let raw = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(repo.join(raw), "latin-1\n").unwrap();
    std::fs::write(repo.join("README.md"), "# r\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    env.add("git-checkout", "local/r", &repo, &["--branch", "main"])
        .ok();
    env.run(&[
        "resource",
        "discover",
        "--recursive",
        "local/r/git/branch/main",
    ])
    .ok();
    let found = names(&env);
    let latin = found
        .keys()
        .find(|n| n.ends_with("/caf%E9.txt"))
        .unwrap_or_else(|| panic!("no caf%E9.txt in {found:?}"));
    let shown = env.run(&["resource", "show", latin, "-o", "json"]).json();
    assert_eq!(shown["resource_type_name"], "git-tree-entry");
    assert_eq!(shown["resource_id"].as_str(), Some(found[latin].as_str()));
    // The work tree's directory leaves the file out (a location is text;
    // see docs/user-guide.md) and lists the rest.
    assert!(
        found.contains_key("local/r/worktree/README.md"),
        "{found:?}"
    );
    assert!(
        !found.keys().any(|n| n.starts_with("local/r/worktree/caf")),
        "{found:?}"
    );
}

/// A registry file the previous binary (main at 01484fb, schema 8) wrote:
/// `fs-directory local/notes` over `test_10.py`, `my notes.txt`,
/// `café.txt`, `bell\x07.txt`, `__init__.py`, and `fs-directory
/// local/my_20dir` (a name a person chose) over `a b/x_2e.txt`, both
/// discovered. Its locations are in a directory that no longer exists.
const OLD_REGISTRY: &str = "tests/data/registry-v8-old-names.db";

#[test]
fn a_registry_the_previous_binary_made_opens_with_readable_names() {
    let env = Env::new();
    if backend() == "postgres" {
        skipped(
            "a_registry_the_previous_binary_made_opens_with_readable_names",
            "the file is SQLite; the next test renames on both backends",
        );
        return;
    }
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(OLD_REGISTRY),
        env.db(),
    )
    .unwrap();
    let before: Vec<String> = env.strings(
        "SELECT resource_id || ' ' || namespaced_name FROM resources ORDER BY resource_id",
    );
    let links_before =
        env.strings("SELECT parent_id || '>' || child_id FROM resource_links ORDER BY 1");
    assert!(
        before
            .iter()
            .any(|r| r.ends_with(" local/notes/my_20notes.txt")),
        "{before:?}"
    );
    let after = names(&env);
    let renamed: BTreeMap<&str, &str> = before
        .iter()
        .map(|r| r.split_once(' ').unwrap())
        .map(|(id, old)| {
            (
                old,
                after.iter().find(|(_, i)| *i == id).unwrap().0.as_str(),
            )
        })
        .collect();
    assert_eq!(
        renamed,
        BTreeMap::from([
            ("local/my_20dir", "local/my_20dir"),
            ("local/my_20dir/a_20b", "local/my_20dir/a b"),
            (
                "local/my_20dir/a_20b/x_5f2e.txt",
                "local/my_20dir/a b/x_2e.txt"
            ),
            ("local/notes", "local/notes"),
            ("local/notes/__init__.py", "local/notes/__init__.py"),
            ("local/notes/bell_07.txt", "local/notes/bell%07.txt"),
            ("local/notes/caf_c3_a9.txt", "local/notes/café.txt"),
            ("local/notes/my_20notes.txt", "local/notes/my notes.txt"),
            ("local/notes/test_5f10.py", "local/notes/test_10.py"),
        ])
    );
    let links_after =
        env.strings("SELECT parent_id || '>' || child_id FROM resource_links ORDER BY 1");
    assert_eq!(links_after, links_before);
    env.run(&["resource", "show", "local/notes/café.txt"]).ok();
}

#[test]
fn names_in_the_old_encoding_are_renamed_once_on_either_backend() {
    let env = Env::new();
    notes(&env);
    let readable = names(&env);
    // Put the names back as the previous binary wrote them and forget
    // that migration 9 and every later one ran.
    env.sql(
        "UPDATE resources SET namespaced_name = 'local/notes/test_5f10.py' \
             WHERE namespaced_name = 'local/notes/test_10.py';
         UPDATE resources SET namespaced_name = 'local/notes/my_20notes.txt' \
             WHERE namespaced_name = 'local/notes/my notes.txt';
         UPDATE resources SET namespaced_name = 'local/notes/caf_c3_a9.txt' \
             WHERE namespaced_name = 'local/notes/café.txt';",
    );
    // (And what the later migrations add, which they add again.)
    env.sql(
        "DROP TABLE events;
         DROP TABLE plugin_provenance;
         DROP INDEX resources_name_skeleton;
         ALTER TABLE resources DROP COLUMN name_skeleton;
         ALTER TABLE resources DROP COLUMN registered_face;
         ALTER TABLE resources DROP COLUMN registered_by;
         ALTER TABLE resource_links DROP COLUMN linked_face;
         ALTER TABLE resource_links DROP COLUMN linked_by;",
    );
    env.sql(if backend() == "postgres" {
        "DELETE FROM agents_schema_migrations WHERE version >= 9"
    } else {
        "PRAGMA user_version = 8"
    });
    assert!(names(&env).contains_key("local/notes/café.txt"));
    assert_eq!(names(&env), readable);
}

#[test]
fn a_chosen_name_takes_letters_of_any_script_in_nfc() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("d")).unwrap();
    let decomposed = "local/cafe\u{301}";
    env.add("fs-directory", decomposed, &env.path("d"), &[])
        .ok();
    env.run(&["resource", "show", "local/caf\u{e9}"]).ok();
    env.add("fs-directory", "local/my repo", &env.path("d"), &[])
        .usage(&["letters and digits (any script)"]);
}

#[test]
fn an_invalid_name_is_a_usage_error_wherever_it_is_given() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("d")).unwrap();
    env.add("fs-directory", "local/a\tb", &env.path("d"), &[])
        .usage(&["not valid"]);
    env.run(&["resource", "show", "local/a\tb"])
        .usage(&["neither a resource id"]);
    env.run(&["resource", "remove", "Local/x"])
        .usage(&["neither a resource id"]);
}
