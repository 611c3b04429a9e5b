//! The inheritance rules: depth, cycles, built-in over custom, missing
//! parents, and removal while subtypes exist.

use super::*;

/// `acme/t0` (root) ← `acme/t1` ← … ← `acme/t{n-1}`: a chain of `n` types.
fn chain_of(n: usize) -> Types {
    let mut files = vec!["name: acme/t0\nresource_kind: physical\n".to_owned()];
    for i in 1..n {
        files.push(format!("name: acme/t{i}\ninherits: acme/t{}\n", i - 1));
    }
    Types::files(&files.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn an_inheritance_chain_of_depth_5_is_accepted() {
    let types = chain_of(5);
    let t = types.resolved("acme/t4");
    assert_eq!(t.chain.len(), MAX_CHAIN_DEPTH);
    assert_eq!(t.chain.first(), Some(&tn("acme/t4")));
    assert_eq!(t.chain.last(), Some(&tn("acme/t0")));
    assert_eq!(t.inherits(), Some(&tn("acme/t3")));
}

#[test]
fn an_inheritance_chain_of_depth_6_is_refused_listing_the_chain() {
    let types = chain_of(6);
    let err = types.resolve("acme/t5").unwrap_err();
    let InheritanceError::TooDeep { name, chain } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(name, &tn("acme/t5"));
    assert_eq!(chain.len(), 6);
    assert_eq!(
        err.to_string(),
        "type \"acme/t5\" has an inheritance chain of 6 types (acme/t5 → acme/t4 → acme/t3 → \
         acme/t2 → acme/t1 → acme/t0); at most 5 are allowed (the type and 4 ancestors)"
    );
    // The shorter chains inside it are still fine.
    assert!(types.resolve("acme/t4").is_ok());
}

#[test]
fn a_root_type_has_depth_1() {
    let types = chain_of(1);
    assert_eq!(types.resolved("acme/t0").chain, vec![tn("acme/t0")]);
}

#[test]
fn a_cycle_of_two_types_is_refused_showing_the_cycle() {
    let types = Types::files(&[
        "name: acme/a\ninherits: acme/b\n",
        "name: acme/b\ninherits: acme/a\n",
    ]);
    let err = types.resolve("acme/a").unwrap_err();
    assert_eq!(
        err,
        InheritanceError::Cycle {
            name: tn("acme/a"),
            cycle: vec![tn("acme/a"), tn("acme/b"), tn("acme/a")],
        }
    );
    assert!(
        err.to_string()
            .contains("circular inheritance: acme/a → acme/b → acme/a"),
        "{err}"
    );
}

#[test]
fn a_cycle_of_three_types_is_refused_showing_the_cycle() {
    let types = Types::files(&[
        "name: acme/a\ninherits: acme/b\n",
        "name: acme/b\ninherits: acme/c\n",
        "name: acme/c\ninherits: acme/a\n",
    ]);
    let err = types.resolve("acme/b").unwrap_err();
    assert!(
        err.to_string()
            .contains("acme/b → acme/c → acme/a → acme/b"),
        "{err}"
    );
}

#[test]
fn a_type_leading_into_a_cycle_reports_the_cycle_itself() {
    let types = Types::files(&[
        "name: acme/x\ninherits: acme/a\n",
        "name: acme/a\ninherits: acme/b\n",
        "name: acme/b\ninherits: acme/a\n",
    ]);
    let err = types.resolve("acme/x").unwrap_err();
    assert_eq!(
        err.to_string(),
        "type \"acme/x\" has circular inheritance: acme/a → acme/b → acme/a; change one type's \
         `inherits` to break it"
    );
}

#[test]
fn a_long_cycle_is_reported_as_a_cycle_not_as_depth() {
    let files: Vec<String> = (0..8)
        .map(|i| format!("name: acme/t{i}\ninherits: acme/t{}\n", (i + 1) % 8))
        .collect();
    let types = Types::files(&files.iter().map(String::as_str).collect::<Vec<_>>());
    let err = types.resolve("acme/t0").unwrap_err();
    assert!(
        matches!(&err, InheritanceError::Cycle { cycle, .. } if cycle.len() == 9),
        "{err}"
    );
}

#[test]
fn a_built_in_type_may_not_inherit_a_custom_type() {
    let mut specs = parse_catalogue("- name: widget\n  inherits: acme/base\n", "cat.yaml").unwrap();
    specs.push(parsed("name: acme/base\nresource_kind: physical\n"));
    let types = Types(specs);
    let err = types.resolve("widget").unwrap_err();
    assert_eq!(
        err,
        InheritanceError::BuiltinInheritsCustom {
            name: tn("widget"),
            parent: tn("acme/base"),
        }
    );
    assert!(
        err.to_string()
            .contains("built-in type \"widget\" inherits custom type \"acme/base\"")
    );
}

#[test]
fn a_custom_type_may_inherit_a_built_in_type() {
    let mut specs =
        parse_catalogue("- name: widget\n  resource_kind: physical\n", "cat.yaml").unwrap();
    specs.push(parsed("name: acme/gadget\ninherits: widget\n"));
    let t = Types(specs).resolved("acme/gadget");
    assert!(t.is_a(&tn("widget")));
    assert!(!t.built_in);
}

#[test]
fn a_missing_parent_is_refused_saying_to_register_it_first() {
    let types = Types::files(&["name: acme/pkg\ninherits: acme/base\n"]);
    let err = types.resolve("acme/pkg").unwrap_err();
    assert_eq!(
        err.to_string(),
        "type \"acme/pkg\" inherits \"acme/base\", which does not exist; register it first \
         (agents resource type add …)"
    );
}

#[test]
fn a_missing_grandparent_names_the_type_that_inherits_it() {
    let types = Types::files(&[
        "name: acme/pkg\ninherits: acme/mid\n",
        "name: acme/mid\ninherits: acme/base\n",
    ]);
    assert_eq!(
        types.resolve("acme/pkg").unwrap_err(),
        InheritanceError::MissingParent {
            name: tn("acme/mid"),
            parent: tn("acme/base"),
        }
    );
}

#[test]
fn resolving_an_unknown_type_is_refused() {
    let err = Types(Vec::new()).resolve("acme/none").unwrap_err();
    assert_eq!(
        err,
        InheritanceError::UnknownType {
            name: tn("acme/none")
        }
    );
}

#[test]
fn a_type_with_subtypes_may_not_be_removed() {
    let types = Types::files(&[
        "name: acme/base\nresource_kind: physical\n",
        "name: acme/b\ninherits: acme/base\n",
        "name: acme/a\ninherits: acme/base\n",
        "name: acme/c\ninherits: acme/a\n",
    ]);
    assert_eq!(
        subtypes_of(&tn("acme/base"), &types.0),
        vec![tn("acme/a"), tn("acme/b")]
    );
    let err = check_removable(&tn("acme/base"), &types.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot remove type acme/base: it is the parent type of acme/a, acme/b (a parent type \
         cannot be removed while subtypes exist); remove those first"
    );
    assert!(check_removable(&tn("acme/c"), &types.0).is_ok());
}
