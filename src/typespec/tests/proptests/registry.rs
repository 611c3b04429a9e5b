//! The same tables through a real registry: random sequences of type
//! registrations (new or replacing) and removals, each checked against
//! the reference model, then every registered type read back through the
//! registry's type set — which caches resolved types while no type
//! changes, so a stale answer after a replacement would show here.
//!
//! The reference registry is a map of specs. A registration is accepted
//! exactly when the type and every type below it still resolve in the
//! map as it would be (a replacement may close a cycle, cut a chain or
//! make one too deep); a removal exactly when no type inherits the type.

use super::*;
use crate::registry::{Registry, RegistryError};
use std::collections::BTreeMap;

/// Cases: each opens an in-memory registry (bootstrapping the built-in
/// catalogue) and runs up to [`MAX_TYPES`]` + `[`MAX_OPS`] writes, about
/// 35 ms in a debug build (96 cases: ~3.5 s).
const CASES: u32 = 96;
const MAX_OPS: usize = 14;

#[derive(Debug, Clone)]
enum Op {
    /// Register variant `second` of type `index`; `replace` as `type add --replace`.
    Put {
        index: Index,
        second: bool,
        replace: bool,
    },
    Remove {
        index: Index,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (any::<Index>(), any::<bool>(), prop::bool::weighted(0.6))
            .prop_map(|(index, second, replace)| Op::Put { index, second, replace }),
        1 => any::<Index>().prop_map(|index| Op::Remove { index }),
    ]
}

/// Two variants of each of `n` types, and the operations.
fn script() -> impl Strategy<Value = (Vec<TypeSpec>, Vec<TypeSpec>, Vec<Op>)> {
    (1..=MAX_TYPES - 1).prop_flat_map(|n| {
        (
            table_of(n),
            table_of(n),
            prop::collection::vec(op(), 1..=MAX_OPS),
        )
    })
}

/// `name` and every type below it in `specs`.
fn with_subtypes(specs: &BTreeMap<TypeName, TypeSpec>, name: &TypeName) -> Vec<TypeName> {
    let mut out = vec![name.clone()];
    let mut i = 0;
    while i < out.len() {
        for spec in specs.values() {
            if spec.inherits.as_ref() == Some(&out[i]) && !out.contains(&spec.name) {
                out.push(spec.name.clone());
            }
        }
        i += 1;
    }
    out
}

fn all(specs: &BTreeMap<TypeName, TypeSpec>) -> Vec<TypeSpec> {
    specs.values().cloned().collect()
}

/// The refusal the registry gave for an inheritance rule.
fn inheritance(err: RegistryError) -> Result<InheritanceError, TestCaseError> {
    match err {
        RegistryError::Inheritance(e) => Ok(e),
        other => Err(TestCaseError::fail(format!(
            "refused for another reason: {other}"
        ))),
    }
}

/// One registration against the reference: the new map, or the possible
/// refusals (any type that would no longer resolve may be the one named).
fn put(
    specs: &BTreeMap<TypeName, TypeSpec>,
    spec: &TypeSpec,
) -> Result<BTreeMap<TypeName, TypeSpec>, Vec<InheritanceError>> {
    let mut next = specs.clone();
    next.insert(spec.name.clone(), spec.clone());
    let table = all(&next);
    let refusals: Vec<InheritanceError> = with_subtypes(&next, &spec.name)
        .iter()
        .filter_map(|n| comparable(reference(&table, n)).err())
        .collect();
    if refusals.is_empty() {
        Ok(next)
    } else {
        Err(refusals)
    }
}

/// Register `spec` in `r` and in the reference `specs`; the two must
/// agree on whether and why it is refused.
fn check_put(
    r: &mut Registry,
    specs: &mut BTreeMap<TypeName, TypeSpec>,
    spec: &TypeSpec,
    replace: bool,
) -> Result<(), TestCaseError> {
    let text = render_type_file(spec);
    let got = r.register_type_text(&text, "prop.yaml", replace);
    if spec.inherits.as_ref() == Some(&spec.name) {
        // The reader refuses it before the registry looks.
        prop_assert!(matches!(got, Err(RegistryError::Spec(_))), "{got:?}");
        return Ok(());
    }
    if specs.contains_key(&spec.name) && !replace {
        prop_assert!(
            matches!(got, Err(RegistryError::TypeExists { .. })),
            "{got:?}"
        );
        return Ok(());
    }
    match put(specs, spec) {
        Ok(next) => {
            prop_assert!(got.is_ok(), "refused: {}\n{text}", got.unwrap_err());
            *specs = next;
        }
        Err(refusals) => {
            let e = inheritance(got.expect_err("accepted"))?;
            assert_clear(&e)?;
            let e = comparable(Err(e)).unwrap_err();
            prop_assert!(refusals.contains(&e), "{e:?} not in {refusals:?}");
        }
    }
    Ok(())
}

/// Remove `name` from `r` and from the reference: refused exactly while
/// a type inherits it.
fn check_remove(
    r: &mut Registry,
    specs: &mut BTreeMap<TypeName, TypeSpec>,
    name: TypeName,
) -> Result<(), TestCaseError> {
    let got = r.remove_type(name.as_str());
    let mut subtypes: Vec<TypeName> = specs
        .values()
        .filter(|s| s.inherits.as_ref() == Some(&name))
        .map(|s| s.name.clone())
        .collect();
    subtypes.sort();
    if !specs.contains_key(&name) {
        prop_assert!(
            matches!(got, Err(RegistryError::TypeNotFound { .. })),
            "{got:?}"
        );
    } else if !subtypes.is_empty() {
        let e = inheritance(got.expect_err("removed a type with subtypes"))?;
        assert_clear(&e)?;
        prop_assert_eq!(e, InheritanceError::HasSubtypes { name, subtypes });
    } else {
        prop_assert!(got.is_ok(), "refused: {}", got.unwrap_err());
        specs.remove(&name);
    }
    Ok(())
}

/// Every registered type reads back as the reference resolves it, and
/// the registry lists exactly the reference's types.
fn check_state(r: &Registry, specs: &BTreeMap<TypeName, TypeSpec>) -> Result<(), TestCaseError> {
    let table = all(specs);
    for name in specs.keys() {
        let want = reference(&table, name);
        prop_assert!(want.is_ok(), "the reference registered a broken type");
        prop_assert_eq!(r.resolved_type(name.as_str()).ok(), want.ok());
    }
    let listed: Vec<TypeName> = r
        .list_types(Some("p"))
        .unwrap()
        .into_iter()
        .map(|t| t.name.clone())
        .collect();
    prop_assert_eq!(listed, specs.keys().cloned().collect::<Vec<_>>());
    Ok(())
}

proptest! {
    #![proptest_config(crate::props::cases(CASES))]

    /// The first variant of every type is registered in table order
    /// first (so the chains the tables hold, up to too deep, get built),
    /// then the random operations run.
    #[test]
    fn the_registry_resolves_types_as_the_reference_through_adds_replacements_and_removals(
        (first, second, ops) in script()
    ) {
        let mut r = Registry::open_in_memory().unwrap();
        let mut specs: BTreeMap<TypeName, TypeSpec> = BTreeMap::new();
        for spec in &first {
            check_put(&mut r, &mut specs, spec, false)?;
            check_state(&r, &specs)?;
        }
        for op in ops {
            match op {
                Op::Put { index, second: which, replace } => {
                    let table = if which { &second } else { &first };
                    check_put(&mut r, &mut specs, &table[index.index(table.len())], replace)?;
                }
                Op::Remove { index } => {
                    check_remove(&mut r, &mut specs, nth(index.index(first.len())))?;
                }
            }
            check_state(&r, &specs)?;
        }
    }
}
