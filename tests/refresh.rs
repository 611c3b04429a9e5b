//! Change detection through the real binary: `agents resource refresh` on
//! real directories, real repositories and the example plugin, changed
//! between commands; what it finds is compared with the filesystem and
//! with git.

use crate::common::{Env, git, git_repo, wasm};
use serde_json::Value;
use std::collections::BTreeSet;

/// The names of every resource.
fn names(env: &Env) -> BTreeSet<String> {
    env.run(&["resource", "list", "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str().map(str::to_owned))
        .collect()
}

fn refresh(env: &Env, keys: &[&str]) -> Value {
    let mut args = vec!["resource", "refresh", "-o", "json"];
    args.extend_from_slice(keys);
    env.run(&args).json()
}

fn show(env: &Env, name: &str) -> Value {
    env.run(&["resource", "show", name, "-o", "json"]).json()
}

fn labels(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// The changed entry of `report` for `name`.
fn changed<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"] == name)
        .unwrap_or_else(|| panic!("{name} not changed in {report}"))
}

/// `local/d`: a directory `d` holding `a.txt` and `sub/b.txt`, registered.
fn directory_home() -> Env {
    let env = Env::new();
    env.write("d/a.txt", "a\n");
    env.write("d/sub/b.txt", "b\n");
    let d = env.path("d");
    env.add("fs-directory", "local/d", &d, &[]).ok();
    env
}

#[test]
fn an_unchanged_registry_is_not_written() {
    let env = directory_home();
    let before = env.state();
    let report = refresh(&env, &[]);
    assert_eq!(report["checked"], 2, "{report}");
    assert_eq!(report["unchanged"], 2, "{report}");
    assert_eq!(env.state(), before, "an unchanged refresh wrote");
    let text = env.run(&["resource", "refresh"]);
    assert!(
        text.ok()
            .starts_with("checked 2: 2 unchanged, 0 changed, 0 stale")
    );
    assert_eq!(env.state(), before);
}

#[test]
fn files_added_deleted_renamed_and_modified_are_seen_where_they_happened() {
    let env = directory_home();
    let untouched = show(&env, "local/d/a.txt");
    std::fs::write(env.path("d/sub/b.txt"), "b, longer now\n").unwrap();
    std::fs::write(env.path("d/new.txt"), "new\n").unwrap();
    std::fs::rename(env.path("d/a.txt"), env.path("d/renamed.txt")).unwrap();
    let report = refresh(&env, &[]);
    let d = changed(&report, "local/d");
    assert_eq!(
        labels(&d["added"]),
        BTreeSet::from([
            "local/d/new.txt".to_owned(),
            "local/d/renamed.txt".to_owned()
        ])
    );
    assert_eq!(
        labels(&d["removed"]),
        BTreeSet::from(["local/d/a.txt".to_owned()])
    );
    let sub = changed(&report, "local/d/sub");
    assert_eq!(sub["updated"], 1, "{report}");
    // The modified file's digest and size are what the filesystem says.
    let b = show(&env, "local/d/sub/b.txt");
    let bytes = std::fs::read(env.path("d/sub/b.txt")).unwrap();
    assert_eq!(
        b["properties"]["digest"],
        format!("sha256:{}", resource_host::digest::sha256_hex(&bytes))
    );
    assert_eq!(b["properties"]["size"], bytes.len().to_string());
    // The renamed file is a new resource; nothing else was rewritten.
    assert_ne!(
        show(&env, "local/d/renamed.txt")["resource_id"],
        untouched["resource_id"]
    );
    let listed = names(&env);
    let on_disk: BTreeSet<String> = [
        "local/d",
        "local/d/new.txt",
        "local/d/renamed.txt",
        "local/d/sub",
        "local/d/sub/b.txt",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(listed, on_disk);
    // A second refresh finds nothing more.
    let before = env.state();
    assert_eq!(refresh(&env, &[])["changed"], Value::Array(vec![]));
    assert_eq!(env.state(), before);
}

#[test]
fn a_vanished_location_is_marked_stale_and_recovers_when_it_returns() {
    let env = directory_home();
    env.write("e/x.txt", "x\n");
    let e = env.path("e");
    env.add("fs-directory", "local/e", &e, &[]).ok();
    std::fs::rename(env.path("d"), env.path("moved")).unwrap();
    std::fs::write(env.path("e/y.txt"), "y\n").unwrap();
    let report = refresh(&env, &[]);
    // One bad resource does not stop the others.
    let stale = &report["stale"][0];
    assert_eq!(stale["resource"], "local/d", "{report}");
    assert!(
        stale["reason"]
            .as_str()
            .unwrap()
            .contains("no longer exists"),
        "{report}"
    );
    assert_eq!(
        labels(&changed(&report, "local/e")["added"]),
        BTreeSet::from(["local/e/y.txt".to_owned()])
    );
    // Kept, with its children, and marked.
    let d = show(&env, "local/d");
    assert!(d["stale"].as_str().unwrap().contains("no longer exists"));
    assert!(names(&env).contains("local/d/sub/b.txt"));
    let text = env.run(&["resource", "show", "local/d"]);
    assert!(text.ok().contains("stale"), "{}", text.stdout);
    // Stale again for the same reason: nothing written.
    let before = env.state();
    refresh(&env, &["local/d"]);
    assert_eq!(env.state(), before);
    // Back: current again.
    std::fs::rename(env.path("moved"), env.path("d")).unwrap();
    let report = refresh(&env, &["local/d"]);
    assert_eq!(report["stale"], Value::Array(vec![]), "{report}");
    assert!(show(&env, "local/d").get("stale").is_none());
}

#[test]
fn an_edited_manifest_refreshes_the_resources_own_properties() {
    let env = Env::new();
    env.run(&[
        "plugin",
        "add",
        wasm("python_package.wasm").to_str().unwrap(),
    ])
    .ok();
    let type_file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/plugins/examples/python-package/python-package.yaml"
    );
    env.run(&["resource", "type", "add", type_file]).ok();
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.0.0\"\n",
    );
    env.write("pkg/src/acme/__init__.py", "");
    let pkg = env.path("pkg");
    env.add("myteam/python-package", "local/pkg", &pkg, &[])
        .ok();
    assert_eq!(show(&env, "local/pkg")["properties"]["version"], "1.0.0");
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.1.0\"\n",
    );
    let report = refresh(&env, &["local/pkg"]);
    assert_eq!(
        changed(&report, "local/pkg")["properties_changed"],
        true,
        "{report}"
    );
    assert_eq!(show(&env, "local/pkg")["properties"]["version"], "1.1.0");
    // `discover` refreshes them too.
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.2.0\"\n",
    );
    env.run(&["resource", "discover", "local/pkg"]).ok();
    assert_eq!(show(&env, "local/pkg")["properties"]["version"], "1.2.0");
    // A manifest that no longer validates makes it stale, not gone.
    std::fs::remove_file(env.path("pkg/pyproject.toml")).unwrap();
    let report = refresh(&env, &["local/pkg"]);
    assert!(
        report["stale"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("refused validate"),
        "{report}"
    );
    assert!(names(&env).contains("local/pkg"));
}

#[test]
fn git_changes_are_seen_through_the_refs() {
    let env = Env::new();
    let repo = env.path("repo");
    git_repo(&repo);
    git(&repo, &["tag", "v1"]);
    env.add("git-checkout", "local/r", &repo, &["--branch", "main"])
        .ok();
    // The branch explored one level deeper: its head commit.
    env.run(&["resource", "discover", "local/r/git/branch/main"])
        .ok();
    std::fs::write(repo.join("README.md"), "# two\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "two"]);
    git(&repo, &["branch", "feat"]);
    git(&repo, &["tag", "-d", "v1"]);
    std::fs::write(repo.join("README.md"), "# three\n").unwrap();
    git(&repo, &["stash", "-q"]);
    let report = refresh(&env, &[]);
    let g = changed(&report, "local/r/git");
    let stash = git(&repo, &["rev-parse", "stash@{0}"]);
    assert_eq!(
        labels(&g["added"]),
        BTreeSet::from([
            "local/r/git/branch/feat".to_owned(),
            format!("local/r/git/stash/{}", &stash.trim()[..12]),
        ])
    );
    assert_eq!(
        labels(&g["removed"]),
        BTreeSet::from(["local/r/git/tag/v1".to_owned()])
    );
    // The explored branch follows its head.
    let head = git(&repo, &["rev-parse", "main"]);
    let main = changed(&report, "local/r/git/branch/main");
    assert_eq!(
        labels(&main["added"]),
        BTreeSet::from([format!(
            "local/r/git/branch/main/commit/{}",
            &head.trim()[..12]
        )])
    );
    assert_eq!(
        show(&env, "local/r/git/branch/main")["properties"]["head-sha"],
        head.trim()
    );
    // The checkout's own properties follow HEAD.
    assert_eq!(show(&env, "local/r")["properties"]["head"], head.trim());
    // What git lists is what is registered, once.
    let branches: BTreeSet<String> = names(&env)
        .into_iter()
        .filter(|n| n.starts_with("local/r/git/branch/") && !n.contains("/commit/"))
        .collect();
    let from_git: BTreeSet<String> = git(
        &repo,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads"],
    )
    .lines()
    .map(|b| format!("local/r/git/branch/{b}"))
    .collect();
    assert_eq!(branches, from_git);
    let before = env.state();
    refresh(&env, &[]);
    assert_eq!(env.state(), before);
}
