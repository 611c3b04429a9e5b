//! The built-in git handlers through the real binary, on real repositories
//! made with the git CLI, each answer compared with what git itself says
//! (`for-each-ref`, `remote -v`, `stash list`, `submodule status`,
//! `ls-tree`, `hash-object`).

use crate::common::{Env, git, rich_repo};
use serde_json::Value;
use std::collections::BTreeSet;

/// A home holding `local/api-repo`, a git checkout of [`rich_repo`].
fn checkout() -> Env {
    let env = Env::new();
    rich_repo(&env.path("repo"));
    let repo = env.path("repo");
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
    env
}

/// Every resource, by name.
fn all(env: &Env) -> Vec<Value> {
    env.run(&["resource", "list", "-o", "json"])
        .json()
        .as_array()
        .unwrap()
        .clone()
}

fn of_type<'a>(list: &'a [Value], ty: &str) -> Vec<&'a Value> {
    list.iter()
        .filter(|r| r["resource_type_name"] == ty)
        .collect()
}

fn prop<'a>(r: &'a Value, key: &str) -> &'a str {
    r["properties"][key].as_str().unwrap_or_default()
}

#[test]
fn registration_discovers_what_git_sees() {
    let env = checkout();
    let repo = env.path("repo");
    let list = all(&env);

    let refs = git(
        &repo,
        &[
            "for-each-ref",
            "--format=%(refname:short) %(objectname)",
            "refs/heads",
        ],
    );
    let want: BTreeSet<String> = refs.lines().map(str::to_owned).collect();
    let got: BTreeSet<String> = of_type(&list, "git-branch")
        .iter()
        .map(|b| format!("{} {}", prop(b, "branch-name"), prop(b, "head-sha")))
        .collect();
    assert_eq!(got, want, "branches");

    let tags = git(
        &repo,
        &[
            "for-each-ref",
            "--format=%(refname:short) %(objecttype) %(*objectname) %(objectname)",
            "refs/tags",
        ],
    );
    let want: BTreeSet<String> = tags
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let annotated = f[1] == "tag";
            let target = if annotated { f[2] } else { f[3] };
            format!("{} {target} {annotated}", f[0])
        })
        .collect();
    let got: BTreeSet<String> = of_type(&list, "git-tag")
        .iter()
        .map(|t| {
            format!(
                "{} {} {}",
                prop(t, "tag-name"),
                prop(t, "target-sha"),
                prop(t, "annotated")
            )
        })
        .collect();
    assert_eq!(got, want, "tags, annotated and light");

    let remotes = git(&repo, &["remote", "-v"]);
    let want: BTreeSet<String> = remotes
        .lines()
        .filter(|l| l.ends_with("(fetch)"))
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    let got: BTreeSet<String> = of_type(&list, "git-remote")
        .iter()
        .map(|r| format!("{} {}", prop(r, "remote-name"), prop(r, "url")))
        .collect();
    assert_eq!(got, want, "remotes");
    let upstream = of_type(&list, "git-remote")
        .into_iter()
        .find(|r| prop(r, "remote-name") == "upstream")
        .unwrap();
    assert_eq!(prop(upstream, "push-url"), "ssh://git@example.com/up.git");

    let stash = git(&repo, &["stash", "list", "--format=%H"]);
    let got: Vec<&str> = of_type(&list, "git-stash")
        .iter()
        .map(|s| prop(s, "commit-sha"))
        .collect();
    assert_eq!(got, stash.lines().collect::<Vec<_>>(), "stash");

    let status = git(&repo, &["submodule", "status"]);
    let (sha, path) = {
        let f: Vec<&str> = status.split_whitespace().collect();
        (
            f[0].trim_start_matches(['-', '+', ' ']).to_owned(),
            f[1].to_owned(),
        )
    };
    let subs = of_type(&list, "git-submodule");
    assert_eq!(subs.len(), 1);
    assert_eq!(prop(subs[0], "path"), path);
    assert_eq!(prop(subs[0], "commit-sha"), sha);
    assert!(prop(subs[0], "url").ends_with("repo-lib"), "{}", subs[0]);

    // Names are readable and stable.
    let names: BTreeSet<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    for name in [
        "local/api-repo/git",
        "local/api-repo/worktree",
        "local/api-repo/git/branch/main",
        "local/api-repo/git/branch/feature/x",
        "local/api-repo/git/branch/fix-ü",
        "local/api-repo/git/tag/v1.0",
        "local/api-repo/git/remote/upstream",
        "local/api-repo/git/submodule/vendor/lib",
    ] {
        assert!(names.contains(name), "{name} missing from {names:?}");
    }
}

#[test]
fn the_checkout_records_its_branch_and_head_and_the_tree_shows_three_levels() {
    let env = checkout();
    let repo = env.path("repo");
    let shown = env
        .run(&["resource", "show", "local/api-repo", "-o", "json"])
        .json();
    assert_eq!(prop(&shown, "branch"), "main");
    assert_eq!(
        prop(&shown, "head"),
        git(&repo, &["rev-parse", "HEAD"]).trim()
    );
    let tree = env.run(&["resource", "tree", "--depth", "3", "local/api-repo"]);
    let text = tree.ok();
    for part in [
        "├── git (git)",
        "── branch/main (git-branch)",
        "── tag/v0.1 (git-tag)",
        "── remote/origin (git-remote)",
        "── stash/",
        "(git-stash)",
        "└── worktree (fs-directory)",
        "── src (fs-directory)",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
}

#[test]
fn deeper_levels_are_discovered_on_demand_and_match_ls_tree() {
    let env = checkout();
    let repo = env.path("repo");
    let before = all(&env).len();
    assert!(
        of_type(&all(&env), "git-commit").is_empty(),
        "not at registration"
    );
    env.run(&[
        "resource",
        "discover",
        "--recursive",
        "local/api-repo/git/branch/main",
    ])
    .ok();
    let list = all(&env);
    assert!(list.len() > before);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let commits = of_type(&list, "git-commit");
    assert_eq!(commits.len(), 1);
    assert_eq!(prop(commits[0], "commit-sha"), head.trim());
    assert_eq!(prop(commits[0], "summary"), "second: a submodule");
    let ls = git(&repo, &["ls-tree", "-r", "-z", "HEAD"]);
    let want: BTreeSet<String> = ls
        .split('\0')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (meta, path) = l.split_once('\t').unwrap();
            let f: Vec<&str> = meta.split(' ').collect();
            format!("{} {} {path}", f[0], f[2])
        })
        .collect();
    let got: BTreeSet<String> = of_type(&list, "git-tree-entry")
        .iter()
        .map(|e| {
            format!(
                "{:0>6} {} {}",
                prop(e, "mode"),
                prop(e, "blob-sha"),
                prop(e, "relative-path")
            )
        })
        .collect();
    assert_eq!(got, want, "tree entries vs git ls-tree -r");
    // Rediscovery keeps ids: nothing new, nothing gone.
    let again = env
        .run(&[
            "resource",
            "discover",
            "--recursive",
            "local/api-repo/git/branch/main",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(again["added"].as_array().unwrap().len(), 0);
    assert_eq!(again["removed"].as_array().unwrap().len(), 0);
}

#[test]
fn inspect_shows_the_checkout_and_one_file_as_a_person_wants() {
    let env = checkout();
    let repo = env.path("repo");
    std::fs::write(repo.join("src/main.py"), "print('changed')\n").unwrap();
    std::fs::write(repo.join("new.txt"), "new\n").unwrap();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let whole = env.run(&["resource", "inspect", "local/api-repo"]);
    let text = whole.ok();
    assert!(text.contains("branch main"), "{text}");
    assert!(
        text.contains(&format!("HEAD {} second: a submodule", head.trim())),
        "{text}"
    );
    assert!(text.contains("modified 1, untracked 1"), "{text}");
    let file = env.run(&[
        "resource",
        "inspect",
        "--file",
        "src/main.py",
        "local/api-repo",
        "-o",
        "json",
    ]);
    let json = file.json();
    let text = json["text"].as_str().unwrap();
    let blob = git(&repo, &["hash-object", "src/main.py"]);
    assert!(text.contains(&format!("blob {}", blob.trim())), "{text}");
    assert!(text.contains("status modified (not staged)"), "{text}");
    assert!(text.contains("size 17 bytes"), "{text}");
    assert!(text.contains("last commit"), "{text}");
    // The same facts as data.
    let fields = &json["fields"];
    let last = git(&repo, &["log", "-1", "--format=%H", "--", "src/main.py"]);
    assert_eq!(fields["file"], "src/main.py");
    assert_eq!(fields["status"], "modified (not staged)");
    assert_eq!(fields["worktree"], "M");
    assert_eq!(fields["blob"], blob.trim());
    assert_eq!(fields["size"], "17");
    assert_eq!(fields["last-commit"], last.trim());
    let whole = env
        .run(&["resource", "inspect", "local/api-repo", "-o", "json"])
        .json();
    let fields = &whole["fields"];
    assert_eq!(fields["branch"], "main");
    assert_eq!(fields["head"], head.trim());
    assert_eq!(fields["summary"], "second: a submodule");
    assert_eq!(fields["modified"], "1");
    assert_eq!(fields["untracked"], "1");
}

#[test]
fn a_checkout_is_refused_when_it_is_not_one() {
    let env = Env::new();
    let plain = env.mkdir("plain");
    let before = {
        env.run(&["resource", "list"]).ok();
        env.state()
    };
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/x",
        "--path",
        plain.to_str().unwrap(),
    ])
    .refused(&["is not a git working tree", "fs-directory"]);
    let repo = env.path("repo");
    rich_repo(&repo);
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/x",
        "--path",
        repo.to_str().unwrap(),
        "--branch",
        "nope",
    ])
    .refused(&[
        "branch \"nope\" does not exist",
        "its branches: feature/x, fix-ü, main",
    ]);
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/x",
        "--path",
        repo.to_str().unwrap(),
        "--branch",
        "feature/x",
    ])
    .refused(&["has branch \"main\" checked out, not branch \"feature/x\""]);
    let bare = env.path("bare.git");
    git(
        env.scratch.path(),
        &[
            "clone",
            "-q",
            "--bare",
            repo.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/x",
        "--path",
        bare.to_str().unwrap(),
    ])
    .refused(&["is a bare repository", "register it as type git"]);
    assert_eq!(env.state(), before);
    // The bare repository as what it is.
    env.run(&[
        "resource",
        "add",
        "git",
        "local/bare",
        "--path",
        bare.to_str().unwrap(),
    ])
    .ok();
    let branches = env
        .run(&["resource", "list", "--type", "git-branch", "-o", "json"])
        .json();
    assert_eq!(branches.as_array().unwrap().len(), 3);
}

#[test]
fn the_references_walkthrough_works_as_written() {
    let env = Env::new();
    let repo = env.path("repos/api-service");
    rich_repo(&repo);
    let config = env.mkdir("etc/myapp");
    std::fs::write(config.join("app.toml"), "a = 1\n").unwrap();
    let (r, c) = (repo.to_str().unwrap(), config.to_str().unwrap());
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/api-repo",
        "--path",
        r,
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
        c,
    ])
    .ok();
    env.run(&["resource", "list"]).ok();
    let checkouts = env
        .run(&["resource", "list", "--type", "git-checkout", "-o", "json"])
        .json();
    assert_eq!(checkouts.as_array().unwrap().len(), 1);
    env.run(&["resource", "show", "local/api-repo"]).ok();
    assert!(
        env.run(&["resource", "inspect", "local/api-repo"])
            .ok()
            .contains("branch main")
    );
    env.run(&["resource", "tree", "--depth", "3", "local/api-repo"])
        .ok();
    let file = env.run(&[
        "resource",
        "inspect",
        "--file",
        "src/main.py",
        "local/api-repo",
    ]);
    assert!(file.ok().contains("file src/main.py"), "{}", file.stdout);
    env.run(&[
        "resource",
        "link-child",
        "local/api-repo",
        "local/config-dir",
    ])
    .ok();
    let removed = env.run(&["resource", "remove", "local/api-repo"]);
    assert!(
        removed.ok().contains("kept local/config-dir"),
        "{}",
        removed.stdout
    );
    let left = env.run(&["resource", "list", "-o", "json"]).json();
    let names: Vec<&str> = left
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .filter(|n| !n.starts_with("local/config-dir"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// A checkout made by `git worktree add` (its `.git` is a file naming
/// the main repository's `worktrees/<name>`) registers as a git checkout,
/// its repository's branches are discovered, and it can be sandboxed; a
/// `.git` file naming some other repository to borrow it is refused.
#[test]
fn a_linked_worktree_registers_and_a_borrowed_git_directory_does_not() {
    let env = Env::new();
    let main = env.path("main");
    crate::common::git_repo(&main);
    let linked = env.path("linked");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            linked.to_str().unwrap(),
        ],
    );
    env.add("git-checkout", "local/linked", &linked, &[]).ok();
    let tree = env
        .run(&["resource", "tree", "local/linked"])
        .ok()
        .to_owned();
    assert!(tree.contains("branch/feature"), "{tree}");
    assert!(tree.contains("branch/main"), "{tree}");
    let made = env
        .run(&["sandbox", "create", "local/linked", "-o", "json"])
        .json();
    assert_eq!(made["strategy"], "git_worktree", "{made}");
    let id = made["sandbox_id"].as_str().unwrap();
    let work = std::path::PathBuf::from(made["workdir"].as_str().unwrap());
    std::fs::write(work.join("new.txt"), "from the sandbox\n").unwrap();
    env.run(&["sandbox", "apply", id]).ok();
    let applied = git(&main, &["show", &format!("agents/sandbox-{id}:new.txt")]);
    assert_eq!(applied, "from the sandbox\n");

    // A directory whose `.git` file names the main repository itself.
    let borrower = env.mkdir("borrower");
    std::fs::write(
        borrower.join(".git"),
        format!("gitdir: {}\n", main.join(".git").display()),
    )
    .unwrap();
    let refused = env.add("git-checkout", "local/borrower", &borrower, &[]);
    let said = refused.refused(&["borrower"]);
    assert!(said.contains("neither a linked worktree"), "{said}");
}
