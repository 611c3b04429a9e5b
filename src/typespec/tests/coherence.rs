//! Coherence of the merged type: the kind rules on effective values,
//! discovery rules against the effective `child_types`, and a chain
//! without a kind.

use super::*;

#[test]
fn a_virtual_subtype_of_a_type_with_path_args_is_incoherent() {
    let types = Types::files(&[
        "name: acme/base\nresource_kind: physical\ncli_args: [{name: root, type: path}]\n",
        "name: acme/v\ninherits: acme/base\nresource_kind: virtual\n",
    ]);
    let err = types.resolve("acme/v").unwrap_err();
    assert!(
        matches!(&err, InheritanceError::Incoherent { field, .. } if field == "cli_args"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("type \"acme/v\": cli_args: argument \"root\" (from type \"acme/base\")"),
        "{err}"
    );
}

#[test]
fn a_virtual_subtype_may_not_inherit_addability_or_a_sandbox() {
    let types = Types::files(&[
        "name: acme/base\nresource_kind: physical\nuser_addable: true\nsandbox_strategy: overlay\n",
        "name: acme/v\ninherits: acme/base\nresource_kind: virtual\n",
        "name: acme/w\ninherits: acme/base\nresource_kind: virtual\nuser_addable: false\n",
    ]);
    let err = types.resolve("acme/v").unwrap_err().to_string();
    assert!(
        err.starts_with("type \"acme/v\": user_addable: virtual types are never user-addable"),
        "{err}"
    );
    assert!(err.contains("comes from type \"acme/base\""), "{err}");
    let err = types.resolve("acme/w").unwrap_err().to_string();
    assert!(
        err.starts_with("type \"acme/w\": sandbox_strategy:"),
        "{err}"
    );
    assert!(
        err.contains("`sandbox_strategy: overlay` comes from type \"acme/base\""),
        "{err}"
    );
}

#[test]
fn a_physical_subtype_may_not_inherit_equivalence() {
    let types = Types::files(&[
        "name: acme/v\nresource_kind: virtual\nequivalence: {links: [fs-file], match: [relative-path]}\n",
        "name: acme/p\ninherits: acme/v\nresource_kind: physical\n",
    ]);
    let err = types.resolve("acme/p").unwrap_err().to_string();
    assert!(
        err.starts_with("type \"acme/p\": equivalence: only virtual types"),
        "{err}"
    );
}

const PARENT_WITH_RULES: &str = "name: acme/dir
resource_kind: physical
child_types: [acme/file]
auto_discovery:
  enabled: true
  rules:
    - {type: acme/file, pattern: '*'}
    - {type: acme/special-file, pattern: '*.special'}
";

#[test]
fn a_discovery_rule_may_name_a_subtype_of_an_allowed_child() {
    let types = Types::files(&[
        PARENT_WITH_RULES,
        "name: acme/file\nresource_kind: physical\n",
        "name: acme/special-file\ninherits: acme/file\n",
    ]);
    types.resolved("acme/dir");
}

#[test]
fn a_discovery_rule_outside_the_effective_child_types_is_incoherent() {
    let types = Types::files(&[
        PARENT_WITH_RULES,
        "name: acme/file\nresource_kind: physical\n",
        "name: acme/special-file\nresource_kind: physical\n",
    ]);
    let err = types.resolve("acme/dir").unwrap_err();
    assert_eq!(
        err.to_string(),
        "type \"acme/dir\": auto_discovery.rules[1].type: the rule (from type \"acme/dir\") \
         discovers \"acme/special-file\", which the effective child_types (acme/file) does not \
         allow, nor a type it inherits; add it to child_types"
    );
    // A subtype that replaces child_types breaks its inherited rules too.
    let types = Types::files(&[
        "name: acme/dir\nresource_kind: physical\nchild_types: [fs-file]\nauto_discovery: {enabled: true, rules: [{type: fs-file, pattern: '*'}]}\n",
        "name: acme/sub\ninherits: acme/dir\nchild_types_replace: true\nchild_types: [fs-symlink]\n",
    ]);
    assert!(types.resolve("acme/dir").is_ok());
    let err = types.resolve("acme/sub").unwrap_err();
    assert!(
        matches!(&err, InheritanceError::Incoherent { field, .. } if field == "auto_discovery.rules[0].type"),
        "{err}"
    );
}

#[test]
fn an_empty_child_types_allows_any_discovery_rule() {
    let types = Types::files(&[
        "name: acme/dir\nresource_kind: physical\nauto_discovery: {enabled: true, rules: [{type: fs-file, pattern: '*'}]}\n",
    ]);
    types.resolved("acme/dir");
}

#[test]
fn a_chain_where_no_type_declares_a_kind_is_incoherent() {
    // Files cannot say this (a root must give its kind); specs built in
    // code can, and the resolver still refuses rather than guessing.
    let mut root = parsed("name: acme/base\nresource_kind: physical\n");
    root.kind = None;
    let err = Types(vec![root]).resolve("acme/base").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("type \"acme/base\": resource_kind: no type in the chain"),
        "{err}"
    );
}
