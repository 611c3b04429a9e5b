//! `agents resource …` end to end: the reference's "Working with
//! Resources" examples and every refusal (many processes at once:
//! `concurrency`).

use crate::common;
use crate::common::{Env, PYTHON_PACKAGE_YAML, git_repo};

/// The reference's walkthrough: register a checkout and a directory, list,
/// filter, show, tree, link, remove.
#[test]
fn the_reference_walkthrough_works_as_written() {
    let env = Env::new();
    let repo = env.path("repos/api-service");
    git_repo(&repo);
    let config = env.mkdir("etc/myapp");
    let sub = env.mkdir("repos/api-service/src");

    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/api-repo",
        "--path",
        repo.to_str().unwrap(),
        "--branch",
        "main",
    ])
    .ok();
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/config-dir",
        "--path",
        config.to_str().unwrap(),
    ])
    .ok();
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/some-subdir",
        "--path",
        sub.to_str().unwrap(),
    ])
    .ok();

    let all = env.run(&["resource", "list"]);
    for name in ["local/api-repo", "local/config-dir", "local/some-subdir"] {
        assert!(all.ok().contains(name), "{}", all.stdout);
    }
    let checkouts = env.run(&["resource", "list", "--type", "git-checkout"]);
    assert!(checkouts.ok().contains("local/api-repo"));
    assert!(!checkouts.stdout.contains("local/config-dir"));

    let shown = env
        .run(&["resource", "show", "local/api-repo", "-o", "json"])
        .json();
    assert_eq!(shown["resource_type_name"], "git-checkout");
    assert_eq!(shown["classification"], "physical");
    let canonical = std::fs::canonicalize(&repo).unwrap();
    assert_eq!(shown["location"], canonical.to_str().unwrap());
    assert_eq!(shown["properties"]["branch"], "main");
    assert_eq!(shown["capabilities"]["writable"], true);

    env.run(&[
        "resource",
        "link-child",
        "local/api-repo",
        "local/some-subdir",
    ])
    .ok();
    let tree = env.run(&["resource", "tree", "--depth", "3", "local/api-repo"]);
    let text = tree.ok();
    assert!(text.starts_with("local/api-repo (git-checkout)"), "{text}");
    assert!(
        text.contains("└── local/some-subdir (fs-directory)"),
        "{text}"
    );

    env.run(&["resource", "remove", "local/api-repo"]).ok();
    let after = env.run(&["resource", "list", "-o", "json"]).json();
    let names: Vec<&str> = after
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // The subdir was registered by hand: it stays, unlinked (with what its
    // own discovery found in it).
    assert_eq!(
        names,
        [
            "local/config-dir",
            "local/some-subdir",
            "local/some-subdir/main.py"
        ]
    );
    let sub = env
        .run(&["resource", "show", "local/some-subdir", "-o", "json"])
        .json();
    assert_eq!(sub["parents"], serde_json::json!([]));
}

#[test]
fn resource_json_has_exactly_the_spec_fields() {
    let env = Env::new();
    let dir = env.mkdir("d");
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/d",
        "--path",
        dir.to_str().unwrap(),
    ])
    .ok();
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    let one = &list.as_array().unwrap()[0];
    let mut keys: Vec<&str> = one
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    let mut expected = vec![
        "resource_id",
        "name",
        "resource_type_name",
        "classification",
        "description",
        "location",
        "sandbox_strategy",
        "content_hash",
        "parents",
        "children",
        "properties",
        "capabilities",
        "created_at",
        "updated_at",
        "auto_discovered",
        "read_only",
    ];
    expected.sort();
    assert_eq!(keys, expected);
    let id = one["resource_id"].as_str().unwrap();
    assert_eq!(id.len(), 26);
    // show accepts the ULID as well as the name
    let by_id = env.run(&["resource", "show", id, "-o", "json"]).json();
    assert_eq!(by_id["name"], "local/d");
}

#[test]
fn list_type_filter_includes_subtypes_unless_exact() {
    let env = Env::new();
    env.run(&[
        "resource",
        "add",
        "container-instance",
        "local/c",
        "--image",
        "alpine",
    ])
    .ok();
    env.run(&["resource", "add", "devcontainer-instance", "local/dc"])
        .ok();
    let with_subtypes = env
        .run(&[
            "resource",
            "list",
            "--type",
            "container-instance",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(with_subtypes.as_array().unwrap().len(), 2);
    let exact = env
        .run(&[
            "resource",
            "list",
            "--type",
            "container-instance",
            "--exact",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(exact.as_array().unwrap().len(), 1);
    assert_eq!(exact[0]["name"], "local/c");
}

#[test]
fn type_flags_are_checked_against_the_type() {
    let env = Env::new();
    let dir = env.mkdir("d");
    let d = dir.to_str().unwrap();
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/a",
        "--path",
        d,
        "--colour",
        "red",
    ])
    .usage(&[
        "unexpected argument '--colour'",
        "the flags of type fs-directory: --path",
    ]);
    env.run(&["resource", "add", "fs-directory", "local/a", "--pth", d])
        .usage(&["a similar argument exists: '--path'"]);
    env.run(&["resource", "add", "fs-directory", "local/a"])
        .usage(&["required arguments were not provided", "--path <path>"]);
    env.run(&["resource", "add", "fs-directory", "--path=d", "local/eq"])
        .ok();
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/a",
        "--path",
        "/no/such/dir",
    ])
    .refused(&["--path /no/such/dir", "No such file or directory"]);
    // relative paths resolve against the working directory and are stored canonical
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/rel",
        "--path",
        "d/../d",
    ])
    .ok();
    let shown = env
        .run(&["resource", "show", "local/rel", "-o", "json"])
        .json();
    assert_eq!(
        shown["location"],
        std::fs::canonicalize(&dir).unwrap().to_str().unwrap()
    );
    let help = env.run(&["resource", "add", "git-checkout", "--help"]);
    assert!(help.ok().contains("--branch <string>"), "{}", help.stdout);
}

#[test]
fn every_refusal_leaves_the_registry_unchanged() {
    let env = Env::new();
    let dir = env.mkdir("d");
    let d = dir.to_str().unwrap();
    env.run(&["resource", "add", "fs-directory", "local/a", "--path", d])
        .ok();
    env.run(&["resource", "add", "fs-directory", "local/b", "--path", d])
        .ok();
    env.run(&["resource", "add", "fs-directory", "local/c", "--path", d])
        .ok();
    // A `git` resource needs a repository (its handler checks).
    common::git_repo(&dir);
    env.run(&["resource", "add", "git", "local/g", "--path", d])
        .ok();
    env.run(&["resource", "link-child", "local/a", "local/b"])
        .ok();
    env.run(&["resource", "link-child", "local/b", "local/c"])
        .ok();
    let before = env.snapshot();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["resource", "add", "no-such-type", "local/x"],
            &["no resource type no-such-type"],
        ),
        (
            &["resource", "add", "fs-file", "local/x"],
            &["fs-file is not user-addable", "fs-directory"],
        ),
        (
            &["resource", "add", "file", "local/x"],
            &["file is not user-addable", "virtual"],
        ),
        (
            &[
                "resource",
                "add",
                "fs-directory",
                "local/x",
                "--path",
                "/nope",
            ],
            &["No such file or directory"],
        ),
        (
            &["resource", "add", "fs-directory", "local/a", "--path", d],
            &["local/a already exists"],
        ),
        (
            &["resource", "show", "local/nope"],
            &["no resource named or with id \"local/nope\""],
        ),
        (
            &["resource", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
            &["01ARZ3NDEKTSV4RRFFQ69G5FAV"],
        ),
        (
            &["resource", "link-child", "local/a", "local/a"],
            &["local/a to itself"],
        ),
        (
            &["resource", "link-child", "local/a", "local/b"],
            &["local/a is already a parent of local/b"],
        ),
        (
            &["resource", "link-child", "local/c", "local/a"],
            &["cycle", "local/c", "local/a"],
        ),
        (
            &["resource", "link-child", "local/g", "local/a"],
            &["local/g (git)", "local/a (fs-directory)", "child_types"],
        ),
        (
            &["resource", "unlink-child", "local/a", "local/c"],
            &["local/a is not a parent of local/c"],
        ),
        (&["resource", "remove", "local/nope"], &["local/nope"]),
        (&["resource", "tree", "local/nope"], &["local/nope"]),
        (
            &[
                "resource",
                "add",
                "fs-directory",
                "local/x",
                "--path",
                d,
                "--sandbox-strategy",
                "git_worktree",
            ],
            &["git_worktree isolates git checkouts"],
        ),
    ];
    for (args, parts) in cases {
        env.run(args).refused(parts);
        assert_eq!(env.snapshot(), before, "{args:?} changed the registry");
    }
    let usage: &[(&[&str], &[&str])] = &[
        (
            &["resource", "add", "fs-directory", "local/x"],
            &["--path <path>"],
        ),
        (
            &[
                "resource",
                "add",
                "fs-directory",
                "local/x",
                "--path",
                d,
                "--sandbox-strategy",
                "magic",
            ],
            &["invalid value 'magic'", "copy_on_write"],
        ),
        (&["resource", "show", "nope"], &["neither a resource id"]),
        // A malformed name is a usage error wherever it is given.
        (
            &["resource", "add", "fs-directory", "bad name", "--path", d],
            &["resource name \"bad name\" is not valid"],
        ),
        (
            &["resource", "show", "bad name"],
            &["neither a resource id"],
        ),
    ];
    for (args, parts) in usage {
        env.run(args).usage(parts);
        assert_eq!(env.snapshot(), before, "{args:?} changed the registry");
    }
}

#[test]
fn remove_takes_discovered_children_only_when_no_other_parent_keeps_them() {
    // Discovered children come from handlers (the plugin tests cover
    // those); here the DAG part: a hand-made child survives, unlinked.
    let env = Env::new();
    let d = env.mkdir("d");
    let d = d.to_str().unwrap();
    env.run(&["resource", "add", "fs-directory", "local/top", "--path", d])
        .ok();
    env.run(&["resource", "add", "fs-directory", "local/kid", "--path", d])
        .ok();
    env.run(&["resource", "link-child", "local/top", "local/kid"])
        .ok();
    let dry = env.run(&["resource", "remove", "--dry-run", "local/top"]);
    assert!(
        dry.ok().contains("would remove local/top"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout.contains("would keep local/kid"),
        "{}",
        dry.stdout
    );
    assert_eq!(
        env.run(&["resource", "list", "-o", "json"])
            .json()
            .as_array()
            .unwrap()
            .len(),
        2
    );
    env.run(&["resource", "remove", "local/top"]).ok();
    let left = env.run(&["resource", "list", "-o", "json"]).json();
    assert_eq!(left.as_array().unwrap().len(), 1);
}

#[test]
fn a_custom_type_attaches_below_a_built_in_it_names() {
    let env = Env::new();
    let file = env.write("t.yaml", PYTHON_PACKAGE_YAML);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    let repo = env.path("repo");
    git_repo(&repo);
    let r = repo.to_str().unwrap();
    env.run(&["resource", "add", "git-checkout", "local/repo", "--path", r])
        .ok();
    env.run(&[
        "resource",
        "add",
        "myteam/python-package",
        "local/pkg",
        "--path",
        r,
    ])
    .ok();
    env.run(&["resource", "link-child", "local/repo", "local/pkg"])
        .ok();
    let tree = env
        .run(&[
            "resource",
            "tree",
            "--depth",
            "1",
            "local/repo",
            "-o",
            "json",
        ])
        .json();
    let children: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(children.contains(&"local/pkg"), "{children:?}");
}

mod flags;
mod views;
