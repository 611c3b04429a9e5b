//! Is a merged type coherent? The checks that only make sense after
//! inheritance: a field can be fine in every file that declares it and
//! still contradict another field declared somewhere else in the chain.
//!
//! The kind rules are the per-file ones of [`super::validate`] applied to
//! the **effective** values (a `virtual` subtype of a physical type with
//! a `path` argument, a physical subtype of a virtual type that keeps its
//! `equivalence`), plus the one rule no single file can check: an
//! auto-discovery rule must name a type the effective `child_types`
//! allows — that type, or a subtype of one listed there (an empty
//! `child_types` allows any). Each refusal names the type, the field and
//! the type that declared the offending value.

use super::{InheritanceError, WALK_LIMIT};
use crate::model::{
    ArgType, ResolvedType, ResourceKind, SandboxStrategy, Sourced, TypeName, TypeSpec,
};

pub(super) fn check(
    t: &ResolvedType,
    lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>,
) -> Result<(), InheritanceError> {
    let refuse = |field: String, reason: String| InheritanceError::Incoherent {
        name: t.name.clone(),
        field,
        reason,
    };
    let kind = t.kind.value;
    if kind == ResourceKind::Virtual {
        if t.user_addable.value {
            return Err(refuse(
                "user_addable".to_owned(),
                format!(
                    "virtual types are never user-addable, but `user_addable: true` comes from {}",
                    origin(&t.user_addable)
                ),
            ));
        }
        if t.sandbox_strategy.value != SandboxStrategy::None {
            return Err(refuse(
                "sandbox_strategy".to_owned(),
                format!(
                    "virtual types have no sandbox, but `sandbox_strategy: {}` comes from {}; \
                     declare `sandbox_strategy: none` in \"{}\"",
                    t.sandbox_strategy.value,
                    origin(&t.sandbox_strategy),
                    t.name
                ),
            ));
        }
        if let Some(arg) = t
            .cli_args
            .iter()
            .find(|a| a.value.arg_type == ArgType::Path)
        {
            return Err(refuse(
                "cli_args".to_owned(),
                format!(
                    "argument \"{}\" (from {}) is a `path`, but a virtual type has no location; \
                     override it or use `cli_args_replace: true`",
                    arg.value.name,
                    origin(arg)
                ),
            ));
        }
    }
    if let Some(eq) = t
        .equivalence
        .as_ref()
        .filter(|_| kind == ResourceKind::Physical)
    {
        return Err(refuse(
            "equivalence".to_owned(),
            format!(
                "only virtual types have `equivalence`, but this type is physical (kind from {}) \
                 and inherits `equivalence` from {}",
                origin(&t.kind),
                origin(eq)
            ),
        ));
    }
    if let Some(discovery) = &t.auto_discovery
        && !t.child_types.is_empty()
    {
        for (i, rule) in discovery.value.rules.iter().enumerate() {
            let allowed = lineage(&rule.type_name, lookup)
                .iter()
                .any(|ancestor| t.child_type_names().any(|c| c == ancestor));
            if !allowed {
                let listed: Vec<&str> = t.child_type_names().map(TypeName::as_str).collect();
                return Err(refuse(
                    format!("auto_discovery.rules[{i}].type"),
                    format!(
                        "the rule (from {}) discovers \"{}\", which the effective child_types \
                         ({}) does not allow, nor a type it inherits; add it to child_types",
                        origin(discovery),
                        rule.type_name,
                        listed.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `type "x"` or `the default`, for messages.
fn origin<T>(value: &Sourced<T>) -> String {
    match &value.from {
        Some(name) => format!("type \"{name}\""),
        None => "the default".to_owned(),
    }
}

/// `name` and the ancestors `lookup` can find, most specific first. Stops
/// quietly at a missing parent, a repeat or the walk limit: callers use
/// it to ask "is this a kind of that?", where an unresolvable chain
/// simply answers no.
fn lineage(name: &TypeName, lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>) -> Vec<TypeName> {
    let mut names = vec![name.clone()];
    let mut current = lookup(name);
    while let Some(parent) = current.and_then(|s| s.inherits) {
        if names.contains(&parent) || names.len() > WALK_LIMIT {
            break;
        }
        current = lookup(&parent);
        names.push(parent);
    }
    names
}
