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
            .contains("local/docs/rule-1 (fs-directory)  (placeholder for */: not enumerated yet)"),
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
