//! Execution-environment routing through the real binary: the settings
//! commands, `env resolve` at every level, nested devcontainers found by
//! real discovery in a real git checkout.

use crate::common::{Env, commit_all};
use std::path::Path;

/// A checkout with a devcontainer at its root and another in `sub/`.
fn repo_with_devcontainers(env: &Env) -> std::path::PathBuf {
    let repo = env.mkdir("repo");
    env.write(
        "repo/.devcontainer/devcontainer.json",
        "{ \"image\": \"debian\" }\n",
    );
    env.write(
        "repo/sub/.devcontainer/devcontainer.json",
        "// nested\n{ \"image\": \"alpine\", }\n",
    );
    env.write("repo/sub/deep/f.txt", "x\n");
    env.write("repo/top.txt", "x\n");
    commit_all(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    env.run(&["resource", "discover", "--recursive", "local/repo/worktree"])
        .ok();
    repo
}

fn resolve(env: &Env, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["env", "resolve"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    env.run(&all).json()
}

#[test]
fn the_six_levels_from_the_command_line() {
    let env = Env::new();
    repo_with_devcontainers(&env);
    env.run(&[
        "resource",
        "add",
        "container-instance",
        "local/plan-box",
        "--image",
        "debian",
    ])
    .ok();
    env.run(&[
        "resource",
        "add",
        "container-instance",
        "local/project-box",
        "--image",
        "debian",
    ])
    .ok();
    let deep = "local/repo/worktree/sub/deep/f.txt";
    let top = "local/repo/worktree/top.txt";

    // 3: the nearest devcontainer — for a file below sub/, the nested one
    // once it is trusted; until then it is passed over (found deep inside
    // the checkout by a recursive discovery), and the checkout's is used.
    let nested = "local/repo/worktree/sub-devcontainer";
    let r = resolve(&env, &[deep]);
    assert_eq!(r["priority"], 3, "{r}");
    assert_eq!(r["environment"]["name"], "local/repo-devcontainer", "{r}");
    let why = r["reason"].as_str().unwrap();
    assert!(why.contains("passed over") && why.contains(nested), "{why}");
    assert_eq!(r["trust"]["trusted"], false, "{r}");
    env.run(&["resource", "trust", nested, "--yes"]).ok();
    let r = resolve(&env, &[deep]);
    assert_eq!(r["environment"]["name"], nested, "{r}");
    assert_eq!(r["trust"]["trusted"], true, "{r}");
    let r = resolve(&env, &[top]);
    assert_eq!(r["environment"]["name"], "local/repo-devcontainer", "{r}");

    // 5 and 4 lose to the devcontainer, win without one.
    let set = |verb: &[&str], target: &str, priority: &str| {
        let mut args = verb.to_vec();
        args.extend_from_slice(&[
            "--execution-environment",
            target,
            "--execution-env-priority",
            priority,
        ]);
        env.run(&args).ok();
    };
    set(
        &["project", "context", "set"],
        "local/project-box",
        "fallback",
    );
    set(
        &["plan", "use", "--plan", "nightly"],
        "local/plan-box",
        "fallback",
    );
    assert_eq!(resolve(&env, &[deep, "--plan", "nightly"])["priority"], 3);
    let boxed = "local/project-box";
    let r = resolve(&env, &[boxed]);
    assert_eq!(
        (r["priority"].clone(), r["environment"]["name"].clone()),
        (5.into(), boxed.into()),
        "{r}"
    );
    let r = resolve(&env, &[boxed, "--plan", "nightly"]);
    assert_eq!(r["priority"], 4, "{r}");
    assert_eq!(r["environment"]["name"], "local/plan-box");

    // 2 and 1 beat the devcontainer.
    set(
        &["project", "context", "set"],
        "local/project-box",
        "override",
    );
    assert_eq!(resolve(&env, &[deep, "--plan", "nightly"])["priority"], 2);
    set(
        &["plan", "use", "--plan", "nightly"],
        "local/plan-box",
        "override",
    );
    let r = resolve(&env, &[deep, "--plan", "nightly"]);
    assert_eq!(r["priority"], 1, "{r}");
    // The default plan has no setting: the project's override decides.
    assert_eq!(resolve(&env, &[deep])["priority"], 2);

    // 6: nothing set, no devcontainer.
    env.run(&["project", "context", "unset"]).ok();
    env.run(&["plan", "unset", "--plan", "nightly"]).ok();
    let r = resolve(&env, &[boxed]);
    assert_eq!(
        (r["priority"].clone(), r["environment"]["kind"].clone()),
        (6.into(), "host".into())
    );

    // Tool preferences.
    let r = resolve(&env, &[deep, "--tool-env", "specific:local/plan-box"]);
    assert_eq!(
        (r["level"].clone(), r["priority"].clone()),
        ("tool_specific".into(), 0.into())
    );
    env.run(&["env", "resolve", deep, "--tool-env", "specific:local/repo"])
        .refused(&["not an execution environment"]);
    env.run(&["env", "resolve", boxed, "--tool-env", "required:container"])
        .refused(&["requires a container", "level 6", "agents plan use"]);
    let r = resolve(&env, &[boxed, "--tool-env", "preferred:container"]);
    assert!(r["hint"].as_str().unwrap().contains("hint only"), "{r}");
}

#[test]
fn settings_are_checked_stored_and_shown() {
    let env = Env::new();
    let dir = env.mkdir("d");
    env.add("fs-directory", "local/d", Path::new(&dir), &[])
        .ok();
    let set = |target: &str| {
        env.run(&[
            "project",
            "context",
            "set",
            "--execution-environment",
            target,
            "--execution-env-priority",
            "override",
        ])
    };
    set("local/nope").refused(&["no resource", "local/nope"]);
    set("local/d").refused(&["not an execution environment"]);
    env.run(&[
        "project",
        "context",
        "set",
        "--execution-environment",
        "host",
        "--execution-env-priority",
        "sometimes",
    ])
    .usage(&["override or fallback"]);
    env.run(&[
        "plan",
        "use",
        "--plan",
        "bad name",
        "--execution-environment",
        "host",
        "--execution-env-priority",
        "fallback",
    ])
    .refused(&["plan name"]);
    set("host").ok();
    let shown = env
        .run(&["project", "context", "show", "-o", "json"])
        .json();
    assert_eq!(shown["environment"]["kind"], "host");
    assert_eq!(shown["priority"], "override");
    assert!(
        env.run(&["project", "context", "show"])
            .ok()
            .contains("the host (priority override)")
    );
    env.run(&["project", "context", "unset"]).ok();
    assert_eq!(
        env.run(&["project", "context", "show", "-o", "json"])
            .json(),
        serde_json::Value::Null
    );

    // A setting goes with its resource.
    env.run(&[
        "resource",
        "add",
        "container-instance",
        "local/box",
        "--image",
        "x",
    ])
    .ok();
    set("local/box").ok();
    env.run(&["resource", "remove", "local/box"]).ok();
    assert_eq!(
        env.run(&["project", "context", "show", "-o", "json"])
            .json(),
        serde_json::Value::Null
    );
}

#[test]
fn devcontainers_in_subfolders_are_each_detected_and_the_default_one_wins() {
    let env = Env::new();
    let repo = env.mkdir("mono");
    env.write(
        "mono/.devcontainer/api/devcontainer.json",
        "{ \"image\": \"python:3\" }\n",
    );
    env.write(
        "mono/.devcontainer/web/devcontainer.json",
        "{ \"image\": \"node:22\" }\n",
    );
    env.write("mono/README.md", "# mono\n");
    commit_all(&repo);
    env.add("git-checkout", "local/mono", &repo, &[]).ok();
    let api = env
        .run(&[
            "resource",
            "show",
            "local/mono-devcontainer-api",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(api["properties"]["image"], "python:3", "{api}");
    assert_eq!(api["properties"]["config-folder"], "api");
    env.run(&["resource", "show", "local/mono-devcontainer-web"])
        .ok();

    // Two, neither the default: the router will not guess.
    env.run(&["env", "resolve", "local/mono"]).refused(&[
        "local/mono holds 2 devcontainers",
        "local/mono-devcontainer-api, local/mono-devcontainer-web",
        "specific:NAME",
    ]);
    let chosen = resolve(
        &env,
        &[
            "local/mono",
            "--tool-env",
            "specific:local/mono-devcontainer-web",
        ],
    );
    assert_eq!(
        chosen["environment"]["name"], "local/mono-devcontainer-web",
        "{chosen}"
    );

    // A default configuration appears: it is the one level 3 gives.
    env.write(
        "mono/.devcontainer/devcontainer.json",
        "{ \"image\": \"debian\" }\n",
    );
    env.run(&["resource", "refresh"]).ok();
    let route = resolve(&env, &["local/mono"]);
    assert_eq!(
        route["environment"]["name"], "local/mono-devcontainer",
        "{route}"
    );
    assert_eq!(route["level"], "devcontainer");
}

#[test]
fn the_only_devcontainer_in_a_subfolder_is_the_one_given() {
    let env = Env::new();
    let repo = env.mkdir("one");
    env.write(
        "one/.devcontainer/python/devcontainer.json",
        "{ \"image\": \"python:3\" }\n",
    );
    commit_all(&repo);
    env.add("git-checkout", "local/one", &repo, &[]).ok();
    let route = resolve(&env, &["local/one"]);
    assert_eq!(
        route["environment"]["name"], "local/one-devcontainer-python",
        "{route}"
    );
}
