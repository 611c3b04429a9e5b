//! Per-field rules of one custom type file: names, handler, collections,
//! `_replace`, the root's kind, the virtual kind, equivalence and
//! auto-discovery.

use super::*;
use crate::model::HandlerRef;

#[test]
fn a_bare_name_is_refused_in_a_custom_file() {
    refused(
        "name: python-package\nresource_kind: physical\n",
        "name",
        &["namespace/name", "reserved for built-in types"],
    );
}

#[test]
fn a_malformed_name_is_refused() {
    refused(
        "name: Acme/Pkg\nresource_kind: physical\n",
        "name",
        &["\"Acme/Pkg\"", "lowercase"],
    );
}

#[test]
fn built_in_true_is_refused_in_a_custom_file() {
    refused(
        &root("built_in: true\n"),
        "built_in",
        &["reserved", "remove the key"],
    );
}

#[test]
fn built_in_false_is_accepted_in_a_custom_file() {
    assert!(!parsed(&root("built_in: false\n")).built_in);
}

#[test]
fn a_malformed_inherits_name_is_refused() {
    refused(
        "name: acme/t\ninherits: Base\n",
        "inherits",
        &["\"Base\"", "lowercase"],
    );
}

#[test]
fn a_type_that_inherits_itself_is_refused() {
    refused(
        "name: acme/t\ninherits: acme/t\n",
        "inherits",
        &["cannot inherit from itself"],
    );
}

#[test]
fn malformed_names_in_type_lists_are_refused_with_their_index() {
    refused(
        &root("parent_types: [git-checkout, 'my dir']\n"),
        "parent_types[1]",
        &["\"my dir\""],
    );
    refused(
        &root("child_types: [a/b/c]\n"),
        "child_types[0]",
        &["at most one '/'"],
    );
    refused(
        &root("auto_discovery:\n  enabled: true\n  rules:\n    - {type: Fs-File, pattern: '*'}\n"),
        "auto_discovery.rules[0].type",
        &["\"Fs-File\""],
    );
}

#[test]
fn duplicates_in_parent_and_child_types_are_refused() {
    refused(
        &root("parent_types: [git-checkout, fs-directory, git-checkout]\n"),
        "parent_types[2]",
        &["duplicate type \"git-checkout\"", "parent_types[0]"],
    );
    refused(
        &root("child_types: [fs-file, fs-file]\n"),
        "child_types[1]",
        &["duplicate type \"fs-file\"", "child_types[0]"],
    );
}

#[test]
fn a_duplicate_discovery_rule_is_refused() {
    refused(
        &root(
            "auto_discovery:\n  enabled: true\n  rules:\n    - {type: fs-file, pattern: '*'}\n    - {type: fs-file, pattern: '*'}\n",
        ),
        "auto_discovery.rules[1]",
        &["duplicate rule", "auto_discovery.rules[0]"],
    );
}

#[test]
fn an_empty_discovery_pattern_is_refused() {
    refused(
        &root("auto_discovery:\n  enabled: true\n  rules:\n    - {type: fs-file, pattern: ''}\n"),
        "auto_discovery.rules[0].pattern",
        &["the pattern is empty"],
    );
}

#[test]
fn auto_discovery_needs_enabled() {
    refused(
        &root("auto_discovery:\n  rules: []\n"),
        "auto_discovery.enabled",
        &["missing field `enabled`"],
    );
}

#[test]
fn the_handler_is_accepted_in_both_forms() {
    let text = parsed(&root("handler: acme.handlers.pkg:PkgHandler\n"));
    let mapping = parsed(&root(
        "handler:\n  class: PkgHandler\n  module: acme.handlers.pkg\n",
    ));
    let expected = HandlerRef::parse("acme.handlers.pkg:PkgHandler").unwrap();
    assert_eq!(text.handler.as_ref(), Some(&expected));
    assert_eq!(mapping.handler, Some(expected));
}

#[test]
fn a_handler_without_a_class_part_is_refused() {
    refused(
        &root("handler: acme.handlers.pkg\n"),
        "handler",
        &["module:Class"],
    );
}

#[test]
fn a_bad_handler_part_is_refused_naming_that_part() {
    refused(
        &root("handler: {module: acme handlers, class: PkgHandler}\n"),
        "handler.module",
        &["\"acme handlers\"", "dotted path"],
    );
    refused(
        &root("handler: {module: acme.handlers, class: Pkg-Handler}\n"),
        "handler.class",
        &["\"Pkg-Handler\"", "identifier"],
    );
}

#[test]
fn replace_without_inherits_is_refused() {
    for field in ["cli_args", "parent_types", "child_types"] {
        refused(
            &root(&format!("{field}_replace: true\n")),
            &format!("{field}_replace"),
            &["nothing to replace", "`inherits`"],
        );
    }
}

#[test]
fn replace_false_without_inherits_is_accepted() {
    parsed(&root("cli_args_replace: false\n"));
}

#[test]
fn a_root_type_must_give_its_resource_kind() {
    refused(
        "name: acme/t\n",
        "resource_kind",
        &["root type", "physical", "virtual"],
    );
}

#[test]
fn a_subtype_may_leave_its_resource_kind_to_the_parent() {
    assert_eq!(parsed("name: acme/t\ninherits: acme/base\n").kind, None);
}

const VIRTUAL: &str = "name: acme/v\nresource_kind: virtual\n";

#[test]
fn a_virtual_type_may_not_be_user_addable() {
    refused(
        &format!("{VIRTUAL}user_addable: true\n"),
        "user_addable",
        &["never user-addable"],
    );
}

#[test]
fn a_virtual_type_has_no_sandbox_other_than_none() {
    refused(
        &format!("{VIRTUAL}sandbox_strategy: copy_on_write\n"),
        "sandbox_strategy",
        &["no sandbox", "`copy_on_write`"],
    );
    parsed(&format!("{VIRTUAL}sandbox_strategy: none\n"));
}

#[test]
fn a_virtual_type_may_not_take_a_path_argument() {
    refused(
        &format!(
            "{VIRTUAL}cli_args:\n  - {{name: id, type: string}}\n  - {{name: root, type: path}}\n"
        ),
        "cli_args[1].type",
        &["\"root\" is a `path`", "no location"],
    );
}

#[test]
fn equivalence_is_only_for_virtual_types() {
    refused(
        &root("equivalence: {links: [fs-file], match: [relative-path]}\n"),
        "equivalence",
        &["only virtual types"],
    );
}

#[test]
fn equivalence_parses_on_a_virtual_type() {
    let spec = parsed(&format!(
        "{VIRTUAL}equivalence:\n  links: [fs-file, git-tree-entry]\n  match: [relative-path]\n"
    ));
    let eq = spec.equivalence.unwrap();
    assert_eq!(eq.links, vec![tn("fs-file"), tn("git-tree-entry")]);
    assert_eq!(eq.match_on, vec!["relative-path".to_owned()]);
}

#[test]
fn equivalence_needs_links_and_match_keys() {
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [], match: [relative-path]}}\n"),
        "equivalence.links",
        &["at least one"],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: []}}\n"),
        "equivalence.match",
        &["at least one"],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file]}}\n"),
        "equivalence.match",
        &["missing field `match`"],
    );
}

#[test]
fn equivalence_refuses_bad_or_repeated_entries() {
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file, fs-file], match: [a]}}\n"),
        "equivalence.links[1]",
        &["duplicate type \"fs-file\""],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: [a, 'b c']}}\n"),
        "equivalence.match[1]",
        &["not a property key"],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: [a, a]}}\n"),
        "equivalence.match[1]",
        &["duplicate key \"a\""],
    );
}

#[test]
fn equivalence_where_selects_members_by_listed_values() {
    let spec = parsed(&format!(
        "{VIRTUAL}equivalence: {{links: [fs-file], match: [a], where: {{entry-kind: [file, hardlink]}}}}\n"
    ));
    let eq = spec.equivalence.unwrap();
    assert_eq!(eq.filter["entry-kind"], ["file", "hardlink"]);
    assert!(eq.admits(&[Some("hardlink".to_owned())]));
    assert!(!eq.admits(&[Some("symlink".to_owned())]));
    assert!(!eq.admits(&[None]));
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: [a], where: {{k: []}}}}\n"),
        "equivalence.where.k",
        &["list the values"],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: [a], where: {{a: [x]}}}}\n"),
        "equivalence.where.a",
        &["also in equivalence.match"],
    );
    refused(
        &format!("{VIRTUAL}equivalence: {{links: [fs-file], match: [a], where: {{'b c': [x]}}}}\n"),
        "equivalence.where.b c",
        &["not a property key"],
    );
}
