//! The same tables through a real registry: random sequences of type
//! registrations (new or replacing) and removals, each checked against
//! the reference model, then every registered type read back through the
//! registry's type set — which caches resolved types while no type
//! changes, so a stale answer after a replacement would show here.
//!
//! The reference registry is a map of specs in which every type
//! resolves. A registration is accepted exactly when every type still
//! resolves in the map as it would be — a replacement may close a cycle,
//! cut or lengthen a chain, or change the lineage a discovery rule of
//! another type relies on — and every type it names exists; a removal
//! exactly when no type inherits the type or names it.

use super::*;
use crate::registry::TypesError;
use crate::registry::{RegisterTypeOptions, Registry, RegistryError};
use std::collections::BTreeMap;

/// Cases: each opens an in-memory registry (bootstrapping the built-in
/// catalogue), registers up to 7 types and runs up to [`MAX_OPS`]
/// operations, about 25 ms in a debug build (192 cases: ~4.5 s).
const CASES: u32 = 192;
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

/// The custom types `spec` names in a list or a discovery rule (every
/// built-in one it may name exists).
fn named(spec: &TypeSpec) -> Vec<TypeName> {
    let rules = spec.auto_discovery.iter().flat_map(|d| &d.rules);
    spec.parent_types
        .iter()
        .chain(&spec.child_types)
        .chain(rules.map(|r| &r.type_name))
        .filter(|n| !n.is_builtin_form())
        .cloned()
        .collect()
}

fn all(specs: &BTreeMap<TypeName, TypeSpec>) -> Vec<TypeSpec> {
    specs.values().cloned().collect()
}

/// The registry's refusal, or a failed case if it accepted.
fn refused<T: std::fmt::Debug>(
    got: Result<T, RegistryError>,
    what: &str,
) -> Result<RegistryError, TestCaseError> {
    match got {
        Ok(done) => Err(TestCaseError::fail(format!("{what}: {done:?}"))),
        Err(e) => Ok(e),
    }
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

/// Why the reference refuses a registration.
#[derive(Debug)]
enum Refusal {
    /// These types would no longer resolve (the registry names one).
    Breaks(Vec<InheritanceError>),
    /// The spec names these types, which do not exist (the registry
    /// names one).
    Names(Vec<TypeName>),
}

/// One registration against the reference: the new map, or the refusal.
fn put(
    specs: &BTreeMap<TypeName, TypeSpec>,
    spec: &TypeSpec,
) -> Result<BTreeMap<TypeName, TypeSpec>, Refusal> {
    let mut next = specs.clone();
    next.insert(spec.name.clone(), spec.clone());
    let table = all(&next);
    let broken: Vec<InheritanceError> = next
        .keys()
        .filter_map(|n| comparable(reference(&table, n)).err())
        .collect();
    if !broken.is_empty() {
        return Err(Refusal::Breaks(broken));
    }
    let missing: Vec<TypeName> = named(spec)
        .into_iter()
        .filter(|n| !next.contains_key(n))
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::Names(missing));
    }
    Ok(next)
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
    let got = r.register_type_text(&text, "prop.yaml", RegisterTypeOptions { replace });
    if spec.inherits.as_ref() == Some(&spec.name) {
        // The reader refuses it before the registry looks.
        prop_assert!(matches!(got, Err(RegistryError::Spec(_))), "{got:?}");
        return Ok(());
    }
    if specs.contains_key(&spec.name) && !replace {
        prop_assert!(
            matches!(
                got,
                Err(RegistryError::Types(TypesError::TypeExists { .. }))
            ),
            "{got:?}"
        );
        return Ok(());
    }
    match put(specs, spec) {
        Ok(next) => {
            prop_assert!(got.is_ok(), "refused: {}\n{text}", got.unwrap_err());
            *specs = next;
        }
        Err(Refusal::Breaks(broken)) => {
            let e = inheritance(refused(got, "accepted, though it breaks a type")?)?;
            assert_clear(&e)?;
            let e = comparable(Err(e)).unwrap_err();
            prop_assert!(broken.contains(&e), "{e:?} not in {broken:?}");
        }
        Err(Refusal::Names(missing)) => {
            let err = refused(got, "accepted, though it names a missing type")?;
            let RegistryError::Types(TypesError::UnknownTypeReference { missing: named, .. }) =
                &err
            else {
                return Err(TestCaseError::fail(format!("refused as: {err}")));
            };
            prop_assert!(missing.contains(named), "{err}");
            prop_assert!(err.to_string().contains(named.as_str()), "{err}");
        }
    }
    Ok(())
}

/// Remove `name` from `r` and from the reference: refused exactly while
/// a type inherits it or names it.
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
            matches!(
                got,
                Err(RegistryError::Types(TypesError::TypeNotFound { .. }))
            ),
            "{got:?}"
        );
    } else if !subtypes.is_empty() {
        let e = inheritance(refused(got, "removed a type with subtypes")?)?;
        assert_clear(&e)?;
        prop_assert_eq!(e, InheritanceError::HasSubtypes { name, subtypes });
    } else if let Some(by) = specs
        .values()
        .find(|s| s.name != name && named(s).contains(&name))
    {
        let err = refused(got, "removed a type another names")?;
        prop_assert!(
            matches!(&err, RegistryError::Types(TypesError::TypeReferenced { by: names, .. }) if names.contains(&by.name)),
            "{err}"
        );
        prop_assert!(err.to_string().contains(by.name.as_str()), "{err}");
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
        .map_err(|e| TestCaseError::fail(format!("the types cannot be listed: {e}")))?
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
