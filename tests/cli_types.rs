//! `agents resource type …` end to end: the real binary on a temp home.

use crate::common::{Env, PYTHON_PACKAGE_YAML};

const BUILTINS: &[&str] = &[
    "git",
    "git-remote",
    "git-branch",
    "git-tag",
    "git-commit",
    "git-tree",
    "git-tree-entry",
    "git-stash",
    "git-submodule",
    "git-checkout",
    "fs-mount",
    "fs-directory",
    "fs-file",
    "fs-symlink",
    "fs-hardlink",
    "file",
    "directory",
    "symlink",
    "commit",
    "branch",
    "tag",
    "remote",
    "submodule",
    "tree",
    "container-instance",
    "devcontainer-instance",
];

/// A chain `t/l1 ← t/l2 ← … ← t/lN` (each inherits the previous).
fn chain_file(env: &Env, level: usize) -> std::path::PathBuf {
    let body = if level == 1 {
        "name: t/l1\nresource_kind: physical\nuser_addable: true\n".to_owned()
    } else {
        format!("name: t/l{level}\ninherits: t/l{}\n", level - 1)
    };
    env.write(&format!("l{level}.yaml"), &body)
}

/// Register a type from YAML text through the CLI.
fn add_type(env: &Env, file: &str, yaml: &str) {
    let path = env.write(file, yaml);
    env.run(&["resource", "type", "add", path.to_str().unwrap()])
        .ok();
}

/// `t/a` and its subtype `t/b`.
fn parent_and_subtype(env: &Env) {
    add_type(env, "a.yaml", "name: t/a\nresource_kind: physical\n");
    add_type(env, "b.yaml", "name: t/b\ninherits: t/a\n");
}

#[test]
fn a_fresh_home_lists_every_built_in_type() {
    let env = Env::new();
    let out = env.run(&["resource", "type", "list"]);
    let text = out.ok();
    assert!(text.starts_with("NAME"), "{text}");
    for name in BUILTINS {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(name)),
            "{name} missing from:\n{text}"
        );
    }
    let json = env.run(&["resource", "type", "list", "-o", "json"]).json();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), BUILTINS.len(), "{names:?}");
}

#[test]
fn type_json_uses_the_spec_field_names() {
    let env = Env::new();
    let json = env
        .run(&["resource", "type", "show", "git-checkout", "-o", "json"])
        .json();
    for field in [
        "name",
        "description",
        "resource_kind",
        "sandbox_strategy",
        "user_addable",
        "built_in",
        "cli_args",
        "parent_types",
        "child_types",
        "handler",
        "capabilities",
        "auto_discovery",
        "equivalence",
        "inherits",
    ] {
        assert!(json.get(field).is_some(), "{field} missing: {json}");
    }
    assert_eq!(json["resource_kind"], "physical");
    assert_eq!(json["sandbox_strategy"], "git_worktree");
    assert_eq!(json["built_in"], true);
    assert_eq!(
        json["handler"],
        "cleveragents.resource.handlers.git:GitCheckoutHandler"
    );
    let fs = env.run(&["resource", "type", "show", "fs-directory", "-o", "yaml"]);
    assert!(
        fs.ok().contains("sandbox_strategy: copy_on_write"),
        "{}",
        fs.stdout
    );
    assert!(fs.stdout.contains("FsDirectoryHandler"), "{}", fs.stdout);
}

#[test]
fn the_spec_example_type_registers_in_both_forms() {
    let env = Env::new();
    let file = env.write("types/python-package.yaml", PYTHON_PACKAGE_YAML);
    let out = env.run(&["resource", "type", "add", file.to_str().unwrap()]);
    assert!(
        out.ok().contains("registered type myteam/python-package"),
        "{}",
        out.stdout
    );
    let shown = env
        .run(&[
            "resource",
            "type",
            "show",
            "myteam/python-package",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(shown["child_types"][0], "fs-directory");
    assert_eq!(shown["cli_args"][0]["name"], "path");

    let other = Env::new();
    let file = other.write(
        "types/my.yaml",
        &PYTHON_PACKAGE_YAML.replace("python-package", "db"),
    );
    other
        .run(&[
            "resource",
            "type",
            "add",
            "--config",
            file.to_str().unwrap(),
        ])
        .ok();
    let listed = other.run(&["resource", "type", "list", "--namespace", "myteam"]);
    assert!(listed.ok().contains("myteam/db"), "{}", listed.stdout);
    assert_eq!(listed.stdout.lines().count(), 2, "{}", listed.stdout);
}

#[test]
fn registering_the_same_type_twice_needs_replace() {
    let env = Env::new();
    let file = env.write("t.yaml", PYTHON_PACKAGE_YAML);
    let path = file.to_str().unwrap();
    env.run(&["resource", "type", "add", path]).ok();
    let before = env.snapshot();
    env.run(&["resource", "type", "add", path])
        .refused(&["myteam/python-package is already registered", "--replace"]);
    assert_eq!(env.snapshot(), before);
    env.write(
        "t.yaml",
        &PYTHON_PACKAGE_YAML.replace("A Python package directory", "Changed"),
    );
    env.run(&["resource", "type", "add", "--replace", path])
        .ok();
    let shown = env
        .run(&[
            "resource",
            "type",
            "show",
            "myteam/python-package",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(shown["description"], "Changed");
}

#[test]
fn a_bad_type_file_is_refused_with_file_field_and_reason_and_changes_nothing() {
    let env = Env::new();
    env.run(&["resource", "type", "list"]).ok();
    let before = env.snapshot();
    let cases: &[(&str, &[&str])] = &[
        (
            "name: myteam/x\nresource_kind: physical\ncolour: blue\n",
            &["colour"],
        ),
        (
            "name: myteam/x\nresource_kind: solid\n",
            &["resource_kind", "solid"],
        ),
        (
            "name: myteam/x\nresource_kind: physical\nsandbox_strategy: snapshot\n",
            &["sandbox_strategy", "snapshot"],
        ),
        (
            "name: myteam/x\nresource_kind: physical\ncli_args:\n  - name: n\n    type: float\n",
            &["cli_args[0]", "float"],
        ),
        (
            "name: python-package\nresource_kind: physical\n",
            &["namespace/name"],
        ),
        (
            "name: myteam/x\nresource_kind: physical\ncli_args:\n  - {name: a, type: string}\n  - {name: a, type: string}\n",
            &["cli_args", "a"],
        ),
        (
            "name: myteam/x\nresource_kind: physical\nhandler: nocolon\n",
            &["handler", "module:Class"],
        ),
    ];
    for (i, (yaml, parts)) in cases.iter().enumerate() {
        let file = env.write(&format!("bad{i}.yaml"), yaml);
        let path = file.to_str().unwrap();
        let out = env.run(&["resource", "type", "add", path]);
        let mut expect = vec![path];
        expect.extend_from_slice(parts);
        out.refused(&expect);
        assert_eq!(env.snapshot(), before, "case {i} changed the registry");
    }
}

#[test]
fn a_type_naming_an_unknown_type_is_refused() {
    let env = Env::new();
    let file = env.write(
        "t.yaml",
        &PYTHON_PACKAGE_YAML.replace("- git-checkout", "- myteam/nope"),
    );
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .refused(&["myteam/nope", "parent_types", "register it first"]);
}

#[test]
fn an_inheritance_chain_of_five_is_accepted_and_six_refused() {
    let env = Env::new();
    for level in 1..=5 {
        let file = chain_file(&env, level);
        env.run(&["resource", "type", "add", file.to_str().unwrap()])
            .ok();
    }
    let file = chain_file(&env, 6);
    let before = env.snapshot();
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .refused(&["t/l6", "5"]);
    assert_eq!(env.snapshot(), before);
}

#[test]
fn an_inheritance_cycle_is_refused() {
    let env = Env::new();
    parent_and_subtype(&env);
    let a2 = env.write("a2.yaml", "name: t/a\ninherits: t/b\n");
    let before = env.snapshot();
    let err = env
        .run(&["resource", "type", "add", "--replace", a2.to_str().unwrap()])
        .refused(&["t/a", "t/b"])
        .to_owned();
    assert!(
        err.to_lowercase().contains("cycl") || err.contains("circular"),
        "{err}"
    );
    assert_eq!(env.snapshot(), before);
}

#[test]
fn a_parent_type_with_subtypes_cannot_be_removed() {
    let env = Env::new();
    parent_and_subtype(&env);
    env.run(&["resource", "type", "remove", "t/a"]).refused(&[
        "cannot remove type t/a",
        "t/b",
        "subtypes",
    ]);
    env.run(&["resource", "type", "remove", "t/b"]).ok();
    env.run(&["resource", "type", "remove", "t/a"]).ok();
    env.run(&["resource", "type", "show", "t/a"])
        .refused(&["no resource type t/a"]);
}

#[test]
fn built_in_types_cannot_be_removed() {
    let env = Env::new();
    env.run(&["resource", "type", "remove", "git"])
        .refused(&["git is built in"]);
}

#[test]
fn explain_shows_merged_lists_with_their_origins() {
    let env = Env::new();
    let out = env.run(&["resource", "type", "explain", "devcontainer-instance"]);
    let text = out.ok();
    assert!(
        text.contains("devcontainer-instance → container-instance"),
        "{text}"
    );
    // Inherited args say where they came from; the subtype's own do not.
    let image = text.lines().find(|l| l.contains("--image")).unwrap();
    assert!(image.contains("(from container-instance)"), "{text}");
    let config = text.lines().find(|l| l.contains("--config-path")).unwrap();
    assert!(!config.contains("(from"), "{text}");
    let json = env
        .run(&[
            "resource",
            "type",
            "explain",
            "devcontainer-instance",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(json["handler"]["from"], "devcontainer-instance");
    assert_eq!(
        json["handler"]["value"],
        "cleveragents.resource.handlers.devcontainer:DevcontainerHandler"
    );
}

#[test]
fn usage_errors_exit_two() {
    let env = Env::new();
    let out = env.run(&["resource", "type", "frobnicate"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.starts_with("agents: error:"), "{}", out.stderr);
}

#[test]
fn the_spec_example_type_is_sandboxable_and_an_unisolated_resource_is_not_checkpointable() {
    let env = Env::new();
    let file = env.write("types/python-package.yaml", PYTHON_PACKAGE_YAML);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    // `copy_on_write` and no capabilities: sandbox and checkpoint by default.
    let ty = env
        .run(&[
            "resource",
            "type",
            "show",
            "myteam/python-package",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(ty["capabilities"]["sandbox"], true, "{ty}");
    assert_eq!(ty["capabilities"]["checkpoint"], true, "{ty}");
    let pkg = env.mkdir("pkg");
    let added = env
        .run(&[
            "resource",
            "add",
            "myteam/python-package",
            "local/pkg",
            "--path",
            pkg.to_str().unwrap(),
            "-o",
            "json",
        ])
        .json();
    assert_eq!(added["capabilities"]["sandboxable"], true, "{added}");
    assert_eq!(added["capabilities"]["checkpointable"], true, "{added}");
    // A `git` repository: strategy `none`, so neither.
    let repo = env.mkdir("repo");
    crate::common::git(&repo, &["init", "-q"]);
    let git = env
        .run(&[
            "resource",
            "add",
            "git",
            "local/repo",
            "--path",
            repo.to_str().unwrap(),
            "-o",
            "json",
        ])
        .json();
    assert_eq!(git["capabilities"]["sandboxable"], false, "{git}");
    assert_eq!(git["capabilities"]["checkpointable"], false, "{git}");
}
