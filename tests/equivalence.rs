//! Virtual identities through the real binary: two repositories cloned
//! one from the other share commit, branch, tag and remote identities —
//! each exactly once, kept in step by refresh and removal.

use crate::common::{Env, git, git_repo};
use serde_json::Value;

fn list(env: &Env, ty: &str) -> Vec<Value> {
    env.run(&["resource", "list", "--type", ty, "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .clone()
}

fn show(env: &Env, name: &str) -> Value {
    env.run(&["resource", "show", name, "-o", "json"]).json()
}

fn add_checkout(env: &Env, name: &str, dir: &str) {
    let path = env.path(dir);
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        name,
        "--path",
        path.to_str().unwrap(),
        "--branch",
        "main",
    ])
    .ok();
}

/// `a` and its clone `b`, both with remote `origin` at one URL, both
/// registered, both branches explored to their head commit.
fn clones() -> Env {
    let env = Env::new();
    let a = env.path("a");
    git_repo(&a);
    git(&a, &["tag", "v1"]);
    git(
        &a,
        &["remote", "add", "origin", "https://example.com/api.git"],
    );
    git(&env.path(""), &["clone", "-q", a.to_str().unwrap(), "b"]);
    let b = env.path("b");
    git(
        &b,
        &["remote", "set-url", "origin", "https://example.com/api.git"],
    );
    add_checkout(&env, "local/a", "a");
    add_checkout(&env, "local/b", "b");
    env.run(&["resource", "discover", "local/a/git/branch/main"])
        .ok();
    env.run(&["resource", "discover", "local/b/git/branch/main"])
        .ok();
    env
}

/// The members of the one identity of `ty`, by name.
fn members(env: &Env, ty: &str) -> Vec<String> {
    let ids = list(env, ty);
    assert_eq!(ids.len(), 1, "one {ty} identity: {ids:#?}");
    let mut names: Vec<String> = ids[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| {
            show(env, id.as_str().unwrap())["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn clones_share_each_identity_exactly_once() {
    let env = clones();
    let head = git(&env.path("a"), &["rev-parse", "HEAD"]);
    let short = &head.trim()[..12];
    assert_eq!(
        members(&env, "commit"),
        [
            format!("local/a/git/branch/main/commit/{short}"),
            format!("local/b/git/branch/main/commit/{short}")
        ]
    );
    assert_eq!(
        members(&env, "branch"),
        ["local/a/git/branch/main", "local/b/git/branch/main"]
    );
    assert_eq!(
        members(&env, "tag"),
        ["local/a/git/tag/v1", "local/b/git/tag/v1"]
    );
    assert_eq!(
        members(&env, "remote"),
        ["local/a/git/remote/origin", "local/b/git/remote/origin"]
    );
    // The identity holds the key; a member lists its equivalents.
    let commit = &list(&env, "commit")[0];
    assert_eq!(commit["properties"]["commit-sha"], head.trim());
    assert_eq!(commit["classification"], "virtual");
    let a_main = show(&env, "local/a/git/branch/main");
    let b_main = show(&env, "local/b/git/branch/main");
    assert_eq!(
        a_main["equivalents"],
        serde_json::json!([b_main["resource_id"]])
    );
    // Their root trees, once explored, are one `tree` identity.
    for side in ["a", "b"] {
        env.run(&[
            "resource",
            "discover",
            "--depth",
            "2",
            &format!("local/{side}/git/branch/main"),
        ])
        .ok();
    }
    let tree_sha = git(&env.path("a"), &["rev-parse", "HEAD^{tree}"]);
    let trees = list(&env, "tree");
    assert_eq!(trees.len(), 1, "{trees:#?}");
    assert_eq!(trees[0]["properties"]["tree-sha"], tree_sha.trim());
    assert_eq!(trees[0]["children"].as_array().unwrap().len(), 2);
    // Idempotent: rediscovery and refresh make no second identity.
    env.run(&["resource", "discover", "local/a/git"]).ok();
    env.run(&["resource", "refresh"]).ok();
    for ty in ["commit", "branch", "tag", "remote", "tree"] {
        assert_eq!(list(&env, ty).len(), 1, "{ty}");
    }
}

#[test]
fn a_member_that_stops_matching_leaves_and_an_identity_without_two_goes() {
    let env = clones();
    // a's main moves on: the branches differ now, the old commit is no
    // longer a's head.
    let a = env.path("a");
    std::fs::write(a.join("README.md"), "# moved\n").unwrap();
    git(&a, &["commit", "-q", "-am", "moved"]);
    env.run(&["resource", "refresh"]).ok();
    assert!(list(&env, "branch").is_empty());
    assert!(list(&env, "commit").is_empty());
    assert_eq!(list(&env, "tag").len(), 1);
    // b catches up: the same head again, one identity again.
    let b = env.path("b");
    git(
        &b,
        &["pull", "-q", "--ff-only", a.to_str().unwrap(), "main"],
    );
    env.run(&["resource", "refresh"]).ok();
    assert_eq!(
        members(&env, "branch"),
        ["local/a/git/branch/main", "local/b/git/branch/main"]
    );
    assert_eq!(list(&env, "commit").len(), 1);
    // Removing one side leaves no identity behind, and an identity never
    // keeps a member.
    let removed = env.run(&["resource", "remove", "local/b"]);
    removed.ok();
    for ty in ["commit", "branch", "tag", "remote"] {
        assert!(list(&env, ty).is_empty(), "{ty}");
    }
    let left: Vec<Value> = env
        .run(&["resource", "list", "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .clone();
    assert!(
        left.iter()
            .all(|r| !r["name"].as_str().unwrap_or("").starts_with("local/b"))
    );
}

/// Each identity of `ty`, as its members' (type, name) pairs, sorted.
fn identities(env: &Env, ty: &str) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = list(env, ty)
        .iter()
        .map(|identity| {
            let mut members: Vec<(String, String)> = identity["children"]
                .as_array()
                .unwrap()
                .iter()
                .map(|id| {
                    let m = show(env, id.as_str().unwrap());
                    (
                        m["resource_type_name"].as_str().unwrap().to_owned(),
                        m["name"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            members.sort();
            members
        })
        .collect();
    out.sort();
    out
}

#[test]
fn files_directories_and_symlinks_on_disk_join_their_git_entries_within_one_repository() {
    let env = Env::new();
    for side in ["a", "b"] {
        let dir = env.path(side);
        git_repo(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        std::os::unix::fs::symlink("src/lib.rs", dir.join("link")).unwrap();
        git(&dir, &["add", "-A"]);
        git(&dir, &["commit", "-q", "-m", "tree"]);
        add_checkout(&env, &format!("local/{side}"), side);
    }
    // Before git's side is explored, no identity: one member each.
    assert!(list(&env, "file").is_empty());
    // Explore a's head tree down to its entries, and both work trees.
    for explored in [
        "local/a/git/branch/main",
        "local/a/worktree",
        "local/b/worktree",
    ] {
        env.run(&["resource", "discover", "--depth", "4", explored])
            .ok();
    }
    let head = git(&env.path("a"), &["rev-parse", "HEAD"]);
    let tree = format!("local/a/git/branch/main/commit/{}/tree", &head.trim()[..12]);
    let pair = |fs_type: &str, fs: &str, git_type: &str, entry: &str| {
        let mut v = vec![
            (fs_type.to_owned(), format!("local/a/worktree{fs}")),
            (git_type.to_owned(), format!("{tree}{entry}")),
        ];
        v.sort();
        v
    };
    // Every file of a's work tree is one identity with its tree entry;
    // b's files, at the same paths in another repository, are not in it.
    assert_eq!(
        identities(&env, "file"),
        [
            pair("fs-file", "/README.md", "git-tree-entry", "/README.md"),
            pair("fs-file", "/src/lib.rs", "git-tree-entry", "/src/lib.rs"),
            pair("fs-file", "/src/main.py", "git-tree-entry", "/src/main.py"),
        ]
    );
    // The symlink joins its mode-120000 entry, and only `symlink`.
    assert_eq!(
        identities(&env, "symlink"),
        [pair("fs-symlink", "/link", "git-tree-entry", "/link")]
    );
    // The work tree is the root tree; `src` on disk is tree `src`.
    assert_eq!(
        identities(&env, "directory"),
        [
            pair("fs-directory", "", "git-tree", ""),
            pair("fs-directory", "/src", "git-tree", "/src"),
        ]
    );
    // People see the equivalents by name.
    let shown = env.run(&["resource", "show", "local/a/worktree/src/lib.rs"]);
    shown.ok();
    assert!(
        shown
            .stdout
            .lines()
            .any(|l| l.starts_with("equivalents:") && l.ends_with(&format!("{tree}/src/lib.rs"))),
        "{}",
        shown.stdout
    );
    let file = list(&env, "file")
        .into_iter()
        .find(|f| f["properties"]["relative-path"] == "src/lib.rs")
        .unwrap();
    assert_eq!(
        file["properties"]["repository"],
        env.path("a/.git").canonicalize().unwrap().to_str().unwrap()
    );
    // A file deleted on disk leaves its identity (the entry alone is not
    // an equivalence); the identity comes back with the file.
    let a = env.path("a");
    std::fs::remove_file(a.join("src/lib.rs")).unwrap();
    env.run(&["resource", "refresh"]).ok();
    assert_eq!(
        identities(&env, "file"),
        [
            pair("fs-file", "/README.md", "git-tree-entry", "/README.md"),
            pair("fs-file", "/src/main.py", "git-tree-entry", "/src/main.py"),
        ]
    );
    std::fs::write(a.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    env.run(&["resource", "refresh"]).ok();
    assert_eq!(identities(&env, "file").len(), 3);
}

#[test]
fn repositories_referencing_one_submodule_share_its_identity() {
    let env = Env::new();
    let lib = env.path("lib");
    git_repo(&lib);
    let url = lib.to_str().unwrap().to_owned();
    for side in ["a", "b"] {
        let dir = env.path(side);
        git_repo(&dir);
        git(&dir, &["submodule", "add", "-q", &url, "vendor/lib"]);
        git(&dir, &["commit", "-q", "-m", "submodule"]);
        add_checkout(&env, &format!("local/{side}"), side);
    }
    assert_eq!(
        identities(&env, "submodule"),
        [vec![
            (
                "git-submodule".to_owned(),
                "local/a/git/submodule/vendor/lib".to_owned()
            ),
            (
                "git-submodule".to_owned(),
                "local/b/git/submodule/vendor/lib".to_owned()
            ),
        ]]
    );
    assert_eq!(
        list(&env, "submodule")[0]["properties"]["url"],
        url.as_str()
    );
    // b points its submodule elsewhere: the identity goes.
    let b = env.path("b");
    git(
        &b,
        &[
            "config",
            "-f",
            ".gitmodules",
            "submodule.vendor/lib.url",
            "https://example.com/other.git",
        ],
    );
    git(&b, &["commit", "-q", "-am", "elsewhere"]);
    env.run(&["resource", "refresh"]).ok();
    assert!(list(&env, "submodule").is_empty());
}
