//! Deep discovery of git objects through the real binary — every
//! branch's head commit and root tree (`discover --depth 2` and `3` below
//! the repository) — each commit's properties compared with what `git
//! show` says of it, on commits made to be awkward to read (multi-line
//! subjects, white space, merges, a signature header); and no `git
//! cat-file` process outlives the command.

use crate::common::{Env, git, rich_repo};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Branches `awkward/N` at commits whose raw messages and headers the
/// batch reader must read as `git show` does.
fn awkward_branches(repo: &Path) {
    let tree = git(repo, &["rev-parse", "HEAD^{tree}"]);
    let head = git(repo, &["rev-parse", "HEAD"]);
    let first = git(repo, &["rev-parse", "HEAD~1"]);
    let messages = [
        "\n\n  \nfirst line  \nsecond\tline\t\n\nthe body\n",
        "",
        "no newline at the end",
        "merge of two\n",
    ];
    for (i, message) in messages.iter().enumerate() {
        let file = repo.with_file_name(format!("message-{i}"));
        std::fs::write(&file, message).unwrap();
        let mut args = vec!["commit-tree", tree.trim(), "-p", head.trim()];
        if i == 3 {
            args.extend(["-p", first.trim()]);
        }
        let file = file.to_str().unwrap().to_owned();
        args.extend(["-F", &file]);
        let id = git(repo, &args);
        git(repo, &["branch", &format!("awkward/{i}"), id.trim()]);
    }
}

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

/// `git cat-file` processes asking about `repo`, of any parent.
fn cat_files(repo: &Path) -> usize {
    let needle = format!("--git-dir={}", repo.join(".git").display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            args.contains(&&b"cat-file"[..]) && args.contains(&needle.as_bytes())
        })
        .count()
}

#[test]
fn every_branch_s_head_commit_and_root_tree_are_what_git_says() {
    let env = Env::new();
    let repo = env.path("repo");
    rich_repo(&repo);
    awkward_branches(&repo);
    env.add("git-checkout", "local/api-repo", &repo, &[]).ok();
    let branches = git(
        &repo,
        &["for-each-ref", "--format=%(objectname)", "refs/heads/"],
    );
    let heads: BTreeSet<&str> = branches.lines().collect();
    assert_eq!(
        heads.len(),
        5,
        "main (with two more branches) and four awkward ones"
    );

    env.run(&["resource", "discover", "--depth", "2", "local/api-repo/git"])
        .ok();
    let list = all(&env);
    let found = of_type(&list, "git-commit").len();
    assert_eq!(
        found,
        branches.lines().count(),
        "a commit below each branch"
    );
    let commits: BTreeMap<&str, &Value> = of_type(&list, "git-commit")
        .into_iter()
        .map(|c| (prop(c, "commit-sha"), c))
        .collect();
    assert_eq!(
        commits.keys().copied().collect::<BTreeSet<_>>(),
        heads,
        "one commit per branch head"
    );
    for (id, commit) in &commits {
        let shown = git(
            &repo,
            &[
                "show",
                "-s",
                "--format=%T%x00%P%x00%an <%ae>%x00%at%x00%s",
                id,
            ],
        );
        let f: Vec<&str> = shown.trim_end_matches('\n').split('\0').collect();
        let got = [
            prop(commit, "tree-sha"),
            prop(commit, "parents"),
            prop(commit, "author"),
            prop(commit, "author-time"),
            prop(commit, "summary"),
        ];
        assert_eq!(got, f.as_slice(), "commit {id}");
    }
    let awkward = commits
        .values()
        .find(|c| prop(c, "summary") == "first line second\tline")
        .expect("the multi-line subject, joined as git joins it");
    assert!(!prop(awkward, "tree-sha").is_empty());
    assert!(of_type(&list, "git-tree").is_empty(), "not at depth 2");

    env.run(&["resource", "discover", "--depth", "3", "local/api-repo/git"])
        .ok();
    let list = all(&env);
    let trees: BTreeSet<&str> = of_type(&list, "git-tree")
        .into_iter()
        .map(|t| prop(t, "tree-sha"))
        .collect();
    let want: BTreeSet<String> = heads
        .iter()
        .map(|h| {
            git(&repo, &["rev-parse", &format!("{h}^{{tree}}")])
                .trim()
                .to_owned()
        })
        .collect();
    assert_eq!(
        trees,
        want.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        "root trees"
    );
    assert_eq!(of_type(&list, "git-commit").len(), found, "kept");
    assert_eq!(cat_files(&repo), 0, "no batch process outlives the command");
}
