//! Type operations: bootstrap the built-ins, register, list, show, explain
//! and remove types.
//!
//! **Registering checks the world as it would be.** A new or replacing
//! spec is added to a copy of the type set, then the type *and every
//! subtype of it* must still resolve (inheritance rules), every type it
//! names must exist, its handler must be real, and — when replacing —
//! nothing already registered may break: resources keep their kind and
//! their required arguments, and every existing link involving the type's
//! resources stays allowed.

use super::views::TypeView;
use super::{Registry, RegistryError};
use crate::builtin;
use crate::dag;
use crate::model::{ClassName, ResolvedType, TypeName, TypeSpec};
use crate::registry::recording::{EventOp, diff_documents};
use crate::registry::type_set::TypeSet;
use crate::registry::{PluginsError, TypesError};
use crate::store::{Reader, Writer};
use crate::typespec;
use serde_json::json;
use std::path::Path;

/// The `registry_meta` key holding the fingerprint of the catalogue last
/// bootstrapped: an unchanged catalogue costs one read at startup.
pub(super) const CATALOGUE_KEY: &str = "builtin_catalogue_sha256";

/// How [`Registry::register_type`] registers a type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegisterTypeOptions {
    /// Replace a custom type of the same name (otherwise refused); the
    /// replacement is still checked against what is registered.
    pub replace: bool,
}

impl RegisterTypeOptions {
    /// Replace a custom type of the same name.
    pub fn replacing() -> Self {
        Self { replace: true }
    }
}

/// The checks a new or replacing spec must pass in the set `next` that
/// already contains it: it and everything below it resolve, so do the
/// types whose discovery rules name one of those, and every type it names
/// exists.
///
/// A discovery rule is judged by its type's lineage (a rule may discover
/// a subtype of a listed child type), which a replacement can change: a
/// type whose rule names the replaced type, or a subtype of it, must
/// still resolve — and so must its own subtypes, which inherit the rule.
pub(super) fn check_type(next: &TypeSet, spec: &TypeSpec) -> Result<(), RegistryError> {
    let below = next.with_subtypes(&spec.name);
    for name in &below {
        next.resolve(name)?;
    }
    let holders: Vec<TypeName> = next
        .rows()
        .filter(|row| {
            row.spec
                .auto_discovery
                .as_ref()
                .is_some_and(|d| d.rules.iter().any(|rule| below.contains(&rule.type_name)))
        })
        .map(|row| row.spec.name.clone())
        .collect();
    for holder in holders {
        for name in next.with_subtypes(&holder) {
            next.resolve(&name)?;
        }
    }
    for (field, missing) in typespec::references(spec) {
        if !next.contains(&missing) {
            return Err(TypesError::UnknownTypeReference {
                type_name: spec.name.clone(),
                field,
                missing,
            }
            .into());
        }
    }
    Ok(())
}

/// A type may name only a module that exists and a class it exports.
pub(super) fn check_handler(
    r: &Reader<'_>,
    next: &TypeSet,
    ty: &ResolvedType,
) -> Result<(), RegistryError> {
    let Some(handler) = ty.handler_ref() else {
        return Ok(());
    };
    let module = &handler.module;
    let provides: Vec<ClassName> = if module.is_reserved() {
        // The built-in modules export the classes the catalogue names.
        let mut classes: Vec<ClassName> = next
            .rows()
            .filter(|row| row.spec.built_in)
            .filter_map(|row| row.spec.handler.as_ref())
            .filter(|h| &h.module == module)
            .map(|h| h.class.clone())
            .collect();
        classes.sort();
        classes.dedup();
        if classes.is_empty() {
            return Err(PluginsError::NotABuiltinModule {
                type_name: ty.name.clone(),
                handler: handler.clone(),
            }
            .into());
        }
        classes
    } else {
        match r.plugin(module)? {
            Some(row) => row.class_names(),
            None => {
                return Err(PluginsError::HandlerModuleMissing {
                    type_name: ty.name.clone(),
                    handler: handler.clone(),
                    added: r.plugins()?.into_iter().map(|p| p.module).collect(),
                }
                .into());
            }
        }
    };
    if !provides.contains(&handler.class) {
        return Err(PluginsError::HandlerClassMissing {
            type_name: ty.name.clone(),
            handler: handler.clone(),
            provides,
        }
        .into());
    }
    Ok(())
}

/// The arguments `after` requires (with no default) that `before` did
/// not: what a resource registered under `before` may lack.
pub(super) fn newly_required(before: &ResolvedType, after: &ResolvedType) -> Vec<String> {
    after
        .args()
        .filter(|a| a.required && a.default.is_none())
        .filter(|a| before.arg(&a.name).is_none_or(|b| !b.required))
        .map(|a| a.name.clone())
        .collect()
}

/// What a replacement must not break in what is already registered.
pub(super) fn check_replacement(
    w: &Writer<'_>,
    current: &TypeSet,
    next: &TypeSet,
    name: &TypeName,
) -> Result<(), RegistryError> {
    let affected = next.with_subtypes(name);
    for type_name in &affected {
        let (before, after) = (current.resolve(type_name)?, next.resolve(type_name)?);
        let count = w.count_resources_of_type(type_name)?;
        if count == 0 {
            continue;
        }
        if before.kind() != after.kind() {
            return Err(TypesError::ReplaceChangesKind {
                name: name.clone(),
                type_name: type_name.clone(),
                from: before.kind(),
                to: after.kind(),
                count,
            }
            .into());
        }
        let flags = newly_required(&before, &after);
        if !flags.is_empty() {
            return Err(TypesError::ReplaceAddsRequired {
                name: name.clone(),
                type_name: type_name.clone(),
                flags,
                count,
            }
            .into());
        }
    }
    for link in w.links_touching_types(&affected)? {
        let parent = next.resolve(&link.parent_type)?;
        let child = next.resolve(&link.child_type)?;
        if let Err(rule) = dag::check_link_types(&parent, &child) {
            return Err(TypesError::ReplaceBreaksLink {
                name: name.clone(),
                parent: link.parent.to_string(),
                child: link.child.to_string(),
                rule: Box::new(rule),
            }
            .into());
        }
    }
    Ok(())
}

impl Registry {
    /// Register the built-in types (idempotent; a no-op read when the
    /// catalogue is unchanged since the last bootstrap).
    pub fn bootstrap_builtin_types(&mut self) -> Result<(), RegistryError> {
        let fingerprint = builtin::fingerprint();
        let catalogue = self.store.read(|r| r.meta(CATALOGUE_KEY))?;
        if catalogue.as_deref() == Some(&fingerprint) {
            return Ok(());
        }
        let mut specs = builtin::specs();
        // Parents before subtypes: `inherits` is a foreign key.
        specs.sort_by_key(|s| s.inherits.is_some());
        let now = self.now();
        self.store.write(|w| {
            if w.meta(CATALOGUE_KEY)?.as_deref() == Some(&fingerprint) {
                return Ok(()); // another process got here first
            }
            for spec in &specs {
                w.upsert_type(spec, "builtin", &now)?;
            }
            w.set_meta(CATALOGUE_KEY, &fingerprint)?;
            Ok::<_, RegistryError>(())
        })
    }

    /// Register the custom type in the YAML file at `config_path`
    /// ([`RegisterTypeOptions::replace`]: overwriting a type of the same
    /// name).
    pub fn register_type(
        &mut self,
        config_path: &Path,
        options: RegisterTypeOptions,
    ) -> Result<TypeView, RegistryError> {
        self.check_read_in_roots(config_path, "reading a type file")?;
        let text =
            crate::user_files::read_text(config_path, crate::user_files::InputKind::TypeFile)?;
        self.register_type_text(&text, &config_path.display().to_string(), options)
    }

    /// Register a custom type from YAML text; `source_name` names it in
    /// messages and is recorded as the type's `source`.
    pub fn register_type_text(
        &mut self,
        text: &str,
        source_name: &str,
        options: RegisterTypeOptions,
    ) -> Result<TypeView, RegistryError> {
        let RegisterTypeOptions { replace } = options;
        let spec = typespec::parse_type_file(text, source_name)?;
        let now = self.now();
        let rec = self.recorder();
        let name = spec.name.clone();
        let cache = &self.types;
        self.store.write(|w| {
            let current = cache.get(w)?;
            if let Some(existing) = current.row(&name)
                && !replace
            {
                if existing.spec == spec && existing.origin.source.starts_with("plugin ") {
                    // The plugin brought this very type: registering its
                    // file again changes nothing.
                    return Ok(TypeView::new(current.resolve(&name)?, existing));
                }
                return Err(TypesError::TypeExists {
                    name,
                    source_name: existing.origin.source.clone(),
                }
                .into());
            }
            let next = current.with(spec.clone(), source_name);
            check_type(&next, &spec)?;
            let resolved = next.resolve(&name)?;
            check_handler(w, &next, &resolved)?;
            if current.contains(&name) {
                check_replacement(w, &current, &next, &name)?;
            }
            w.upsert_type(&spec, source_name, &now)?;
            let row = w
                .type_row(&name)?
                .unwrap_or_else(|| unreachable!("just written"));
            let view = TypeView::new(resolved, &row);
            match current.row(&name) {
                Some(old) => {
                    // The effective fields that changed (not the row's
                    // timestamps).
                    let before = TypeView::new(current.resolve(&name)?, old);
                    let mut changes = diff_documents(&before, &view).unwrap_or(json!({}));
                    if let Some(fields) = changes.as_object_mut() {
                        fields.remove("created_at");
                        fields.remove("updated_at");
                    }
                    rec.named(w, EventOp::TypeReplaced, name.as_str(), None, Some(changes))?;
                }
                None => {
                    let changes = json!({"source": source_name});
                    rec.named(w, EventOp::TypeAdded, name.as_str(), None, Some(changes))?;
                }
            }
            Ok(view)
        })
    }

    /// Every type, or those in `namespace` (`builtin` for the built-ins).
    pub fn list_types(&self, namespace: Option<&str>) -> Result<Vec<TypeView>, RegistryError> {
        let types = self.store.read(|r| self.types.get(r))?;
        types
            .rows()
            .filter(|row| namespace.is_none_or(|ns| row.spec.name.namespace() == ns))
            .map(|row| Ok(TypeView::new(types.resolve(&row.spec.name)?, row)))
            .collect()
    }

    /// One type, effective (after inheritance).
    pub fn show_type(&self, name: &str) -> Result<TypeView, RegistryError> {
        let types = self.store.read(|r| self.types.get(r))?;
        let resolved = types.find(name)?;
        let row = types
            .row(&resolved.name)
            .unwrap_or_else(|| unreachable!("found"));
        Ok(TypeView::new(resolved, row))
    }

    /// One type after inheritance, with the origin of every field and list
    /// item (`agents resource type explain`); also what embedders use for
    /// `is_a`.
    pub fn resolved_type(&self, name: &str) -> Result<ResolvedType, RegistryError> {
        let types = self.store.read(|r| self.types.get(r))?;
        Ok((*types.find(name)?).clone())
    }

    /// Remove a custom type no subtype, resource or other type depends on.
    pub fn remove_type(&mut self, name: &str) -> Result<(), RegistryError> {
        let cache = &self.types;
        let rec = self.recorder();
        self.store.write(|w| {
            let types = cache.get(w)?;
            let resolved = types.find(name)?;
            let name = resolved.name.clone();
            if resolved.built_in {
                return Err(TypesError::BuiltinType {
                    name,
                    action: "removed",
                }
                .into());
            }
            types.check_removable(&name)?;
            let count = w.count_resources_of_type(&name)?;
            if count > 0 {
                return Err(TypesError::TypeHasResources { name, count }.into());
            }
            let by = types.referrers(&name);
            if !by.is_empty() {
                return Err(TypesError::TypeReferenced { name, by }.into());
            }
            let source = types.row(&name).map(|row| row.origin.source.clone());
            w.delete_type(&name)?;
            let changes = json!({"source": source});
            rec.named(w, EventOp::TypeRemoved, name.as_str(), None, Some(changes))?;
            Ok(())
        })
    }
}
