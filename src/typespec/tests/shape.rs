//! The document and its shape: what serde_yaml refuses, reported with
//! the field path, the allowed values and the line.

use super::*;

#[test]
fn the_spec_example_python_package_parses() {
    // The spec's custom-type example, verbatim.
    let spec = parsed(include_str!("../../../tests/data/python-package.yaml"));
    assert_eq!(spec.name, tn("myteam/python-package"));
    assert_eq!(spec.kind, Some(ResourceKind::Physical));
    assert_eq!(spec.sandbox_strategy, Some(SandboxStrategy::CopyOnWrite));
    assert_eq!(spec.user_addable, Some(true));
    assert!(!spec.built_in);
    assert_eq!(spec.cli_args.len(), 1);
    assert_eq!(spec.cli_args[0].arg_type, ArgType::Path);
    assert!(spec.cli_args[0].required);
    assert_eq!(spec.parent_types, vec![tn("git-checkout")]);
    assert_eq!(spec.child_types, vec![tn("fs-directory")]);
    assert_eq!(spec.handler, None);
    assert_eq!(spec.inherits, None);
}

#[test]
fn an_unknown_top_level_key_is_refused_with_the_keys_that_exist() {
    let err = refused(
        &root("sandbox_stratgy: none\n"),
        "sandbox_stratgy",
        &[
            "unknown field `sandbox_stratgy`",
            "`sandbox_strategy`",
            "`child_types_replace`",
            "line 3",
        ],
    );
    assert!(
        matches!(err, SpecError::Yaml { line: Some(3), .. }),
        "{err:?}"
    );
}

#[test]
fn an_unknown_key_in_a_cli_arg_is_refused() {
    refused(
        &root("cli_args:\n  - name: path\n    type: path\n    requried: true\n"),
        "cli_args[0].requried",
        &["unknown field `requried`", "`required`", "`choices`"],
    );
}

#[test]
fn an_unknown_capability_is_refused() {
    refused(
        &root("capabilities: {read: true, execute: true}\n"),
        "capabilities.execute",
        &[
            "unknown field `execute`",
            "`read`, `write`, `sandbox`, `checkpoint`",
        ],
    );
}

#[test]
fn an_unknown_key_in_auto_discovery_or_its_rules_is_refused() {
    refused(
        &root("auto_discovery: {enabled: true, depth: 2}\n"),
        "auto_discovery.depth",
        &["unknown field `depth`", "`enabled`", "`rules`"],
    );
    refused(
        &root(
            "auto_discovery:\n  enabled: true\n  rules:\n    - {type: fs-file, pattern: '*', glob: true}\n",
        ),
        "auto_discovery.rules[0].glob",
        &["unknown field `glob`", "`type`", "`pattern`"],
    );
}

#[test]
fn an_unknown_key_in_equivalence_is_refused() {
    refused(
        "name: acme/v\nresource_kind: virtual\nequivalence: {links: [fs-file], match: [relative-path], weight: 1}\n",
        "equivalence.weight",
        &["unknown field `weight`", "`links`", "`match`"],
    );
}

#[test]
fn a_handler_mapping_with_another_key_is_refused() {
    refused(
        &root("handler: {module: acme.handlers, class: PkgHandler, version: 2}\n"),
        "handler.version",
        &["unknown field `version`", "`module` or `class`"],
    );
}

#[test]
fn a_handler_mapping_without_its_class_is_refused() {
    refused(
        &root("handler: {module: acme.handlers}\n"),
        "handler.class",
        &["missing field `class`"],
    );
}

#[test]
fn a_bad_resource_kind_is_refused_with_the_allowed_values() {
    refused(
        "name: acme/t\nresource_kind: logical\n",
        "resource_kind",
        &[
            "unknown variant `logical`",
            "`physical` or `virtual`",
            "line 2 column 16",
        ],
    );
}

#[test]
fn a_bad_sandbox_strategy_is_refused_with_the_allowed_values() {
    refused(
        &root("sandbox_strategy: snapshot\n"),
        "sandbox_strategy",
        &[
            "unknown variant `snapshot`",
            "`git_worktree`, `copy_on_write`, `overlay`, `transaction_rollback`, `none`, `inherit`",
        ],
    );
}

#[test]
fn a_bad_cli_arg_type_is_refused_with_the_allowed_values() {
    refused(
        &root("cli_args:\n  - name: size\n    type: float\n"),
        "cli_args[0].type",
        &[
            "unknown variant `float`",
            "`string`, `path`, `integer`, `boolean`, `choice`",
            "line 5",
        ],
    );
}

#[test]
fn a_yaml_1_1_boolean_word_is_not_a_boolean() {
    refused(
        &root("user_addable: yes\n"),
        "user_addable",
        &["invalid type: string \"yes\", expected a boolean"],
    );
}

#[test]
fn a_missing_name_is_refused() {
    refused(
        "resource_kind: physical\n",
        "name",
        &["missing field `name`"],
    );
}

#[test]
fn an_empty_document_is_refused() {
    for text in ["", "\n", "# just a comment\n", "~\n"] {
        refused(text, "(document)", &["the document is empty", "`name`"]);
    }
}

#[test]
fn a_list_where_a_mapping_belongs_is_refused() {
    refused(
        "- name: acme/t\n  resource_kind: physical\n",
        "(document)",
        &["expected a mapping of type fields", "found a list"],
    );
}

#[test]
fn a_list_where_a_field_mapping_belongs_is_refused() {
    refused(
        &root("capabilities: [read, write]\n"),
        "capabilities",
        &["invalid type: sequence", "line 3"],
    );
}

#[test]
fn invalid_yaml_is_refused_with_line_and_column() {
    let err = refused(
        "name: acme/t\nresource_kind: [physical\n",
        "(document)",
        &["invalid YAML", "line 3 column 1"],
    );
    assert!(
        matches!(
            err,
            SpecError::Yaml {
                line: Some(3),
                column: Some(1),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn two_documents_in_one_file_are_refused() {
    refused(
        "name: acme/a\nresource_kind: physical\n---\nname: acme/b\nresource_kind: physical\n",
        "(document)",
        &["invalid YAML", "more than one document"],
    );
}

#[test]
fn a_repeated_key_is_refused() {
    refused(
        "name: acme/a\nname: acme/b\nresource_kind: physical\n",
        "(document)",
        &["duplicate entry with key \"name\""],
    );
}
