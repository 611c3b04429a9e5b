use super::*;
use crate::model::{ResolvedType, ResourceKind, SandboxStrategy, TypeCapabilities};
use std::collections::BTreeSet;

fn tn(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

fn resolved(name: &str) -> ResolvedType {
    typespec::resolve(&tn(name), &get).unwrap_or_else(|e| panic!("{e}"))
}

/// Every row of the reference's type tables: name, user addable, sandbox.
const REFERENCE_TABLES: [(&str, bool, SandboxStrategy); 24] = {
    use SandboxStrategy::{CopyOnWrite, GitWorktree, Inherit, None};
    [
        ("git", true, None),
        ("git-remote", false, None),
        ("git-branch", false, Inherit),
        ("git-tag", false, Inherit),
        ("git-commit", false, Inherit),
        ("git-tree", false, Inherit),
        ("git-tree-entry", false, Inherit),
        ("git-stash", false, Inherit),
        ("git-submodule", false, Inherit),
        ("git-checkout", true, GitWorktree),
        ("fs-mount", true, CopyOnWrite),
        ("fs-directory", true, CopyOnWrite),
        ("fs-file", false, Inherit),
        ("fs-symlink", false, Inherit),
        ("fs-hardlink", false, Inherit),
        ("file", false, None),
        ("directory", false, None),
        ("symlink", false, None),
        ("commit", false, None),
        ("branch", false, None),
        ("tag", false, None),
        ("remote", false, None),
        ("submodule", false, None),
        ("tree", false, None),
    ]
};

/// The virtual table's Links column.
const VIRTUAL_LINKS: [(&str, &[&str]); 9] = [
    ("file", &["fs-file", "git-tree-entry"]),
    ("directory", &["fs-directory", "git-tree"]),
    ("symlink", &["fs-symlink", "git-tree-entry"]),
    ("commit", &["git-commit"]),
    ("branch", &["git-branch"]),
    ("tag", &["git-tag"]),
    ("remote", &["git-remote"]),
    ("submodule", &["git-submodule"]),
    ("tree", &["git-tree"]),
];

#[test]
fn the_catalogue_parses_into_built_in_types() {
    let specs = specs();
    assert_eq!(specs.len(), REFERENCE_TABLES.len() + 2);
    assert!(specs.iter().all(|s| s.built_in && s.name.is_builtin_form()));
}

#[test]
fn every_catalogue_entry_resolves() {
    for spec in specs() {
        let t = resolved(spec.name.as_str());
        assert!(t.built_in, "{}", t.name);
        assert!(t.handler.is_some(), "{} has no handler", t.name);
    }
}

#[test]
fn every_type_the_catalogue_names_exists() {
    let names: BTreeSet<TypeName> = specs().into_iter().map(|s| s.name).collect();
    for spec in specs() {
        for (field, name) in typespec::references(&spec) {
            assert!(
                names.contains(&name),
                "{}: {field} names unknown type {name}",
                spec.name
            );
        }
    }
}

#[test]
fn every_type_of_the_reference_tables_is_present_as_the_table_says() {
    for (name, addable, sandbox) in REFERENCE_TABLES {
        let t = resolved(name);
        assert_eq!(t.user_addable.value, addable, "{name}: user_addable");
        assert_eq!(
            t.sandbox_strategy.value, sandbox,
            "{name}: sandbox_strategy"
        );
    }
}

#[test]
fn the_spec_built_in_table_rows_hold() {
    let rows = [
        (
            "git-checkout",
            SandboxStrategy::GitWorktree,
            "GitCheckoutHandler",
        ),
        (
            "fs-directory",
            SandboxStrategy::CopyOnWrite,
            "FsDirectoryHandler",
        ),
    ];
    for (name, sandbox, class) in rows {
        let t = resolved(name);
        assert_eq!(t.kind.value, ResourceKind::Physical, "{name}");
        assert_eq!(t.sandbox_strategy.value, sandbox, "{name}");
        assert_eq!(t.handler.unwrap().value.class.as_str(), class, "{name}");
    }
}

#[test]
fn handlers_follow_the_module_naming_convention() {
    let areas = ["git", "fs", "virtual", "container", "devcontainer"];
    for spec in specs() {
        let handler = spec.handler.expect("every built-in declares its handler");
        let area = handler
            .module
            .as_str()
            .strip_prefix("cleveragents.resource.handlers.")
            .unwrap_or_else(|| panic!("{}: {handler}", spec.name));
        assert!(areas.contains(&area), "{}: {handler}", spec.name);
        assert!(
            handler.class.as_str().ends_with("Handler"),
            "{}: {handler}",
            spec.name
        );
    }
}

#[test]
fn virtual_types_link_the_reference_types_and_are_read_only() {
    for (name, links) in VIRTUAL_LINKS {
        let t = resolved(name);
        assert_eq!(t.kind.value, ResourceKind::Virtual, "{name}");
        let eq = t
            .equivalence
            .as_ref()
            .expect("a virtual type has equivalence")
            .value
            .clone();
        let links: Vec<TypeName> = links.iter().map(|l| tn(l)).collect();
        assert_eq!(eq.links, links, "{name}");
        assert!(!eq.match_on.is_empty(), "{name}");
        assert_eq!(
            t.child_type_names().cloned().collect::<Vec<_>>(),
            links,
            "{name}"
        );
        assert_eq!(
            t.capabilities.values(),
            TypeCapabilities {
                read: true,
                ..Default::default()
            },
            "{name}"
        );
    }
}

#[test]
fn auto_discovered_children_name_their_parent() {
    let relations = [
        (
            "git",
            &[
                "git-remote",
                "git-branch",
                "git-tag",
                "git-stash",
                "git-submodule",
            ][..],
        ),
        ("git-branch", &["git-commit"]),
        ("git-commit", &["git-tree"]),
        ("git-tree", &["git-tree-entry", "git-tree"]),
        (
            "git-checkout",
            &["git", "fs-directory", "devcontainer-instance"],
        ),
        ("fs-mount", &["fs-directory"]),
        (
            "fs-directory",
            &[
                "fs-directory",
                "fs-file",
                "fs-symlink",
                "fs-hardlink",
                "devcontainer-instance",
            ],
        ),
    ];
    for (parent, children) in relations {
        let p = resolved(parent);
        let listed: Vec<&str> = p.child_type_names().map(TypeName::as_str).collect();
        assert_eq!(listed, children, "{parent}: child_types");
        let rules: Vec<&str> = p
            .auto_discovery
            .as_ref()
            .unwrap()
            .value
            .rules
            .iter()
            .map(|r| r.type_name.as_str())
            .collect();
        for child in children {
            assert!(
                rules.contains(child),
                "{parent} has no discovery rule for {child}"
            );
            assert!(
                resolved(child)
                    .parent_type_names()
                    .any(|n| n.as_str() == parent),
                "{child} does not name {parent}"
            );
        }
    }
}

#[test]
fn every_child_type_accepts_its_parent_back() {
    // The DAG allows parent → child only when both sides agree, so each
    // child_types entry must list the parent (or an ancestor of it) in
    // its own parent_types, or leave parent_types empty ("any").
    for spec in specs() {
        let parent = resolved(spec.name.as_str());
        for child in parent.child_type_names() {
            let child = resolved(child.as_str());
            let accepts =
                child.parent_types.is_empty() || child.parent_type_names().any(|p| parent.is_a(p));
            assert!(
                accepts,
                "{} lists {} as a child, which does not accept it",
                parent.name, child.name
            );
        }
    }
}

#[test]
fn capabilities_follow_what_each_sandbox_can_roll_back() {
    let writable = [
        "git-checkout",
        "fs-mount",
        "fs-directory",
        "fs-file",
        "fs-symlink",
        "fs-hardlink",
    ];
    for spec in specs() {
        let t = resolved(spec.name.as_str());
        let all = writable.contains(&t.name.as_str());
        let expected = TypeCapabilities {
            read: true,
            write: all,
            sandbox: all,
            checkpoint: all,
        };
        assert_eq!(t.capabilities.values(), expected, "{}", t.name);
    }
}

#[test]
fn devcontainer_instance_inherits_container_instance_as_in_the_reference() {
    let t = resolved("devcontainer-instance");
    assert_eq!(
        t.chain,
        vec![tn("devcontainer-instance"), tn("container-instance")]
    );
    assert_eq!(
        t.description.value,
        "A container provisioned from a devcontainer.json"
    );
    assert_eq!(t.kind.value, ResourceKind::Physical);
    assert_eq!(t.user_addable.from, Some(tn("container-instance")));
    let args: Vec<(&str, &str)> = t
        .cli_args
        .iter()
        .map(|a| (a.value.name.as_str(), a.from.as_ref().unwrap().as_str()))
        .collect();
    assert_eq!(
        args,
        vec![
            ("image", "container-instance"),
            ("container-id", "container-instance"),
            ("config-path", "devcontainer-instance"),
        ]
    );
    let handler = t.handler.as_ref().unwrap();
    assert_eq!(
        handler.value.to_string(),
        "cleveragents.resource.handlers.devcontainer:DevcontainerHandler"
    );
    let parents: Vec<&str> = t.parent_type_names().map(TypeName::as_str).collect();
    assert_eq!(parents, vec!["git-checkout", "fs-directory"]);
}

#[test]
fn git_checkout_takes_a_required_path_and_an_optional_branch() {
    let t = resolved("git-checkout");
    let path = t.arg("path").unwrap();
    assert!(path.required && path.arg_type == crate::model::ArgType::Path);
    assert_eq!(path.description, "Path to the checked-out working tree");
    assert!(!t.arg("branch").unwrap().required);
}

#[test]
fn get_finds_built_in_types_only() {
    assert_eq!(get(&tn("fs-file")).unwrap().name, tn("fs-file"));
    assert!(get(&tn("acme/fs-file")).is_none());
}

#[test]
fn the_fingerprint_is_the_sha256_hex_of_the_catalogue_text() {
    let print = fingerprint();
    assert_eq!(print.len(), 64);
    assert!(
        print.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')),
        "{print}"
    );
    assert_eq!(print, sha256_hex(CATALOGUE_YAML.as_bytes()));
    // The FIPS 180-2 test vector proves the hex is the sha256.
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
