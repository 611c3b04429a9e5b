//! Local-mode placeholders through the real binary: a type with discovery
//! rules and no handler gets one placeholder child per rule, shown as
//! such, and a handler's real entries replace them once the type has one.

use crate::common;
use crate::common::Env;
use serde_json::Value;

const RULES: &str = "name: myteam/docs
resource_kind: physical
user_addable: true
cli_args:
  - {name: path, type: path, required: true}
child_types: [fs-directory, fs-file]
auto_discovery:
  enabled: true
  rules:
    - {type: fs-directory, pattern: \"*/\"}
    - {type: fs-file, pattern: \"*.md\"}
";

fn children(env: &Env, name: &str) -> Vec<Value> {
    let tree = env.run(&["resource", "tree", name, "-o", "json"]).json();
    tree["children"].as_array().unwrap().clone()
}

#[test]
fn rules_without_a_handler_give_placeholders_until_a_handler_enumerates() {
    let env = Env::new();
    let file = env.write("docs.yaml", RULES);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("docs/guide.md", "# guide\n");
    env.write("docs/img/logo.txt", "logo\n");
    let docs = env.path("docs");
    env.add("myteam/docs", "local/docs", &docs, &[]).ok();
    let placeholders = children(&env, "local/docs");
    assert_eq!(placeholders.len(), 2, "{placeholders:#?}");
    assert_eq!(placeholders[0]["name"], "local/docs/rule-1");
    assert_eq!(placeholders[0]["resource_type_name"], "fs-directory");
    assert_eq!(placeholders[0]["placeholder"], "*/");
    assert_eq!(placeholders[1]["placeholder"], "*.md");
    assert!(placeholders.iter().all(|p| p["location"].is_null()));
    let shown = env
        .run(&["resource", "show", "local/docs/rule-2", "-o", "json"])
        .json();
    assert_eq!(shown["properties"]["placeholder"], "true");
    assert_eq!(shown["auto_discovered"], true);
    let tree = env.run(&["resource", "tree", "local/docs"]);
    assert!(
        tree.ok()
            .contains("── rule-1 (fs-directory)  (placeholder for */: not enumerated yet)"),
        "{}",
        tree.stdout
    );
    // The type gains a handler: the next refresh enumerates, and the
    // placeholders go.
    let with_handler =
        format!("{RULES}handler: cleveragents.resource.handlers.fs:FsDirectoryHandler\n");
    let file = env.write("docs.yaml", &with_handler);
    env.run(&[
        "resource",
        "type",
        "add",
        "--replace",
        file.to_str().unwrap(),
    ])
    .ok();
    let report = env.run(&["resource", "refresh", "-o", "json"]).json();
    let removed = common::sorted(&report["changed"][0]["removed"]);
    assert_eq!(
        removed,
        ["local/docs/rule-1", "local/docs/rule-2"],
        "{report}"
    );
    let names: Vec<String> = children(&env, "local/docs")
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["local/docs/guide.md", "local/docs/img"]);
}

fn child_names(env: &Env, name: &str) -> Vec<String> {
    children(env, name)
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn discover_and_refresh_bring_placeholders_in_line_with_the_rules_as_they_are_now() {
    let env = Env::new();
    let file = env.write("docs.yaml", RULES);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    let docs = env.mkdir("docs");
    env.add("myteam/docs", "local/docs", &docs, &[]).ok();
    let first = env
        .run(&["resource", "show", "local/docs/rule-1", "-o", "json"])
        .json();

    // Nothing changed: discover keeps them, refresh checks the resource.
    let out = env.run(&["resource", "discover", "local/docs"]);
    assert!(
        out.ok().contains("0 new, 0 gone, 0 updated, 2 unchanged"),
        "{}",
        out.stdout
    );
    let report = env.run(&["resource", "refresh", "-o", "json"]).json();
    assert_eq!(report["checked"], 1, "{report}");
    assert_eq!(report["unchanged"], 1, "{report}");

    // The rules change: the second one's pattern, and a third one.
    let changed = RULES.replace("*.md", "*.txt") + "    - {type: fs-file, pattern: \"*.rst\"}\n";
    let file = env.write("docs.yaml", &changed);
    env.run(&[
        "resource",
        "type",
        "add",
        "--replace",
        file.to_str().unwrap(),
    ])
    .ok();
    let report = env.run(&["resource", "refresh", "-o", "json"]).json();
    assert_eq!(
        common::sorted(&report["changed"][0]["added"]),
        ["local/docs/rule-2", "local/docs/rule-3"],
        "{report}"
    );
    assert_eq!(
        common::sorted(&report["changed"][0]["removed"]),
        ["local/docs/rule-2"]
    );
    assert_eq!(
        child_names(&env, "local/docs"),
        [
            "local/docs/rule-1",
            "local/docs/rule-2",
            "local/docs/rule-3"
        ]
    );
    let rule2 = env
        .run(&["resource", "show", "local/docs/rule-2", "-o", "json"])
        .json();
    assert_eq!(rule2["properties"]["pattern"], "*.txt");
    // The unchanged rule's placeholder is the same resource.
    let again = env
        .run(&["resource", "show", "local/docs/rule-1", "-o", "json"])
        .json();
    assert_eq!(again["resource_id"], first["resource_id"]);

    // A rule removed: `discover` drops its placeholder.
    let file = env.write("docs.yaml", RULES);
    env.run(&[
        "resource",
        "type",
        "add",
        "--replace",
        file.to_str().unwrap(),
    ])
    .ok();
    let out = env.run(&["resource", "discover", "local/docs"]);
    assert!(out.ok().contains("1 new, 2 gone"), "{}", out.stdout);
    assert_eq!(
        child_names(&env, "local/docs"),
        ["local/docs/rule-1", "local/docs/rule-2"]
    );
}

#[test]
fn a_type_with_neither_rules_nor_a_handler_has_nothing_to_discover_with() {
    let env = Env::new();
    let file = env.write(
        "bare.yaml",
        "name: myteam/bare\nresource_kind: physical\nuser_addable: true\ncli_args:\n  - {name: path, type: path, required: true}\n",
    );
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    let dir = env.mkdir("bare");
    env.add("myteam/bare", "local/bare", &dir, &[]).ok();
    env.run(&["resource", "discover", "local/bare"])
        .refused(&["has no handler to discover with"]);
}

#[test]
fn a_sandbox_of_a_handler_less_resource_enumerates_its_copy_by_the_rules() {
    let env = Env::new();
    let file = env.write(
        "docs.yaml",
        &format!("{RULES}sandbox_strategy: copy_on_write\n"),
    );
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("docs/guide.md", "# guide\n");
    env.write("docs/img/logo.txt", "logo\n");
    let docs = env.path("docs");
    env.add("myteam/docs", "local/docs", &docs, &[]).ok();
    let made = env
        .run(&["sandbox", "create", "local/docs", "-o", "json"])
        .json();
    let rules = made["enumerated"].as_array().unwrap();
    assert_eq!(rules[0]["pattern"], "*/");
    assert_eq!(rules[0]["entries"], serde_json::json!(["img"]));
    assert_eq!(rules[1]["entries"], serde_json::json!(["guide.md"]));
    // What the agent adds is what the rules find in its copy; the
    // original and the registry's placeholders are as they were.
    let id = made["sandbox_id"].as_str().unwrap();
    let workdir = std::path::PathBuf::from(made["workdir"].as_str().unwrap());
    std::fs::write(workdir.join("notes.md"), "n").unwrap();
    let shown = env.run(&["sandbox", "show", id, "-o", "json"]).json();
    assert_eq!(
        shown["enumerated"][1]["entries"],
        serde_json::json!(["guide.md", "notes.md"])
    );
    let text = env.run(&["sandbox", "show", id]);
    assert!(
        text.ok()
            .contains("rule 2 (fs-file *.md): 2 entries: guide.md, notes.md"),
        "{}",
        text.stdout
    );
    assert_eq!(children(&env, "local/docs").len(), 2);
    env.run(&["sandbox", "destroy", id]).ok();
}

/// At sandbox creation each rule lists what its type
/// stands for — `*` for `fs-file` lists regular files (one link), not the
/// directories, symlinks and hard links the `*/`, `fs-symlink` and
/// `fs-hardlink` rules list — so no entry is claimed by two rules.
#[test]
fn a_sandbox_enumerates_each_rule_by_its_type_and_no_entry_twice() {
    let env = Env::new();
    let yaml = "name: myteam/tree
resource_kind: physical
user_addable: true
sandbox_strategy: copy_on_write
cli_args:
  - {name: path, type: path, required: true}
child_types: [fs-directory, fs-file, fs-symlink, fs-hardlink]
auto_discovery:
  enabled: true
  rules:
    - {type: fs-directory, pattern: \"*/\"}
    - {type: fs-file, pattern: \"*\"}
    - {type: fs-symlink, pattern: \"*\"}
    - {type: fs-hardlink, pattern: \"*\"}
";
    let file = env.write("tree.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write("tree/guide.md", "# guide\n");
    env.write("tree/img/logo.txt", "logo\n");
    std::os::unix::fs::symlink("img", env.path("tree/link")).unwrap();
    env.add("myteam/tree", "local/tree", &env.path("tree"), &[])
        .ok();
    let made = env
        .run(&["sandbox", "create", "local/tree", "-o", "json"])
        .json();
    let id = made["sandbox_id"].as_str().unwrap();
    // A hard link the agent makes in its copy.
    let workdir = std::path::PathBuf::from(made["workdir"].as_str().unwrap());
    std::fs::write(workdir.join("shared.txt"), "s").unwrap();
    std::fs::hard_link(workdir.join("shared.txt"), workdir.join("shared-too.txt")).unwrap();
    let shown = env.run(&["sandbox", "show", id, "-o", "json"]).json();
    let lists: Vec<&Value> = (0..4).map(|n| &shown["enumerated"][n]["entries"]).collect();
    assert_eq!(*lists[0], serde_json::json!(["img"]));
    assert_eq!(*lists[1], serde_json::json!(["guide.md"]));
    assert_eq!(*lists[2], serde_json::json!(["link"]));
    assert_eq!(
        *lists[3],
        serde_json::json!(["shared-too.txt", "shared.txt"])
    );
    env.run(&["sandbox", "destroy", id]).ok();
}

/// A rule whose type a plugin handles is enumerated through that handler:
/// of what `*` matches in the copy (files and directories alike), only
/// the entries the example plugin's `PythonPackageHandler.validate`
/// accepts (a directory holding `pyproject.toml` or `setup.py`) are
/// listed, while the `*/` rule for `fs-directory` lists every directory.
#[test]
fn a_sandbox_enumerates_a_plugin_types_rule_through_its_handler() {
    let env = Env::new();
    let wasm = common::wasm("python_package.wasm");
    env.run(&["plugin", "add", wasm.to_str().unwrap()]).ok();
    let yaml = "name: myteam/monorepo
resource_kind: physical
user_addable: true
sandbox_strategy: copy_on_write
cli_args:
  - {name: path, type: path, required: true}
child_types: [fs-directory, myteam/python-package]
auto_discovery:
  enabled: true
  rules:
    - {type: myteam/python-package, pattern: \"*\"}
    - {type: fs-directory, pattern: \"*/\"}
";
    let file = env.write("monorepo.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    env.write(
        "mono/tools/pyproject.toml",
        "[project]\nname = \"tools\"\nversion = \"1.0\"\n",
    );
    env.write("mono/legacy/setup.py", "from setuptools import setup\n");
    env.write("mono/docs/index.md", "# docs\n");
    env.write("mono/README.md", "# mono\n");
    env.add("myteam/monorepo", "local/mono", &env.path("mono"), &[])
        .ok();
    let made = env
        .run(&["sandbox", "create", "local/mono", "-o", "json"])
        .json();
    let id = made["sandbox_id"].as_str().unwrap();
    let shown = env.run(&["sandbox", "show", id, "-o", "json"]).json();
    assert_eq!(
        shown["enumerated"][0]["entries"],
        serde_json::json!(["legacy", "tools"]),
        "{shown}"
    );
    assert_eq!(
        shown["enumerated"][1]["entries"],
        serde_json::json!(["docs", "legacy", "tools"]),
        "{shown}"
    );
    env.run(&["sandbox", "destroy", id]).ok();
}

/// A hostile handler on a rule's type costs one deadline, not one per
/// entry: `test.faulty:Loop` spins in `validate`, so after its first
/// timeout the rule lists nothing more and says it is truncated, and
/// `sandbox show` answers.
#[test]
fn a_looping_handler_on_a_rules_type_stops_the_enumeration_not_the_sandbox() {
    let env = common::faulty_home(&["Loop"]);
    let yaml = "name: myteam/stack
resource_kind: physical
user_addable: true
sandbox_strategy: copy_on_write
cli_args:
  - {name: path, type: path, required: true}
child_types: [test/loop]
auto_discovery:
  enabled: true
  rules:
    - {type: test/loop, pattern: \"*\"}
";
    let file = env.write("stack.yaml", yaml);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    for n in 0..20 {
        env.write(&format!("stack/entry-{n:02}"), "x\n");
    }
    env.add("myteam/stack", "local/stack", &env.path("stack"), &[])
        .ok();
    let made = env
        .run(&[
            "--handler-timeout",
            "1",
            "sandbox",
            "create",
            "local/stack",
            "-o",
            "json",
        ])
        .json();
    let shown = env
        .run(&[
            "--handler-timeout",
            "1",
            "sandbox",
            "show",
            made["sandbox_id"].as_str().unwrap(),
            "-o",
            "json",
        ])
        .json();
    assert_eq!(shown["enumerated"][0]["entries"], serde_json::json!([]));
    // Truncated: it stopped asking after the first fault, rather than
    // waiting out a deadline for every entry.
    assert_eq!(shown["enumerated"][0]["truncated"], true, "{shown}");
}
