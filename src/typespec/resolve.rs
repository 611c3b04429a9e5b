//! Declared specs → [`ResolvedType`]: the inheritance chain and the
//! effective value of every field, each with the type it came from.
//!
//! The walk is the only place rules 1–4 of the reference are enforced
//! (see the [module docs](super) for the depth definition and the
//! defaults); the merge follows "most specific wins" for scalars and
//! "root first, additively" for the three collections. Checks that need
//! the merged result live in [`super::coherence`].

use super::InheritanceError;
use super::{WALK_LIMIT, coherence};
use crate::model::{
    ResolvedType, SandboxStrategy, Sourced, SourcedCapabilities, TypeArgument, TypeName, TypeSpec,
};

/// Most types a chain may hold: the type itself and four ancestors.
pub const MAX_CHAIN_DEPTH: usize = 5;

pub(super) fn resolve(
    name: &TypeName,
    lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>,
) -> Result<ResolvedType, InheritanceError> {
    let chain = walk(name, lookup)?;
    let resolved = merge(&chain)?;
    coherence::check(&resolved, lookup)?;
    Ok(resolved)
}

/// The declared specs from `name` up to its root, most specific first.
fn walk(
    name: &TypeName,
    lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>,
) -> Result<Vec<TypeSpec>, InheritanceError> {
    let first = lookup(name).ok_or_else(|| InheritanceError::UnknownType { name: name.clone() })?;
    let mut chain = vec![first];
    while chain.len() <= WALK_LIMIT {
        let child = chain.last().expect("the chain starts non-empty");
        let Some(parent) = child.inherits.clone() else {
            break;
        };
        if let Some(at) = chain.iter().position(|s| s.name == parent) {
            let mut cycle: Vec<TypeName> = chain[at..].iter().map(|s| s.name.clone()).collect();
            cycle.push(parent);
            return Err(InheritanceError::Cycle {
                name: name.clone(),
                cycle,
            });
        }
        if (child.built_in || child.name.is_builtin_form()) && !parent.is_builtin_form() {
            return Err(InheritanceError::BuiltinInheritsCustom {
                name: child.name.clone(),
                parent,
            });
        }
        let Some(spec) = lookup(&parent) else {
            return Err(InheritanceError::MissingParent {
                name: child.name.clone(),
                parent,
            });
        };
        chain.push(spec);
    }
    if chain.len() > MAX_CHAIN_DEPTH {
        return Err(InheritanceError::TooDeep {
            name: name.clone(),
            chain: chain.into_iter().map(|s| s.name).collect(),
        });
    }
    Ok(chain)
}

/// The most specific declared value of one field, or the default.
fn scalar<T: Clone>(
    chain: &[TypeSpec],
    field: impl Fn(&TypeSpec) -> Option<T>,
    default: T,
) -> Sourced<T> {
    chain
        .iter()
        .find_map(|s| {
            field(s).map(|value| Sourced {
                value,
                from: Some(s.name.clone()),
            })
        })
        .unwrap_or(Sourced {
            value: default,
            from: None,
        })
}

/// Like [`scalar`] for a field whose default is "none".
fn optional<T: Clone>(
    chain: &[TypeSpec],
    field: impl Fn(&TypeSpec) -> Option<T>,
) -> Option<Sourced<T>> {
    chain.iter().find_map(|s| {
        field(s).map(|value| Sourced {
            value,
            from: Some(s.name.clone()),
        })
    })
}

fn merge(chain: &[TypeSpec]) -> Result<ResolvedType, InheritanceError> {
    let own = &chain[0];
    let Some(kind) = optional(chain, |s| s.kind) else {
        let root = chain.last().map_or(&own.name, |s| &s.name);
        return Err(InheritanceError::Incoherent {
            name: own.name.clone(),
            field: "resource_kind".to_owned(),
            reason: format!(
                "no type in the chain declares it; the root type \"{root}\" must say \
                 `resource_kind: physical` or `resource_kind: virtual`"
            ),
        });
    };
    let sandbox_strategy = scalar(chain, |s| s.sandbox_strategy, SandboxStrategy::None);
    // A type that isolates (a strategy of its own, not `none` or `inherit`)
    // and says nothing about `sandbox` / `checkpoint` can be sandboxed and
    // checkpointed: the registry doc's `myteam/python-package`
    // (`copy_on_write`, no capabilities) is sandboxable.
    let isolates = !matches!(
        sandbox_strategy.value,
        SandboxStrategy::None | SandboxStrategy::Inherit
    );
    Ok(ResolvedType {
        name: own.name.clone(),
        chain: chain.iter().map(|s| s.name.clone()).collect(),
        built_in: own.built_in,
        description: scalar(chain, |s| s.description.clone(), String::new()),
        kind,
        sandbox_strategy,
        user_addable: scalar(chain, |s| s.user_addable, false),
        cli_args: merge_args(chain),
        parent_types: merge_names(chain, |s| (s.replace.parent_types, &s.parent_types)),
        child_types: merge_names(chain, |s| (s.replace.child_types, &s.child_types)),
        handler: optional(chain, |s| s.handler.clone()),
        capabilities: SourcedCapabilities {
            read: scalar(chain, |s| s.capabilities.read, true),
            write: scalar(chain, |s| s.capabilities.write, false),
            sandbox: scalar(chain, |s| s.capabilities.sandbox, isolates),
            checkpoint: scalar(chain, |s| s.capabilities.checkpoint, isolates),
        },
        auto_discovery: optional(chain, |s| s.auto_discovery.clone()),
        equivalence: optional(chain, |s| s.equivalence.clone()),
    })
}

/// `cli_args` from the root down: a `cli_args_replace` drops what came
/// before; a name seen again replaces the earlier argument in place.
fn merge_args(chain: &[TypeSpec]) -> Vec<Sourced<TypeArgument>> {
    let mut merged: Vec<Sourced<TypeArgument>> = Vec::new();
    for spec in chain.iter().rev() {
        if spec.replace.cli_args {
            merged.clear();
        }
        for arg in &spec.cli_args {
            let item = Sourced {
                value: arg.clone(),
                from: Some(spec.name.clone()),
            };
            match merged.iter_mut().find(|m| m.value.name == arg.name) {
                Some(slot) => *slot = item,
                None => merged.push(item),
            }
        }
    }
    merged
}

/// `parent_types` / `child_types` from the root down: a replace flag
/// drops what came before; a name already present keeps its first origin.
fn merge_names(
    chain: &[TypeSpec],
    field: impl Fn(&TypeSpec) -> (bool, &Vec<TypeName>),
) -> Vec<Sourced<TypeName>> {
    let mut merged: Vec<Sourced<TypeName>> = Vec::new();
    for spec in chain.iter().rev() {
        let (replace, names) = field(spec);
        if replace {
            merged.clear();
        }
        for name in names {
            if !merged.iter().any(|m| m.value == *name) {
                merged.push(Sourced {
                    value: name.clone(),
                    from: Some(spec.name.clone()),
                });
            }
        }
    }
    merged
}

/// Direct subtypes of `name` among `all` (rule 5's question), sorted.
pub(super) fn subtypes_of<'a>(
    name: &TypeName,
    all: impl IntoIterator<Item = &'a TypeSpec>,
) -> Vec<TypeName> {
    let mut subtypes: Vec<TypeName> = all
        .into_iter()
        .filter(|s| s.inherits.as_ref() == Some(name))
        .map(|s| s.name.clone())
        .collect();
    subtypes.sort();
    subtypes
}
