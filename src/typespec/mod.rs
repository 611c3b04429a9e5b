//! YAML type specs: the one home of **what a type spec may say and what a
//! type effectively is**. It is the only module that reads YAML.
//!
//! Two steps, two errors:
//!
//! 1. [`parse_type_file`] / [`parse_catalogue`] turn text into declared
//!    [`TypeSpec`]s, strictly: a raw serde mirror that denies unknown keys
//!    (`raw`), then the rules one spec must meet on its own
//!    (`validate`, `args`). Nothing is repaired; every refusal is a
//!    [`SpecError`] reading `<source>: <field path>: <reason>`:
//!
//!    ```text
//!    acme.yaml: cli_args[1].type: unknown variant `file`, expected one of
//!    `string`, `path`, `integer`, `boolean`, `choice` at line 9 column 11
//!    ```
//!
//!    A key whose value is YAML `null` (`handler: ~`) counts as not given,
//!    so it is inherited like a missing one.
//! 2. [`resolve`] walks a type's inheritance chain through a lookup the
//!    caller provides (the registry's table, or the catalogue) and builds
//!    the immutable [`ResolvedType`], or an [`InheritanceError`].
//!
//! # Inheritance rules (resources-reference.md)
//!
//! 1. **Single inheritance** holds by construction: `inherits` is one name.
//! 2. **Depth** is the number of types in the chain, the type itself
//!    included: a root type has depth 1. At most [`MAX_CHAIN_DEPTH`] = 5,
//!    i.e. a type and four ancestors; a sixth type is refused with the
//!    whole chain listed.
//! 3. **No cycles**: refused with the cycle shown, `a → b → c → a`. Cycles
//!    and missing parents are found before depth is judged, so a long
//!    cycle is reported as a cycle.
//! 4. A **built-in type may not inherit a custom** (namespaced) type.
//! 5. **A type with subtypes may not be removed**: [`check_removable`],
//!    which the registry calls before removing a type.
//!
//! A parent that does not exist is its own error, saying to register it
//! first.
//!
//! The way back, [`render_type_file`], writes a declared spec as the text
//! of a type file that parses to an equal spec: how a registry, which
//! keeps specs rather than files, hands a type on (`agents registry
//! export`).
//!
//! # Field resolution
//!
//! Scalars: the most specific type that declares the field wins, and
//! [`Sourced::from`](crate::model::Sourced::from) names it. When no type in the chain declares one:
//!
//! | field | default |
//! |---|---|
//! | `description` | `""` |
//! | `resource_kind` | none — the root must declare it (refused otherwise) |
//! | `sandbox_strategy` | `none` |
//! | `user_addable` | `false` |
//! | `capabilities` | `read: true`, `write`/`sandbox`/`checkpoint`: `false`, each flag resolved on its own |
//! | `handler`, `auto_discovery`, `equivalence` | none |
//!
//! `from: None` marks a default. `built_in` is never inherited: it is the
//! type's own flag. `auto_discovery` and `equivalence` are taken whole
//! from the most specific type that declares them, not merged.
//!
//! Collections (`cli_args`, `parent_types`, `child_types`) merge from the
//! root down, root's items first; `<field>_replace: true` in a type drops
//! everything inherited above it. A `cli_args` item whose name is already
//! present replaces it in place (same position, `from` = the subtype); a
//! type name already present in `parent_types` / `child_types` is kept
//! once, with its first origin.
//!
//! The merged type must then be coherent (`coherence`): the virtual
//! kind rules hold for effective values, and every auto-discovery rule
//! names a type the effective `child_types` allows (or a subtype of one).

/// How far the walk goes before it stops looking for a cycle or a missing
/// parent and reports the chain as too deep. Far beyond any legal chain,
/// so a long cycle is still reported as a cycle.
const WALK_LIMIT: usize = 64;

mod args;
mod coherence;
mod load;
mod raw;
mod render;
mod resolve;
mod validate;

pub use args::RESERVED_ARG_NAMES;
pub use render::render_type_file;
pub use resolve::MAX_CHAIN_DEPTH;

use crate::model::{ResolvedType, TypeName, TypeSpec};
use thiserror::Error;
use validate::Form;

/// Where a refusal points: the source, and a path prefix for specs that
/// sit inside a list (`[3].` in the catalogue).
#[derive(Debug)]
struct Site<'a> {
    pub source_name: &'a str,
    pub prefix: String,
}

impl Site<'_> {
    pub fn refuse(&self, path: impl std::fmt::Display, reason: impl Into<String>) -> SpecError {
        SpecError::Invalid {
            source_name: self.source_name.to_owned(),
            path: format!("{}{path}", self.prefix),
            reason: reason.into(),
        }
    }
}

/// Why a type spec was refused: the source, the field path and the
/// reason. `Display` is `<source>: <field path>: <reason>`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpecError {
    /// Not YAML, not one document of the right overall shape, or a shape
    /// mistake serde_yaml found (unknown key, wrong value type, bad enum
    /// value, missing field). `path` is `(document)` when there is no
    /// field to name; the reason carries serde_yaml's `at line L column C`.
    #[error("{source_name}: {path}: {reason}")]
    Yaml {
        source_name: String,
        path: String,
        reason: String,
        line: Option<usize>,
        column: Option<usize>,
    },
    /// Well-formed YAML whose content breaks a rule of the spec.
    #[error("{source_name}: {path}: {reason}")]
    Invalid {
        source_name: String,
        path: String,
        reason: String,
    },
}

impl SpecError {
    /// The source the caller named (a file path, `builtin/catalogue.yaml`).
    pub fn source_name(&self) -> &str {
        match self {
            Self::Yaml { source_name, .. } | Self::Invalid { source_name, .. } => source_name,
        }
    }

    /// The field path, e.g. `cli_args[1].type`, or `(document)`.
    pub fn path(&self) -> &str {
        match self {
            Self::Yaml { path, .. } | Self::Invalid { path, .. } => path,
        }
    }

    pub fn reason(&self) -> &str {
        match self {
            Self::Yaml { reason, .. } | Self::Invalid { reason, .. } => reason,
        }
    }
}

/// Why a type's inheritance chain could not be resolved: one variant per
/// rule, each naming the types involved.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InheritanceError {
    #[error("type \"{name}\" does not exist")]
    UnknownType { name: TypeName },
    #[error(
        "type \"{name}\" inherits \"{parent}\", which does not exist; register it first \
         (agents resource type add …)"
    )]
    MissingParent { name: TypeName, parent: TypeName },
    #[error(
        "type \"{name}\" has an inheritance chain of {} types ({}); at most {} are allowed \
         (the type and {} ancestors)",
        .chain.len(), arrows(.chain), MAX_CHAIN_DEPTH, MAX_CHAIN_DEPTH - 1
    )]
    TooDeep {
        name: TypeName,
        chain: Vec<TypeName>,
    },
    #[error(
        "type \"{name}\" has circular inheritance: {}; change one type's `inherits` to break it",
        arrows(.cycle)
    )]
    Cycle {
        name: TypeName,
        cycle: Vec<TypeName>,
    },
    #[error(
        "built-in type \"{name}\" inherits custom type \"{parent}\"; built-in types may only \
         inherit built-in types"
    )]
    BuiltinInheritsCustom { name: TypeName, parent: TypeName },
    #[error(
        "cannot remove type {name}: it is the parent type of {} (a parent type cannot be \
         removed while subtypes exist); remove those first",
        list(.subtypes)
    )]
    HasSubtypes {
        name: TypeName,
        subtypes: Vec<TypeName>,
    },
    /// The merged type contradicts itself (see `coherence`).
    #[error("type \"{name}\": {field}: {reason}")]
    Incoherent {
        name: TypeName,
        field: String,
        reason: String,
    },
}

fn arrows(names: &[TypeName]) -> String {
    names
        .iter()
        .map(TypeName::as_str)
        .collect::<Vec<_>>()
        .join(" → ")
}

fn list(names: &[TypeName]) -> String {
    names
        .iter()
        .map(TypeName::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parse one custom type file: a YAML mapping whose `name` is
/// `namespace/name`; `built_in: true` is refused.
pub fn parse_type_file(text: &str, source_name: &str) -> Result<TypeSpec, SpecError> {
    let raw = load::one_spec(text, source_name)?;
    let at = Site {
        source_name,
        prefix: String::new(),
    };
    validate::type_spec(raw, Form::Custom, &at)
}

/// Parse the built-in catalogue: a YAML list of specs, each under the
/// same rules as a type file except that names are bare and `built_in`
/// is true (implied when left out, refused when `false`). A refusal's
/// path starts with the entry's index, `[3].cli_args[0].type`.
pub fn parse_catalogue(text: &str, source_name: &str) -> Result<Vec<TypeSpec>, SpecError> {
    let raws = load::spec_list(text, source_name)?;
    let mut specs: Vec<TypeSpec> = Vec::with_capacity(raws.len());
    for (i, raw) in raws.into_iter().enumerate() {
        let at = Site {
            source_name,
            prefix: format!("[{i}]."),
        };
        let spec = validate::type_spec(raw, Form::Builtin, &at)?;
        if let Some(first) = specs.iter().position(|s| s.name == spec.name) {
            return Err(at.refuse(
                "name",
                format!(
                    "duplicate type \"{}\": entry [{first}] already defines it",
                    spec.name
                ),
            ));
        }
        specs.push(spec);
    }
    Ok(specs)
}

/// Resolve `name` through its inheritance chain; `lookup` returns the
/// declared spec of any registered type (built-in or custom).
pub fn resolve(
    name: &TypeName,
    lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>,
) -> Result<ResolvedType, InheritanceError> {
    resolve::resolve(name, lookup)
}

/// The direct subtypes of `name` among `all`, sorted (rule 5).
pub fn subtypes_of<'a>(
    name: &TypeName,
    all: impl IntoIterator<Item = &'a TypeSpec>,
) -> Vec<TypeName> {
    resolve::subtypes_of(name, all)
}

/// Rule 5 as a check: `Ok` when no type in `all` inherits `name`.
pub fn check_removable<'a>(
    name: &TypeName,
    all: impl IntoIterator<Item = &'a TypeSpec>,
) -> Result<(), InheritanceError> {
    let subtypes = subtypes_of(name, all);
    if subtypes.is_empty() {
        Ok(())
    } else {
        Err(InheritanceError::HasSubtypes {
            name: name.clone(),
            subtypes,
        })
    }
}

/// Every type name `spec` mentions, with the field path that mentions it
/// (`inherits`, `parent_types[0]`, `child_types[2]`,
/// `auto_discovery.rules[1].type`, `equivalence.links[0]`) — for callers
/// that decide whether those types must already exist.
pub fn references(spec: &TypeSpec) -> Vec<(String, TypeName)> {
    let mut refs: Vec<(String, TypeName)> = Vec::new();
    if let Some(parent) = &spec.inherits {
        refs.push(("inherits".to_owned(), parent.clone()));
    }
    for (field, names) in [
        ("parent_types", &spec.parent_types),
        ("child_types", &spec.child_types),
    ] {
        for (i, name) in names.iter().enumerate() {
            refs.push((format!("{field}[{i}]"), name.clone()));
        }
    }
    if let Some(discovery) = &spec.auto_discovery {
        for (i, rule) in discovery.rules.iter().enumerate() {
            refs.push((
                format!("auto_discovery.rules[{i}].type"),
                rule.type_name.clone(),
            ));
        }
    }
    if let Some(eq) = &spec.equivalence {
        for (i, link) in eq.links.iter().enumerate() {
            refs.push((format!("equivalence.links[{i}]"), link.clone()));
        }
    }
    refs
}

#[cfg(test)]
mod tests;
