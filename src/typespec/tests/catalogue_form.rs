//! `parse_catalogue`: the same rules in list form, with bare names and
//! `built_in` implied.

use super::*;

const CAT: &str = "builtin/test.yaml";

#[track_caller]
fn cat_refused(yaml: &str, path: &str, fragment: &str) {
    let err = parse_catalogue(yaml, CAT).expect_err("the catalogue was accepted");
    assert_eq!(err.path(), path, "{err}");
    assert!(
        err.to_string().starts_with(&format!("{CAT}: {path}: ")),
        "{err}"
    );
    assert!(
        err.reason().contains(fragment),
        "{err}\n  lacks {fragment:?}"
    );
}

#[test]
fn catalogue_entries_are_built_in_with_bare_names() {
    let specs = parse_catalogue(
        "- name: thing\n  resource_kind: physical\n- name: other\n  resource_kind: virtual\n  built_in: true\n",
        CAT,
    )
    .unwrap();
    assert_eq!(specs.len(), 2);
    assert!(specs.iter().all(|s| s.built_in && s.name.is_builtin_form()));
}

#[test]
fn a_namespaced_name_is_refused_in_the_catalogue() {
    cat_refused(
        "- name: thing\n  resource_kind: physical\n- name: acme/thing\n  resource_kind: physical\n",
        "[1].name",
        "bare names",
    );
}

#[test]
fn built_in_false_is_refused_in_the_catalogue() {
    cat_refused(
        "- name: thing\n  resource_kind: physical\n  built_in: false\n",
        "[0].built_in",
        "built-in",
    );
}

#[test]
fn a_type_defined_twice_in_the_catalogue_is_refused() {
    cat_refused(
        "- name: thing\n  resource_kind: physical\n- name: thing\n  resource_kind: virtual\n",
        "[1].name",
        "entry [0] already defines it",
    );
}

#[test]
fn catalogue_refusals_carry_the_entry_index() {
    cat_refused(
        "- name: thing\n  resource_kind: physical\n- name: other\n  resource_kind: physical\n  cli_args:\n    - {name: x, type: float}\n",
        "[1].cli_args[0].type",
        "unknown variant `float`",
    );
    cat_refused(
        "- name: thing\n  colour: red\n",
        "[0].colour",
        "unknown field `colour`",
    );
    cat_refused("- name: thing\n", "[0].resource_kind", "root type");
}

#[test]
fn a_catalogue_must_be_a_list() {
    cat_refused(
        "name: thing\nresource_kind: physical\n",
        "(document)",
        "expected a list",
    );
}
