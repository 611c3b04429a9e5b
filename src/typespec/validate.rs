//! Raw spec → [`TypeSpec`]: the rules one type spec must meet **on its
//! own**, before any other type is consulted.
//!
//! What can be decided from the file alone is decided here, so the
//! refusal names the file and the field: name forms, references that must
//! parse, duplicates, `_replace` without `inherits`, a root without a
//! kind, and what a declared `virtual` kind forbids. What depends on the
//! ancestors (an inherited kind, a merged `child_types`) is the
//! resolver's to check — it re-applies the kind rules to the merged type,
//! so a rule is never skipped just because a subtype left a field out.
//!
//! Registration arguments have their own file ([`super::args`]).

use super::args;
use super::raw::{RawAutoDiscovery, RawEquivalence, RawHandler, RawRule, RawTypeSpec};
use super::{Site, SpecError};
use crate::model::{
    ArgType, AutoDiscovery, ClassName, DiscoveryRule, Equivalence, HandlerRef, ModuleName,
    ReplaceFlags, ResourceKind, SandboxStrategy, TypeCapabilitiesDecl, TypeName, TypeSpec,
};
use std::fmt::Display;

/// Which rules apply to names: a custom type file or the built-in catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Custom,
    Builtin,
}

/// Check one raw spec and build the declared [`TypeSpec`].
pub(super) fn type_spec(
    raw: RawTypeSpec,
    form: Form,
    at: &Site<'_>,
) -> Result<TypeSpec, SpecError> {
    let name = own_name(&raw.name, form, at)?;
    let built_in = built_in_flag(raw.built_in, form, at)?;
    let inherits = raw
        .inherits
        .as_deref()
        .map(|text| type_name(text, "inherits", at))
        .transpose()?;
    if inherits.as_ref() == Some(&name) {
        return Err(at.refuse(
            "inherits",
            format!("type \"{name}\" cannot inherit from itself"),
        ));
    }
    let replace = ReplaceFlags {
        cli_args: raw.cli_args_replace.unwrap_or(false),
        parent_types: raw.parent_types_replace.unwrap_or(false),
        child_types: raw.child_types_replace.unwrap_or(false),
    };
    if inherits.is_none() {
        for (set, field) in [
            (replace.cli_args, "cli_args"),
            (replace.parent_types, "parent_types"),
            (replace.child_types, "child_types"),
        ] {
            if set {
                return Err(at.refuse(
                    format_args!("{field}_replace"),
                    format!(
                        "nothing to replace: this type does not `inherits` another, so it has \
                         no inherited {field}; remove `{field}_replace` or add `inherits`"
                    ),
                ));
            }
        }
        if raw.resource_kind.is_none() {
            return Err(at.refuse(
                "resource_kind",
                "a root type (one without `inherits`) must say `resource_kind: physical` or \
                 `resource_kind: virtual`",
            ));
        }
    }

    let spec = TypeSpec {
        name,
        inherits,
        description: raw.description,
        kind: raw.resource_kind,
        sandbox_strategy: raw.sandbox_strategy,
        user_addable: raw.user_addable,
        built_in,
        cli_args: args::check(raw.cli_args.unwrap_or_default(), at)?,
        parent_types: type_list(raw.parent_types.unwrap_or_default(), "parent_types", at)?,
        child_types: type_list(raw.child_types.unwrap_or_default(), "child_types", at)?,
        replace,
        handler: raw.handler.map(|h| handler(h, at)).transpose()?,
        capabilities: raw
            .capabilities
            .map(|c| TypeCapabilitiesDecl {
                read: c.read,
                write: c.write,
                sandbox: c.sandbox,
                checkpoint: c.checkpoint,
            })
            .unwrap_or_default(),
        auto_discovery: raw.auto_discovery.map(|a| discovery(a, at)).transpose()?,
        equivalence: raw.equivalence.map(|e| equivalence(e, at)).transpose()?,
    };
    kind_rules(&spec, at)?;
    Ok(spec)
}

fn own_name(text: &str, form: Form, at: &Site<'_>) -> Result<TypeName, SpecError> {
    match form {
        Form::Custom => TypeName::parse_custom(text).map_err(|e| at.refuse("name", e.to_string())),
        Form::Builtin => {
            let name = type_name(text, "name", at)?;
            if !name.is_builtin_form() {
                return Err(at.refuse(
                    "name",
                    format!(
                        "built-in types have bare names (git-checkout); \"{name}\" is namespaced, \
                         which is the form of custom types"
                    ),
                ));
            }
            Ok(name)
        }
    }
}

fn built_in_flag(flag: Option<bool>, form: Form, at: &Site<'_>) -> Result<bool, SpecError> {
    match (form, flag) {
        (Form::Custom, Some(true)) => Err(at.refuse(
            "built_in",
            "`built_in: true` is reserved for the types this program ships; a type file \
             registers a custom type, so remove the key",
        )),
        (Form::Custom, _) => Ok(false),
        (Form::Builtin, Some(false)) => Err(at.refuse(
            "built_in",
            "every catalogue entry is built-in; remove `built_in: false`",
        )),
        (Form::Builtin, _) => Ok(true),
    }
}

pub(super) fn type_name(
    text: &str,
    path: impl Display,
    at: &Site<'_>,
) -> Result<TypeName, SpecError> {
    TypeName::parse(text).map_err(|e| at.refuse(path, e.to_string()))
}

/// A list of type names: each must parse, none may repeat.
fn type_list(texts: Vec<String>, field: &str, at: &Site<'_>) -> Result<Vec<TypeName>, SpecError> {
    let mut names: Vec<TypeName> = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        let name = type_name(text, format_args!("{field}[{i}]"), at)?;
        if let Some(first) = names.iter().position(|n| *n == name) {
            return Err(at.refuse(
                format_args!("{field}[{i}]"),
                format!("duplicate type \"{name}\": already listed at {field}[{first}]"),
            ));
        }
        names.push(name);
    }
    Ok(names)
}

fn handler(raw: RawHandler, at: &Site<'_>) -> Result<HandlerRef, SpecError> {
    match raw {
        RawHandler::Text(text) => {
            HandlerRef::parse(&text).map_err(|e| at.refuse("handler", e.to_string()))
        }
        RawHandler::Parts { module, class } => {
            let module = ModuleName::parse(&module)
                .map_err(|e| at.refuse("handler.module", e.to_string()))?;
            let class =
                ClassName::parse(&class).map_err(|e| at.refuse("handler.class", e.to_string()))?;
            HandlerRef::new(module, class).map_err(|e| at.refuse("handler", e.to_string()))
        }
    }
}

fn discovery(raw: RawAutoDiscovery, at: &Site<'_>) -> Result<AutoDiscovery, SpecError> {
    let mut rules: Vec<DiscoveryRule> = Vec::new();
    for (
        i,
        RawRule {
            type_name: t,
            pattern,
        },
    ) in raw.rules.unwrap_or_default().into_iter().enumerate()
    {
        let path = format!("auto_discovery.rules[{i}]");
        let type_name = type_name(&t, format_args!("{path}.type"), at)?;
        if pattern.trim().is_empty() {
            return Err(at.refuse(
                format_args!("{path}.pattern"),
                "the pattern is empty; give a glob relative to the resource's location \
                 (\"*/\", \".git\") or a handler selector (\"refs/heads/*\")",
            ));
        }
        let rule = DiscoveryRule { type_name, pattern };
        if let Some(first) = rules.iter().position(|r| *r == rule) {
            return Err(at.refuse(
                path,
                format!(
                    "duplicate rule ({}, {:?}): the same rule is at auto_discovery.rules[{first}]",
                    rule.type_name, rule.pattern
                ),
            ));
        }
        rules.push(rule);
    }
    Ok(AutoDiscovery {
        enabled: raw.enabled,
        rules,
    })
}

fn equivalence(raw: RawEquivalence, at: &Site<'_>) -> Result<Equivalence, SpecError> {
    if raw.links.is_empty() {
        return Err(at.refuse(
            "equivalence.links",
            "name at least one physical type this virtual type links (e.g. [fs-file, git-tree-entry])",
        ));
    }
    if raw.match_on.is_empty() {
        return Err(at.refuse(
            "equivalence.match",
            "name at least one property key whose equal values make two resources the same \
             (e.g. [relative-path])",
        ));
    }
    let links = type_list(raw.links, "equivalence.links", at)?;
    for (i, key) in raw.match_on.iter().enumerate() {
        if key.is_empty() || key.chars().any(char::is_whitespace) {
            return Err(at.refuse(
                format_args!("equivalence.match[{i}]"),
                format!("{key:?} is not a property key: it must be non-empty, without spaces"),
            ));
        }
        if let Some(first) = raw.match_on[..i].iter().position(|k| k == key) {
            return Err(at.refuse(
                format_args!("equivalence.match[{i}]"),
                format!("duplicate key {key:?}: already listed at equivalence.match[{first}]"),
            ));
        }
    }
    for (key, values) in &raw.filter {
        let at_key = format!("equivalence.where.{key}");
        if key.is_empty() || key.chars().any(char::is_whitespace) {
            return Err(at.refuse(
                at_key,
                format!("{key:?} is not a property key: it must be non-empty, without spaces"),
            ));
        }
        if raw.match_on.contains(key) {
            return Err(at.refuse(
                at_key,
                format!(
                    "{key:?} is also in equivalence.match: a key either makes resources the \
                     same or selects which take part, not both"
                ),
            ));
        }
        if values.is_empty() || values.iter().any(String::is_empty) {
            return Err(at.refuse(
                at_key,
                "list the values that take part (e.g. [file]), none of them empty",
            ));
        }
    }
    Ok(Equivalence {
        links,
        match_on: raw.match_on,
        filter: raw.filter,
    })
}

/// What a declared kind forbids. The resolver checks the same facts on
/// the merged type ([`super::resolve`]), which also covers a kind or a
/// field that is inherited rather than written here.
fn kind_rules(spec: &TypeSpec, at: &Site<'_>) -> Result<(), SpecError> {
    match spec.kind {
        Some(ResourceKind::Virtual) => {
            if spec.user_addable == Some(true) {
                return Err(at.refuse(
                    "user_addable",
                    "virtual types are never user-addable (they are derived from physical \
                     resources); remove `user_addable: true`",
                ));
            }
            if let Some(s) = spec
                .sandbox_strategy
                .filter(|s| *s != SandboxStrategy::None)
            {
                return Err(at.refuse(
                    "sandbox_strategy",
                    format!(
                        "virtual types have no sandbox, so the strategy must be `none` (or left \
                         out), not `{s}`"
                    ),
                ));
            }
            if let Some(i) = spec
                .cli_args
                .iter()
                .position(|a| a.arg_type == ArgType::Path)
            {
                return Err(at.refuse(
                    format_args!("cli_args[{i}].type"),
                    format!(
                        "argument \"{}\" is a `path`, but a virtual type has no location; use \
                         `string` or make the type physical",
                        spec.cli_args[i].name
                    ),
                ));
            }
        }
        Some(ResourceKind::Physical) if spec.equivalence.is_some() => {
            return Err(at.refuse(
                "equivalence",
                "only virtual types have `equivalence` (it says which physical resources are the \
                 same thing); remove it or make the type `resource_kind: virtual`",
            ));
        }
        _ => {}
    }
    Ok(())
}
