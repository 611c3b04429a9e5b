//! Trust through the real binary: the round trip (refused → `trust`
//! shows the privileges → `start` works → the configuration changes →
//! refused until trusted again), trust of everything below a checkout,
//! what routing says and does about untrusted devcontainers (a vendored
//! one is passed over), and the host's check of a `config-path` a
//! component answers.

use crate::common::{self, Env, commit_all, stand_ins, tool_log};
use crate::devcontainer_hostile::{DC, repo};

fn container(env: &Env) -> serde_json::Value {
    env.run(&["resource", "show", DC, "-o", "json"]).json()["container"].clone()
}

#[test]
fn the_trust_round_trip_from_the_command_line() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = repo(
        &env,
        r#"{"image": "debian:12", "runArgs": ["--cap-add=SYS_ADMIN"]}"#,
        &[],
    );
    assert_eq!(container(&env)["trust"]["state"], "untrusted");
    let human = env.run(&["resource", "show", DC]);
    assert!(
        human.ok().contains("trust: NOT TRUSTED"),
        "{}",
        human.stdout
    );

    // Routing answers, saying it may not be activated; a tool that
    // requires a container is refused it.
    let r = env
        .run(&["env", "resolve", "local/my-repo", "-o", "json"])
        .json();
    assert_eq!(r["environment"]["name"], DC);
    assert_eq!(r["trust"]["trusted"], false, "{r}");
    assert!(
        r["trust"]["why"]
            .as_str()
            .unwrap()
            .contains("agents resource trust")
    );
    let text = env.run(&["env", "resolve", "local/my-repo"]);
    assert!(text.ok().contains("trust:"), "{}", text.stdout);
    env.run(&[
        "env",
        "resolve",
        "local/my-repo",
        "--tool-env",
        "required:container",
    ])
    .refused(&[
        "requires a container",
        "not trusted",
        "agents resource trust",
    ]);
    env.run(&["resource", "start", DC]).refused(&[
        "cannot start",
        "not trusted",
        "agents resource trust local/my-repo-devcontainer",
    ]);
    assert_eq!(
        container(&env)["state"],
        "detected",
        "a refusal changes no state"
    );

    // Trusting shows the privileges, records who, and start works.
    let trusted = env
        .run(&["resource", "trust", DC, "--yes", "-o", "json"])
        .json();
    let items = trusted["summary"]["devcontainers"][0]["summary"]["items"].to_string();
    assert!(
        items.contains("adds the Linux capability SYS_ADMIN"),
        "{items}"
    );
    let by = trusted["trusted"][0]["by"].as_str().unwrap();
    assert!(by.contains("(uid "), "{by}");
    assert_eq!(container(&env)["trust"]["state"], "trusted");
    let r = env
        .run(&["env", "resolve", "local/my-repo", "-o", "json"])
        .json();
    assert_eq!(r["trust"]["trusted"], true, "{r}");
    env.run(&["resource", "start", DC]).ok();
    assert!(tool_log(&bin).contains("docker run"));

    // The configuration changes: refused until trusted again.
    std::fs::write(
        repo.join(".devcontainer/devcontainer.json"),
        r#"{"image": "debian:12", "runArgs": ["--privileged"]}"#,
    )
    .unwrap();
    let state = container(&env)["trust"].clone();
    assert_eq!(state["state"], "changed", "{state}");
    for args in [
        vec!["resource", "rebuild", DC],
        vec!["resource", "start", DC],
        vec!["env", "resolve", "local/my-repo", "--activate"],
    ] {
        env.run(&args)
            .refused(&["changed since", "trusted it", "agents resource trust"]);
    }
    env.run(&["resource", "trust", DC, "--yes"]).ok();
    env.run(&["resource", "rebuild", DC]).ok();

    // Taken back: refused again.
    let out = env.run(&["resource", "untrust", DC]);
    assert!(out.ok().contains("no longer trusted"), "{}", out.stdout);
    env.run(&["resource", "start", DC])
        .refused(&["not trusted"]);
}

#[test]
fn trusting_a_checkout_trusts_each_devcontainer_below_it_and_goes_with_it() {
    let mut env = Env::new();
    stand_ins(&mut env, &["docker"]);
    let repo = env.mkdir("repo");
    env.write("repo/.devcontainer/devcontainer.json", r#"{"image": "a"}"#);
    env.write(
        "repo/sub/.devcontainer/devcontainer.json",
        r#"{"image": "b"}"#,
    );
    commit_all(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    env.run(&["resource", "discover", "--recursive", "local/repo/worktree"])
        .ok();
    let out = env.run(&["resource", "trust", "local/repo", "--yes", "-o", "json"]);
    let names = common::sorted(
        &out.json()["trusted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect::<serde_json::Value>(),
    );
    assert_eq!(
        names,
        [
            "local/repo-devcontainer",
            "local/repo/worktree/sub-devcontainer"
        ]
    );
    let count = || env.count("SELECT count(*) FROM devcontainer_trust");
    assert_eq!(count(), 2);
    env.run(&["resource", "trust", "local/nope", "--yes"])
        .refused(&["local/nope"]);
    env.mkdir("plain");
    env.add("fs-directory", "local/plain", &env.path("plain"), &[])
        .ok();
    env.run(&["resource", "trust", "local/plain", "--yes"])
        .refused(&["no devcontainer-instance at or below it"]);
    // It goes with its resource.
    env.run(&["resource", "remove", "local/repo"]).ok();
    assert_eq!(count(), 0);
}

#[test]
fn a_vendored_devcontainer_is_passed_over_until_it_is_trusted() {
    let mut env = Env::new();
    stand_ins(&mut env, &["docker"]);
    let repo = env.mkdir("repo");
    env.write(
        "repo/.devcontainer/devcontainer.json",
        r#"{"image": "ours"}"#,
    );
    env.write(
        "repo/vendor/dep/.devcontainer/devcontainer.json",
        r#"{"image": "theirs", "runArgs": ["--privileged"]}"#,
    );
    env.write("repo/vendor/dep/lib.c", "int x;\n");
    commit_all(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    env.run(&["resource", "discover", "--recursive", "local/repo/worktree"])
        .ok();
    let file = "local/repo/worktree/vendor/dep/lib.c";
    let vendored = "local/repo/worktree/vendor/dep-devcontainer";
    let r = env.run(&["env", "resolve", file, "-o", "json"]).json();
    assert_eq!(r["environment"]["name"], "local/repo-devcontainer", "{r}");
    let why = r["reason"].as_str().unwrap();
    assert!(
        why.contains("passed over") && why.contains(vendored) && why.contains("not trusted"),
        "{why}"
    );
    // Trusted, it is the nearest.
    env.run(&["resource", "trust", vendored, "--yes"]).ok();
    let r = env.run(&["env", "resolve", file, "-o", "json"]).json();
    assert_eq!(r["environment"]["name"], vendored, "{r}");
    // Changed since: passed over again.
    env.write(
        "repo/vendor/dep/.devcontainer/devcontainer.json",
        r#"{"image": "theirs:2"}"#,
    );
    let r = env.run(&["env", "resolve", file, "-o", "json"]).json();
    assert_eq!(r["environment"]["name"], "local/repo-devcontainer", "{r}");
    assert!(
        r["reason"].as_str().unwrap().contains("changed since"),
        "{r}"
    );
}

/// A type whose handler (`test.faulty:ChildAt`) answers one
/// devcontainer-instance child where `loc/where.txt` says, with the
/// `config-path` in `loc/config.txt`.
fn third_party_devcontainer(env: &Env) {
    let yaml = "name: test/holder\nresource_kind: physical\nuser_addable: true\n\
         cli_args:\n  - {name: path, type: path, required: true}\n\
         child_types: [devcontainer-instance]\nhandler: test.faulty:ChildAt\n";
    let file = env.write("holder.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("loc/type.txt", "devcontainer-instance");
    env.write("loc/where.txt", "dc");
    env.write(
        "loc/dc/.devcontainer/devcontainer.json",
        r#"{"image": "a"}"#,
    );
    env.write(
        "outside/config.json",
        r#"{"image": "b", "runArgs": ["--privileged"]}"#,
    );
}

#[test]
fn a_config_path_a_component_answers_must_be_a_regular_file_inside_its_location() {
    let env = common::faulty_home(&[]);
    third_party_devcontainer(&env);
    let outside = env.path("outside/config.json");
    std::os::unix::fs::symlink(&outside, env.path("loc/dc/link.json")).unwrap();
    let before = env.state();
    for config in [
        outside.to_str().unwrap(),
        "../../outside/config.json",
        "../x.json",
        "link.json",
        ".devcontainer",
    ] {
        env.write("loc/config.txt", config);
        let loc = env.path("loc");
        env.add("test/holder", "local/h", &loc, &[]).refused(&[
            "handler test.faulty:ChildAt answered discover with a result the host refuses",
            "config-path",
            "a devcontainer's configuration must be a regular file inside its location",
        ]);
        assert_eq!(env.state(), before, "{config} changed the registry");
    }
    // Inside, relative to the devcontainer: accepted, stored absolute.
    env.write("loc/config.txt", ".devcontainer/devcontainer.json");
    let loc = env.path("loc");
    env.add("test/holder", "local/h", &loc, &[]).ok();
    let child = env
        .run(&["resource", "show", "local/h/child", "-o", "json"])
        .json();
    let stored = child["properties"]["config-path"].as_str().unwrap();
    let real = std::fs::canonicalize(env.path("loc/dc/.devcontainer/devcontainer.json")).unwrap();
    assert_eq!(std::path::Path::new(stored), real);
}

/// `agents ARGS` on a terminal (util-linux `script` gives it one), typing
/// `answer`; `None` when `script` is not installed.
fn at_a_terminal(env: &Env, args: &[&str], answer: &str) -> Option<common::Run> {
    use std::io::Write;
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let mut line = vec![
        quote(env!("CARGO_BIN_EXE_agents")),
        "--home".into(),
        quote(env.home.path().to_str().unwrap()),
    ];
    line.extend(args.iter().map(|a| quote(a)));
    let mut child = std::process::Command::new("script")
        .args(["-qec", &line.join(" "), "/dev/null"])
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .env("NO_COLOR", "1")
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .current_dir(env.scratch.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    Some(common::Run::from(child.wait_with_output().unwrap()))
}

#[test]
fn at_a_terminal_the_person_is_asked_and_only_yes_records() {
    let env = Env::new();
    repo(
        &env,
        r#"{"image": "debian:12", "runArgs": ["--pid=host"]}"#,
        &[],
    );
    let Some(no) = at_a_terminal(&env, &["resource", "trust", DC], "n\n") else {
        common::skipped("at_a_terminal…", "util-linux `script` is not installed");
        return;
    };
    assert_eq!(no.code, 1, "{}", no.stdout);
    for needle in [
        "! shares the host's process namespace",
        "trust this devcontainer as shown? [y/N]",
        "nothing was trusted: you did not answer yes",
    ] {
        assert!(
            no.stdout.contains(needle),
            "{needle:?} not in {}",
            no.stdout
        );
    }
    assert_eq!(container(&env)["trust"]["state"], "untrusted");
    let yes = at_a_terminal(&env, &["resource", "trust", DC], "y\n").unwrap();
    assert_eq!(yes.code, 0, "{}", yes.stdout);
    assert!(
        yes.stdout
            .contains("trusted local/my-repo-devcontainer for"),
        "{}",
        yes.stdout
    );
    assert_eq!(container(&env)["trust"]["state"], "trusted");
}
