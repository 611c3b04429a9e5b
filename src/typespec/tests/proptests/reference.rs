//! The reference model: what a type should resolve to, by the rules in
//! the [module docs](crate::typespec) and resources-reference.md, computed
//! root first (see the [property module](super) for how that differs from
//! the resolver).

use super::*;
use crate::model::{
    ReplaceFlags, Sourced, SourcedCapabilities, TypeArgument, TypeCapabilitiesDecl,
};

/// The declared specs from the root down to `name`, or the refusal.
fn reference_chain<'a>(
    table: &'a [TypeSpec],
    name: &TypeName,
) -> Result<Vec<&'a TypeSpec>, InheritanceError> {
    let find = |n: &TypeName| table.iter().find(|s| s.name == *n);
    let mut up =
        vec![find(name).ok_or_else(|| InheritanceError::UnknownType { name: name.clone() })?];
    loop {
        let child = *up.last().unwrap();
        let Some(parent) = &child.inherits else {
            break;
        };
        if let Some(at) = up.iter().position(|s| s.name == *parent) {
            let mut cycle: Vec<TypeName> = up[at..].iter().map(|s| s.name.clone()).collect();
            cycle.push(parent.clone());
            return Err(InheritanceError::Cycle {
                name: name.clone(),
                cycle,
            });
        }
        let Some(spec) = find(parent) else {
            return Err(InheritanceError::MissingParent {
                name: child.name.clone(),
                parent: parent.clone(),
            });
        };
        up.push(spec);
    }
    if up.len() > MAX_CHAIN_DEPTH {
        return Err(InheritanceError::TooDeep {
            name: name.clone(),
            chain: up.iter().map(|s| s.name.clone()).collect(),
        });
    }
    up.reverse();
    Ok(up)
}

/// The last value declared on the way from the root down, with its type.
fn last_declared<T>(
    down: &[&TypeSpec],
    field: impl Fn(&TypeSpec) -> Option<T>,
) -> Option<Sourced<T>> {
    let mut found = None;
    for spec in down {
        if let Some(value) = field(spec) {
            found = Some(Sourced {
                value,
                from: Some(spec.name.clone()),
            });
        }
    }
    found
}

fn or_default<T>(found: Option<Sourced<T>>, default: T) -> Sourced<T> {
    found.unwrap_or(Sourced {
        value: default,
        from: None,
    })
}

/// One collection: everything from the last type that replaces it down,
/// in that order, each item with the type that declared it.
fn concatenated<'a, T: Clone + 'a>(
    down: &[&'a TypeSpec],
    replaces: impl Fn(&ReplaceFlags) -> bool,
    items: impl Fn(&'a TypeSpec) -> &'a [T],
) -> Vec<Sourced<T>> {
    let start = down.iter().rposition(|s| replaces(&s.replace)).unwrap_or(0);
    down[start..]
        .iter()
        .flat_map(|s| {
            items(s).iter().map(|item| Sourced {
                value: item.clone(),
                from: Some(s.name.clone()),
            })
        })
        .collect()
}

/// Type names: each once, where it first appears.
fn first_of_each(all: Vec<Sourced<TypeName>>) -> Vec<Sourced<TypeName>> {
    let mut out: Vec<Sourced<TypeName>> = Vec::new();
    for item in all {
        if !out.iter().any(|o| o.value == item.value) {
            out.push(item);
        }
    }
    out
}

/// Arguments: each name once, where it first appears, as last declared.
fn last_of_each(all: Vec<Sourced<TypeArgument>>) -> Vec<Sourced<TypeArgument>> {
    let mut names: Vec<&str> = Vec::new();
    for item in &all {
        if !names.contains(&item.value.name.as_str()) {
            names.push(&item.value.name);
        }
    }
    names
        .iter()
        .map(|n| all.iter().rfind(|a| a.value.name == *n).unwrap().clone())
        .collect()
}

/// What `name` should resolve to in `table`, by the documented rules.
pub(super) fn reference(
    table: &[TypeSpec],
    name: &TypeName,
) -> Result<ResolvedType, InheritanceError> {
    let down = reference_chain(table, name)?;
    let own = *down.last().unwrap();
    let incoherent = |field: &str| InheritanceError::Incoherent {
        name: name.clone(),
        field: field.to_owned(),
        reason: String::new(),
    };
    let kind = last_declared(&down, |s| s.kind).ok_or_else(|| incoherent("resource_kind"))?;
    let sandbox_strategy = or_default(
        last_declared(&down, |s| s.sandbox_strategy),
        SandboxStrategy::None,
    );
    let isolates = !matches!(
        sandbox_strategy.value,
        SandboxStrategy::None | SandboxStrategy::Inherit
    );
    let flag = |f: fn(&TypeCapabilitiesDecl) -> Option<bool>, default: bool| {
        or_default(last_declared(&down, |s| f(&s.capabilities)), default)
    };
    let t = ResolvedType {
        name: name.clone(),
        chain: down.iter().rev().map(|s| s.name.clone()).collect(),
        built_in: own.built_in,
        description: or_default(
            last_declared(&down, |s| s.description.clone()),
            String::new(),
        ),
        kind,
        sandbox_strategy,
        user_addable: or_default(last_declared(&down, |s| s.user_addable), false),
        cli_args: last_of_each(concatenated(&down, |r| r.cli_args, |s| &s.cli_args)),
        parent_types: first_of_each(concatenated(&down, |r| r.parent_types, |s| &s.parent_types)),
        child_types: first_of_each(concatenated(&down, |r| r.child_types, |s| &s.child_types)),
        handler: last_declared(&down, |s| s.handler.clone()),
        capabilities: SourcedCapabilities {
            read: flag(|c| c.read, true),
            write: flag(|c| c.write, false),
            sandbox: flag(|c| c.sandbox, isolates),
            checkpoint: flag(|c| c.checkpoint, isolates),
        },
        auto_discovery: last_declared(&down, |s| s.auto_discovery.clone()),
        equivalence: None,
    };
    if t.kind.value == ResourceKind::Virtual {
        if t.user_addable.value {
            return Err(incoherent("user_addable"));
        }
        if t.sandbox_strategy.value != SandboxStrategy::None {
            return Err(incoherent("sandbox_strategy"));
        }
        if t.args().any(|a| a.arg_type == ArgType::Path) {
            return Err(incoherent("cli_args"));
        }
    }
    if let Some(discovery) = &t.auto_discovery
        && !t.child_types.is_empty()
    {
        for (i, rule) in discovery.value.rules.iter().enumerate() {
            let allowed = lineage(table, &rule.type_name)
                .iter()
                .any(|a| t.child_type_names().any(|c| c == a));
            if !allowed {
                return Err(incoherent(&format!("auto_discovery.rules[{i}].type")));
            }
        }
    }
    Ok(t)
}

/// `name` and the ancestors `table` holds, most specific first: what a
/// discovery rule's type may be checked against. Stops quietly at a
/// parent the table lacks or at a repeat (resolving that type is where
/// those are refused).
fn lineage(table: &[TypeSpec], name: &TypeName) -> Vec<TypeName> {
    let mut names = vec![name.clone()];
    loop {
        let last = names.last().unwrap();
        let parent = table
            .iter()
            .find(|s| s.name == *last)
            .and_then(|s| s.inherits.clone());
        match parent {
            Some(parent) if !names.contains(&parent) => names.push(parent),
            _ => return names,
        }
    }
}
