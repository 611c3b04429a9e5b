//! A hostile agent in a `git_worktree` sandbox, through the real binary:
//! it points its `.git` file at a git directory it made. The host names
//! the sandbox's git directory and work tree from its own records, so
//! the agent's filter never runs and its `core.worktree` never becomes
//! where the host writes; `destroy` still removes everything the host
//! made.

use super::{create, sandbox, tree};
use crate::common::{Env, git, git_repo};
use std::path::{Path, PathBuf};

/// A git directory the agent made (outside its working copy, in a
/// scratch directory it can write), borrowing the original's objects,
/// HEAD at the original's HEAD, with `config`; `<workdir>/.git` pointed
/// at it.
fn point_at_agents_gitdir(env: &Env, repo: &Path, workdir: &Path, config: &[(&str, &str)]) {
    let dir = env.path("agent.git");
    git(
        env.scratch.path(),
        &["init", "-q", "--bare", dir.to_str().unwrap()],
    );
    std::fs::write(
        dir.join("objects/info/alternates"),
        format!("{}\n", repo.join(".git/objects").display()),
    )
    .unwrap();
    let head = git(repo, &["rev-parse", "HEAD"]);
    std::fs::write(dir.join("HEAD"), head).unwrap();
    for (key, value) in config {
        git(
            env.scratch.path(),
            &["--git-dir", dir.to_str().unwrap(), "config", key, value],
        );
    }
    std::fs::write(workdir.join(".git"), format!("gitdir: {}\n", dir.display())).unwrap();
}

fn registered(env: &Env) -> PathBuf {
    let repo = env.path("repo");
    git_repo(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    repo
}

#[test]
fn an_agents_own_git_directory_with_a_filter_runs_nothing_on_the_host() {
    let env = Env::new();
    let repo = registered(&env);
    let sb = create(&env, "local/repo", &[]);
    let canary = env.path("canary");
    let filter = format!("sh -c 'echo ran >> {}; cat'", canary.display());
    std::fs::write(sb.workdir.join(".gitattributes"), "* filter=x\n").unwrap();
    std::fs::write(sb.workdir.join("README.md"), "# changed by the agent\n").unwrap();
    let hostile = [
        ("core.bare", "false"),
        ("filter.x.clean", filter.as_str()),
        ("filter.x.smudge", filter.as_str()),
    ];
    point_at_agents_gitdir(&env, &repo, &sb.workdir, &hostile);
    let diff = sandbox(&env, "diff", &sb.id, &["-o", "json"]).json();
    assert_eq!(diff["modified"], serde_json::json!(["README.md"]), "{diff}");
    assert!(!canary.exists(), "the agent's filter ran at diff");
    point_at_agents_gitdir(&env, &repo, &sb.workdir, &hostile);
    sandbox(&env, "checkpoint", &sb.id, &[]).ok();
    point_at_agents_gitdir(&env, &repo, &sb.workdir, &hostile);
    sandbox(&env, "apply", &sb.id, &[]).ok();
    std::fs::write(sb.workdir.join("README.md"), "# later\n").unwrap();
    point_at_agents_gitdir(&env, &repo, &sb.workdir, &hostile);
    sandbox(&env, "rollback", &sb.id, &[]).ok();
    assert_eq!(
        std::fs::read_to_string(sb.workdir.join("README.md")).unwrap(),
        "# changed by the agent\n"
    );
    assert!(
        !canary.exists(),
        "the agent's filter ran on the host: {}",
        std::fs::read_to_string(&canary).unwrap_or_default()
    );
    // Its `.git` file names the host's record of the worktree again.
    let named = std::fs::read_to_string(sb.workdir.join(".git")).unwrap();
    assert!(named.contains("/.git/worktrees/"), "{named}");
}

#[test]
fn a_fake_git_directory_working_on_a_directory_outside_leaves_it_untouched() {
    let env = Env::new();
    let repo = registered(&env);
    let sb = create(&env, "local/repo", &[]);
    std::fs::write(sb.workdir.join("README.md"), "# checkpointed\n").unwrap();
    sandbox(&env, "checkpoint", &sb.id, &[]).ok();
    let outside = env.mkdir("outside");
    env.write("outside/precious.txt", "mine\n");
    env.write("outside/README.md", "not the sandbox's\n");
    env.write("outside/deep/x.txt", "x\n");
    let before = tree(&outside);
    let fake = [
        ("core.bare", "false"),
        ("core.worktree", outside.to_str().unwrap()),
    ];
    point_at_agents_gitdir(&env, &repo, &sb.workdir, &fake);
    std::fs::write(sb.workdir.join("README.md"), "# later\n").unwrap();

    sandbox(&env, "rollback", &sb.id, &[]).ok();
    assert_eq!(tree(&outside), before, "rollback wrote outside the sandbox");
    assert_eq!(
        std::fs::read_to_string(sb.workdir.join("README.md")).unwrap(),
        "# checkpointed\n"
    );

    point_at_agents_gitdir(&env, &repo, &sb.workdir, &fake);
    sandbox(&env, "destroy", &sb.id, &[]).ok();
    assert_eq!(
        tree(&outside),
        before,
        "destroy touched outside the sandbox"
    );
    assert_eq!(
        env.count("SELECT count(*) FROM sandboxes"),
        0,
        "a row is left"
    );
    assert!(!sb.workdir.exists());
    let worktrees = git(&repo, &["worktree", "list"]);
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
    let refs = git(&repo, &["for-each-ref", "refs/agents/"]);
    assert!(refs.trim().is_empty(), "refs left: {refs}");
}
