//! The types a plugin carries, registered with it: the one home of the
//! rules that bind a component's type files to its module.
//!
//! `plugin add`, `plugin install` and `plugin update` all come through
//! [`register_carried`], inside the transaction that writes the plugin's
//! row, so a module and its types arrive together or not at all. Each
//! file is parsed as `agents resource type add` parses one (`typespec`),
//! must name no handler but one of this module's own classes (a plugin
//! does not get to define types for someone else's handler), and is then
//! checked against the world as it would be, exactly as `type add` checks
//! it. A type already registered with the same spec is left alone (adding
//! a plugin twice is a no-op); one registered differently is a clash,
//! refused unless the caller replaces (`--replace`, `update`), and a
//! replacement must not break what is registered (`types::check_replacement`,
//! and [`check_resources_keep_fields`] naming each resource and field).

use crate::model::{ModuleName, TypeName, TypeSpec};
use crate::registry::RegistryError;
use crate::registry::type_set::TypeSet;
use crate::registry::types::{check_handler, check_replacement, check_type, newly_required};
use crate::registry::{PluginsError, TypesError};
use crate::store::Writer;
use crate::typespec;
use std::sync::Arc;

/// A plugin's type files, parsed (not yet checked against a registry).
#[derive(Debug, Clone, Default)]
pub(crate) struct CarriedTypes {
    pub specs: Vec<TypeSpec>,
}

impl CarriedTypes {
    /// Parse `files` (a component's carried type files) for `module`:
    /// each a valid type file whose handler, if any, is `module`'s.
    pub fn parse(module: &ModuleName, files: &[String]) -> Result<Self, RegistryError> {
        let mut specs: Vec<TypeSpec> = Vec::new();
        for (index, text) in files.iter().enumerate() {
            let source = source_name(module, index);
            let spec = typespec::parse_type_file(text, &source)?;
            if let Some(handler) = &spec.handler
                && handler.module != *module
            {
                return Err(PluginsError::CarriedForeignHandler {
                    module: module.clone(),
                    type_name: spec.name.clone(),
                    handler: handler.clone(),
                }
                .into());
            }
            if specs.iter().any(|s| s.name == spec.name) {
                return Err(PluginsError::CarriedTwice {
                    module: module.clone(),
                    type_name: spec.name.clone(),
                }
                .into());
            }
            specs.push(spec);
        }
        Ok(Self { specs })
    }

    pub fn names(&self) -> Vec<TypeName> {
        self.specs.iter().map(|s| s.name.clone()).collect()
    }
}

/// How a type file carried by `module` is recorded as its `source`.
pub(crate) fn source_name(module: &ModuleName, index: usize) -> String {
    format!("plugin {module} (carried type file {})", index + 1)
}

/// What registering a plugin's carried types did.
#[derive(Debug, Default)]
pub(crate) struct CarriedOutcome {
    pub added: Vec<TypeName>,
    pub replaced: Vec<TypeName>,
    pub unchanged: Vec<TypeName>,
}

/// Register `carried` inside `w` (the plugin's row is already written
/// there, so their handlers resolve). `replace` lets a differing
/// registered type be replaced, still checked against what uses it;
/// `force` lets the replacement require fields registered resources lack.
pub(crate) fn register_carried(
    w: &Writer<'_>,
    current: &Arc<TypeSet>,
    module: &ModuleName,
    carried: &CarriedTypes,
    (replace, force): (bool, bool),
    now: &str,
) -> Result<CarriedOutcome, RegistryError> {
    let mut outcome = CarriedOutcome::default();
    let mut next: TypeSet = current.with_rows(std::iter::empty());
    let mut changed = Vec::new();
    for (index, spec) in carried.specs.iter().enumerate() {
        let source = source_name(module, index);
        match current.row(&spec.name) {
            Some(row) if row.spec == *spec => {
                outcome.unchanged.push(spec.name.clone());
                continue;
            }
            Some(row) if row.spec.built_in => {
                return Err(TypesError::BuiltinType {
                    name: spec.name.clone(),
                    action: "replaced by a plugin's type file",
                }
                .into());
            }
            Some(row) if !replace => {
                return Err(TypesError::TypeExists {
                    name: spec.name.clone(),
                    source_name: row.origin.source.clone(),
                }
                .into());
            }
            Some(_) => outcome.replaced.push(spec.name.clone()),
            None => outcome.added.push(spec.name.clone()),
        }
        next = next.with(spec.clone(), &source);
        changed.push((spec, source));
    }
    // Checked once every carried type is in: they may name each other.
    for (spec, _) in &changed {
        check_type(&next, spec)?;
        let resolved = next.resolve(&spec.name)?;
        check_handler(w, &next, &resolved)?;
        if current.contains(&spec.name) {
            if force {
                match check_replacement(w, current, &next, &spec.name) {
                    Err(RegistryError::Types(TypesError::ReplaceAddsRequired { .. })) => {}
                    other => other?,
                }
            } else {
                check_resources_keep_fields(w, current, &next, &spec.name)?;
                check_replacement(w, current, &next, &spec.name)?;
            }
        }
    }
    for (spec, source) in &changed {
        w.upsert_type(spec, source, now)?;
    }
    Ok(outcome)
}

/// Refuse a replacement of `name` under which an existing resource (of it
/// or a subtype) would lack a field the new type requires, naming the
/// first such resources and the field.
pub(crate) fn check_resources_keep_fields(
    w: &Writer<'_>,
    current: &TypeSet,
    next: &TypeSet,
    name: &TypeName,
) -> Result<(), RegistryError> {
    for type_name in next.with_subtypes(name) {
        let (before, after) = (current.resolve(&type_name)?, next.resolve(&type_name)?);
        let required = newly_required(&before, &after);
        if required.is_empty() {
            continue;
        }
        for row in w.resources(Some(std::slice::from_ref(&type_name)))? {
            if let Some(field) = required.iter().find(|f| !row.properties.contains_key(*f)) {
                return Err(TypesError::ReplaceInvalidatesResource {
                    name: name.clone(),
                    resource: row.label(),
                    field: field.clone(),
                }
                .into());
            }
        }
    }
    Ok(())
}

/// The registered types `module` carried (recorded as their source).
pub(crate) fn carried_by(
    r: &crate::store::Reader<'_>,
    module: &ModuleName,
) -> Result<Vec<TypeName>, RegistryError> {
    let prefix = format!("plugin {module} (carried type file ");
    Ok(r.types()?
        .into_iter()
        .filter(|row| row.origin.source.starts_with(&prefix))
        .map(|row| row.spec.name)
        .collect())
}
