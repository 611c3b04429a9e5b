//! Property tests of inheritance: random tables of declared specs —
//! chains and trees, cycles, missing parents, scalar overrides, collection
//! contents and `_replace` flags — resolved by [`resolve`] and by a
//! reference model written the other way round. The two must agree on
//! every field and every origin, or on the refusal; a refusal is never a
//! panic or a hang.
//!
//! The reference ([`reference`]) walks the chain **root first** and lets
//! each declared value overwrite the one before, where the resolver
//! searches leaf first for the first declared one; it builds a collection
//! as one concatenation from the last `_replace` down, deduplicated
//! afterwards, where the resolver clears and patches a list type by type.
//! Only the walk up to the root is the same shape in both — there is one
//! way to follow `inherits` — but the reference finds cycles with a plain
//! membership test on its own list.
//!
//! Generated specs are ones the reader accepts (each must render to a
//! file that parses back to it) except one kind: a type that inherits
//! itself, which the reader refuses and the resolver must still refuse as
//! a cycle, since a lookup can hand it anything.
//!
//! `registry` drives the same tables through a real registry.

use super::*;
use proptest::prelude::*;
use proptest::sample::Index;

mod reference;
mod registry;
mod tables;

use reference::reference;
use tables::{nth, table, table_of};

/// Cases of the resolution property: a case resolves up to [`MAX_TYPES`]
/// types twice, about 0.4 ms in a debug build (4096 cases: ~2 s).
const RESOLVE_CASES: u32 = 4096;

/// Cases of the read-back property: a case renders and parses up to
/// [`MAX_TYPES`] files, about 1.4 ms in a debug build (1024 cases: ~1.5 s).
const READ_BACK_CASES: u32 = 1024;

/// Most types in one table: enough for a chain one longer than
/// [`MAX_CHAIN_DEPTH`] allows, and for cycles of any length up to it.
const MAX_TYPES: usize = 8;

/// A result with the prose of an `Incoherent` reason left out (the
/// reference decides which rule refuses, not how it is worded).
fn comparable(
    result: Result<ResolvedType, InheritanceError>,
) -> Result<ResolvedType, InheritanceError> {
    result.map_err(|e| match e {
        InheritanceError::Incoherent { name, field, .. } => InheritanceError::Incoherent {
            name,
            field,
            reason: String::new(),
        },
        other => other,
    })
}

/// A refusal must say which types it is about.
fn assert_clear(err: &InheritanceError) -> Result<(), TestCaseError> {
    let msg = err.to_string();
    let named = match err {
        InheritanceError::MissingParent { name, parent } => vec![name, parent],
        InheritanceError::Cycle { cycle, .. } => cycle.iter().collect(),
        InheritanceError::TooDeep { chain, .. } => chain.iter().collect(),
        InheritanceError::UnknownType { name }
        | InheritanceError::Incoherent { name, .. }
        | InheritanceError::BuiltinInheritsCustom { name, .. }
        | InheritanceError::HasSubtypes { name, .. } => vec![name],
    };
    for name in named {
        prop_assert!(msg.contains(name.as_str()), "{msg:?} does not name {name}");
    }
    Ok(())
}

fn lookup(table: &[TypeSpec]) -> impl Fn(&TypeName) -> Option<TypeSpec> + '_ {
    |name| table.iter().find(|s| s.name == *name).cloned()
}

proptest! {
    #![proptest_config(crate::props::cases(RESOLVE_CASES))]

    #[test]
    fn resolution_agrees_with_a_root_first_reference_model(table in table()) {
        for spec in &table {
            let real = resolve(&spec.name, &lookup(&table));
            if let Err(e) = &real {
                assert_clear(e)?;
            }
            prop_assert_eq!(comparable(real), comparable(reference(&table, &spec.name)));
        }
        let missing = tn("p/missing");
        prop_assert_eq!(
            resolve(&missing, &lookup(&table)),
            Err(InheritanceError::UnknownType { name: missing })
        );
    }
}

proptest! {
    #![proptest_config(crate::props::cases(READ_BACK_CASES))]

    #[test]
    fn every_generated_spec_reads_back_from_its_rendered_file(table in table()) {
        for spec in &table {
            let text = render_type_file(spec);
            let read = parse_type_file(&text, SRC);
            if spec.inherits.as_ref() == Some(&spec.name) {
                let err = read.expect_err("a type inheriting itself was read");
                prop_assert_eq!(err.path(), "inherits");
            } else {
                prop_assert_eq!(read.as_ref(), Ok(spec), "{}", text);
            }
        }
    }
}
