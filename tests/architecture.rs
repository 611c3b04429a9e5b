//! The module rules of docs/architecture.md, checked against the source.
//!
//! That page promises what nothing else enforced: "Dependencies point one
//! way" (its diagram), "No concern uses one that uses it back" (the modules
//! shared at the top of `registry/`), and no module circle. Modules in a
//! circle cannot be read, changed or moved apart, and a circle creeps
//! back unless a test refuses it.
//!
//! The check reads the files, not the compiler's view: each file's module
//! (`a/b.rs` and `a/b/mod.rs` are both `a::b`), the paths it names (every
//! `use` tree, in a function body too, and every inline `crate::`,
//! `super::` and `self::` path, in macro calls too), each resolved to the
//! longest prefix that is a module; and the methods of `Registry` it
//! calls (`self.name(…)` inside an `impl Registry`, `reg.name(…)` in the
//! registry's free functions), each the use of the module that defines
//! it — `Registry` is the one type whose `impl` is spread over rooms. A
//! use from `a::b::c` of `a::d::e` is the edge `b → d` among `a`'s
//! children; a parent and its children use each other freely. Test code
//! is left out: `tests`/`proptests` files and directories, `*_tests` and
//! `tests_*` files, and every item under `#[cfg(test)]` (a `mod x;` so
//! marked, `props` among them, with its file).
//!
//! A lint, not a Rust parser. What it cannot see: a path through a name a
//! `use` brought in (`use super::a; a::b::f()` counts as the `use` only),
//! a method of any other type another module implements, a `Registry`
//! method called on another name, `super` inside an inline `mod x { … }`
//! (read as the file's), a `#[path]` module (placed by its file name),
//! and the binary's uses of the library (`resource_host::…`, the public
//! API by construction).

mod scan;
#[cfg(test)]
mod self_tests;

use scan::{circles, edges, read_crate};

/// The diagram of docs/architecture.md: each module below `registry` and
/// the crate's modules it may use. A module not listed may use none, as
/// `atomic`, `text`, `digest`, `machine`, `natural`, `private_dir`, `roots`,
/// `user_files` and `yaml_bounds` do: a new module must be placed here.
const DIAGRAM: &[(&str, &str)] = &[
    ("scaffold", "model plugin user_files"),
    (
        "plugin",
        "model atomic credentials git_env private_dir digest text",
    ),
    ("signing", "model atomic private_dir"),
    ("sandbox", "model git_env digest text"),
    ("devcontainer", "model digest text yaml_bounds"),
    ("store", "model dag plugin private_dir"),
    ("builtin", "model typespec digest"),
    ("typespec", "model yaml_bounds"),
    ("oci", "model digest"),
    ("graph", "model text"),
    ("dag", "model"),
    ("routing", "model"),
    ("effects", "model"),
    ("credentials", "model"),
    ("home", "model private_dir"),
    ("git_env", "model text"),
    ("model", "text"),
];

/// Above the others and free to use them: the binary's `cli`, `registry`
/// and `front_end` (what the front ends read to open a registry).
const ABOVE: &str = "cli registry front_end";

/// `registry`'s children shared by every concern: none may use a concern.
const SHARED: &str =
    "args devcontainer_config document lookup recording event_op roots type_set error views";

/// The concerns of docs/architecture.md's table, directories of `registry/`.
const CONCERNS: &str = "types resources links environments sandboxes plugins events transfer trust";

#[test]
fn no_module_circle_remains() {
    let mut found = circles(&edges(&read_crate("src"), "src/"));
    found.extend(circles(&edges(&read_crate("python/src"), "python/src/")));
    refuse("module circles (docs/architecture.md)", found);
}

#[test]
fn dependencies_point_the_way_the_diagram_draws() {
    let mut refused = Vec::new();
    for ((parent, from, to), evidence) in edges(&read_crate("src"), "src/") {
        let drawn = DIAGRAM.iter().find(|(module, _)| *module == from);
        let may = drawn.map_or("", |(_, may)| may);
        if parent == "crate" && !listed(ABOVE, &from) && !listed(may, &to) {
            refused.push(format!("`{from}` must not use `{to}` ({evidence})"));
        }
    }
    refuse("against the diagram of docs/architecture.md", refused);
}

#[test]
fn registry_shared_modules_use_no_concern() {
    let mut refused = Vec::new();
    for ((parent, from, to), evidence) in edges(&read_crate("src"), "src/") {
        let placed = |m: &str| listed(SHARED, m) || listed(CONCERNS, m);
        if parent != "registry" {
            continue;
        } else if !placed(&from) || !placed(&to) {
            refused.push(format!("`{from}` or `{to}` is unplaced ({evidence})"));
        } else if listed(SHARED, &from) && listed(CONCERNS, &to) {
            let problem = format!("shared `registry::{from}` uses the concern `{to}`");
            refused.push(format!("{problem} ({evidence})"));
        }
    }
    refuse("registry/'s shared modules (docs/architecture.md)", refused);
}

fn listed(list: &str, module: &str) -> bool {
    list.split_whitespace().any(|m| m == module)
}

/// Fails naming each problem, under what was broken.
#[track_caller]
fn refuse(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}
