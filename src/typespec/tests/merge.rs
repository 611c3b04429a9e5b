//! Field resolution: defaults, overrides, per-flag capabilities, the
//! additive collections, `_replace`, and `references`.

use super::*;
use crate::model::{HandlerRef, Sourced, TypeCapabilities};

fn from(name: &str) -> Option<TypeName> {
    Some(tn(name))
}

#[test]
fn fields_no_type_declares_take_the_documented_defaults() {
    let t = Types::files(&["name: acme/t\nresource_kind: virtual\n"]).resolved("acme/t");
    assert_eq!(
        t.description,
        Sourced {
            value: String::new(),
            from: None
        }
    );
    assert_eq!(t.kind.from, from("acme/t"));
    assert_eq!(
        t.sandbox_strategy,
        Sourced {
            value: SandboxStrategy::None,
            from: None
        }
    );
    assert_eq!(
        t.user_addable,
        Sourced {
            value: false,
            from: None
        }
    );
    assert_eq!(
        t.capabilities.values(),
        TypeCapabilities {
            read: true,
            write: false,
            sandbox: false,
            checkpoint: false
        }
    );
    assert_eq!(origins(&t), [None, None, None, None]);
    assert_eq!(
        (t.handler, t.auto_discovery, t.equivalence),
        (None, None, None)
    );
    assert!(t.cli_args.is_empty() && t.parent_types.is_empty() && t.child_types.is_empty());
}

const BASE: &str = "name: acme/base
description: Base
resource_kind: physical
sandbox_strategy: copy_on_write
user_addable: true
handler: acme.handlers:BaseHandler
capabilities: {read: true, write: false, checkpoint: true}
cli_args:
  - {name: path, type: path, required: true, description: Root}
  - {name: depth, type: integer, default: 1}
parent_types: [git-checkout]
child_types: [fs-directory, fs-file]
";

#[test]
fn a_subtype_scalar_overrides_and_the_rest_is_inherited() {
    let types = Types::files(&[
        BASE,
        "name: acme/sub\ninherits: acme/base\ndescription: Sub\nsandbox_strategy: overlay\n",
    ]);
    let t = types.resolved("acme/sub");
    assert_eq!(
        t.description,
        Sourced {
            value: "Sub".to_owned(),
            from: from("acme/sub")
        }
    );
    assert_eq!(t.sandbox_strategy.value, SandboxStrategy::Overlay);
    assert_eq!(t.sandbox_strategy.from, from("acme/sub"));
    assert_eq!(
        t.user_addable,
        Sourced {
            value: true,
            from: from("acme/base")
        }
    );
    assert_eq!(t.kind.from, from("acme/base"));
    let handler = t.handler.unwrap();
    assert_eq!(
        handler.value,
        HandlerRef::parse("acme.handlers:BaseHandler").unwrap()
    );
    assert_eq!(handler.from, from("acme/base"));
    assert!(!t.built_in);
}

#[test]
fn each_capability_flag_resolves_on_its_own() {
    let types = Types::files(&[
        BASE,
        "name: acme/sub\ninherits: acme/base\ncapabilities: {write: true}\n",
    ]);
    let t = types.resolved("acme/sub");
    assert_eq!(
        t.capabilities.values(),
        TypeCapabilities {
            read: true,
            write: true,
            // Said by no type: the default of a type that isolates.
            sandbox: true,
            checkpoint: true
        }
    );
    assert_eq!(
        origins(&t),
        [from("acme/base"), from("acme/sub"), None, from("acme/base")]
    );
}

#[test]
fn a_type_that_isolates_and_says_nothing_can_be_sandboxed_and_checkpointed() {
    let spec = |strategy: &str| {
        format!(
            "name: acme/t
description: T
resource_kind: physical
sandbox_strategy: {strategy}
"
        )
    };
    for (strategy, isolates) in [
        ("copy_on_write", true),
        ("git_worktree", true),
        ("transaction_rollback", true),
        ("none", false),
        ("inherit", false),
    ] {
        let types = Types::files(&[&spec(strategy)]);
        let caps = types.resolved("acme/t").capabilities.values();
        assert_eq!(
            (caps.sandbox, caps.checkpoint),
            (isolates, isolates),
            "{strategy}"
        );
    }
}

#[test]
fn collections_merge_additively_root_first_with_their_origins() {
    let types = Types::files(&[
        BASE,
        "name: acme/sub
inherits: acme/base
cli_args: [{name: mode, type: string}]
parent_types: [fs-directory, git-checkout]
child_types: [fs-symlink]
",
    ]);
    let t = types.resolved("acme/sub");
    let args: Vec<(&str, Option<TypeName>)> = t
        .cli_args
        .iter()
        .map(|a| (a.value.name.as_str(), a.from.clone()))
        .collect();
    assert_eq!(
        args,
        vec![
            ("path", from("acme/base")),
            ("depth", from("acme/base")),
            ("mode", from("acme/sub"))
        ]
    );
    let parents: Vec<(TypeName, Option<TypeName>)> = t
        .parent_types
        .iter()
        .map(|p| (p.value.clone(), p.from.clone()))
        .collect();
    // git-checkout appears once, keeping its first origin.
    assert_eq!(
        parents,
        vec![
            (tn("git-checkout"), from("acme/base")),
            (tn("fs-directory"), from("acme/sub"))
        ]
    );
    let children: Vec<&TypeName> = t.child_type_names().collect();
    assert_eq!(
        children,
        vec![&tn("fs-directory"), &tn("fs-file"), &tn("fs-symlink")]
    );
}

#[test]
fn replace_drops_everything_inherited_above_it() {
    let types = Types::files(&[
        BASE,
        "name: acme/mid\ninherits: acme/base\ncli_args: [{name: mode, type: string}]\nchild_types: [fs-symlink]\n",
        "name: acme/leaf
inherits: acme/mid
cli_args_replace: true
cli_args: [{name: only, type: boolean}]
child_types_replace: true
parent_types_replace: true
",
    ]);
    let t = types.resolved("acme/leaf");
    assert_eq!(t.cli_args.len(), 1);
    assert_eq!(
        (
            t.cli_args[0].value.name.as_str(),
            t.cli_args[0].from.clone()
        ),
        ("only", from("acme/leaf"))
    );
    assert!(t.child_types.is_empty(), "{:?}", t.child_types);
    assert!(t.parent_types.is_empty(), "{:?}", t.parent_types);
    // A replace in the middle keeps what comes below it.
    let types = Types::files(&[
        BASE,
        "name: acme/mid\ninherits: acme/base\nchild_types_replace: true\nchild_types: [fs-symlink]\n",
        "name: acme/leaf\ninherits: acme/mid\nchild_types: [fs-hardlink]\n",
    ]);
    let leaf = types.resolved("acme/leaf");
    let children: Vec<&TypeName> = leaf.child_type_names().collect();
    assert_eq!(children, vec![&tn("fs-symlink"), &tn("fs-hardlink")]);
}

#[test]
fn a_subtype_cli_arg_overrides_the_inherited_one_in_place() {
    let types = Types::files(&[
        BASE,
        "name: acme/sub\ninherits: acme/base\ncli_args: [{name: path, type: path, required: false, description: Optional root}]\n",
    ]);
    let t = types.resolved("acme/sub");
    let names: Vec<&str> = t.cli_args.iter().map(|a| a.value.name.as_str()).collect();
    assert_eq!(names, vec!["path", "depth"]);
    assert_eq!(t.cli_args[0].from, from("acme/sub"));
    assert!(!t.cli_args[0].value.required);
    assert_eq!(t.arg("path").unwrap().description, "Optional root");
    assert_eq!(t.cli_args[1].from, from("acme/base"));
}

#[test]
fn is_a_holds_through_the_whole_chain() {
    let types = Types::files(&[
        BASE,
        "name: acme/mid\ninherits: acme/base\n",
        "name: acme/leaf\ninherits: acme/mid\n",
        "name: acme/other\nresource_kind: physical\n",
    ]);
    let leaf = types.resolved("acme/leaf");
    assert_eq!(
        leaf.chain,
        vec![tn("acme/leaf"), tn("acme/mid"), tn("acme/base")]
    );
    for ancestor in ["acme/leaf", "acme/mid", "acme/base"] {
        assert!(leaf.is_a(&tn(ancestor)), "{ancestor}");
    }
    assert!(!leaf.is_a(&tn("acme/other")));
    assert!(!types.resolved("acme/base").is_a(&tn("acme/leaf")));
}

#[test]
fn the_reference_devcontainer_example_resolves_against_container_instance() {
    // The reference's example, namespaced as a custom file must be.
    let types = Types::files(&[
        "name: acme/container-instance
resource_kind: physical
sandbox_strategy: none
user_addable: true
cli_args:
  - {name: image, type: string}
parent_types: [git-checkout]
handler: acme.container:ContainerHandler
",
        "name: acme/devcontainer-instance
inherits: acme/container-instance
description: \"A container provisioned from a devcontainer.json\"

cli_args:
  - name: config-path
    type: path
    required: false
    description: \"Path to .devcontainer/devcontainer.json\"

handler:
  class: DevcontainerHandler
  module: cleveragents.resource.handlers.devcontainer
",
    ]);
    let t = types.resolved("acme/devcontainer-instance");
    assert_eq!(t.kind.value, ResourceKind::Physical);
    assert_eq!(t.user_addable.from, from("acme/container-instance"));
    let names: Vec<&str> = t.cli_args.iter().map(|a| a.value.name.as_str()).collect();
    assert_eq!(names, vec!["image", "config-path"]);
    assert!(t.is_a(&tn("acme/container-instance")));
    let handler = t.handler.unwrap();
    assert_eq!(
        handler.value.to_string(),
        "cleveragents.resource.handlers.devcontainer:DevcontainerHandler"
    );
    assert_eq!(handler.from, from("acme/devcontainer-instance"));
}

#[test]
fn references_lists_every_type_a_spec_names_with_its_field() {
    let spec = parsed(
        "name: acme/v\ninherits: acme/base\nparent_types: [a]\nchild_types: [b, c]\n\
         auto_discovery: {enabled: true, rules: [{type: b, pattern: x}]}\n\
         equivalence: {links: [d], match: [k]}\n",
    );
    let refs: Vec<(String, String)> = references(&spec)
        .into_iter()
        .map(|(f, n)| (f, n.to_string()))
        .collect();
    let expected = [
        ("inherits", "acme/base"),
        ("parent_types[0]", "a"),
        ("child_types[0]", "b"),
        ("child_types[1]", "c"),
        ("auto_discovery.rules[0].type", "b"),
        ("equivalence.links[0]", "d"),
    ];
    assert_eq!(refs, expected.map(|(f, n)| (f.to_owned(), n.to_owned())));
}

/// Where each capability flag came from, in `read, write, sandbox,
/// checkpoint` order.
fn origins(t: &crate::model::ResolvedType) -> Vec<Option<crate::model::TypeName>> {
    t.capabilities
        .named()
        .iter()
        .map(|(_, s)| s.from.clone())
        .collect()
}
