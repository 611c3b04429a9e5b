//! Type operations: bootstrap the built-ins, register, list, show, explain
//! and remove types.
//!
//! **Registering checks the world as it would be.** A new or replacing
//! spec is added to a copy of the catalogue, then the type *and every
//! subtype of it* must still resolve (inheritance rules), every type it
//! names must exist, and — when replacing — nothing already registered may
//! break: resources keep their kind and their required arguments, and every
//! existing link involving the type's resources stays allowed.

use super::catalogue::Catalogue;
use super::views::TypeView;
use super::{Registry, RegistryError, join_names};
use crate::builtin;
use crate::dag;
use crate::model::{ResolvedType, TypeName, TypeSpec};
use crate::spec;
use crate::store::Writer;
use std::path::Path;

/// The `registry_meta` key holding the fingerprint of the catalogue last
/// bootstrapped: an unchanged catalogue costs one read at startup.
const CATALOGUE_KEY: &str = "builtin_catalogue_sha256";

impl Registry {
    /// Register the built-in types (idempotent; a no-op read when the
    /// catalogue is unchanged since the last bootstrap).
    pub fn bootstrap_builtin_types(&mut self) -> Result<(), RegistryError> {
        let fingerprint = builtin::fingerprint();
        if self.store.read(|r| r.meta(CATALOGUE_KEY))?.as_deref() == Some(&fingerprint) {
            return Ok(());
        }
        let mut specs = builtin::catalogue();
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

    /// Register the custom type in the YAML file at `config_path`;
    /// `replace` allows overwriting a type of the same name.
    pub fn register_type(
        &mut self,
        config_path: &Path,
        replace: bool,
    ) -> Result<TypeView, RegistryError> {
        let text =
            std::fs::read_to_string(config_path).map_err(|source| RegistryError::ReadFile {
                path: config_path.to_owned(),
                source,
            })?;
        self.register_type_text(&text, &config_path.display().to_string(), replace)
    }

    /// Register a custom type from YAML text; `source_name` names it in
    /// messages and is recorded as the type's `source`.
    pub fn register_type_text(
        &mut self,
        text: &str,
        source_name: &str,
        replace: bool,
    ) -> Result<TypeView, RegistryError> {
        let spec = spec::parse_type_file(text, source_name)?;
        let now = self.now();
        let name = spec.name.clone();
        self.store.write(|w| {
            let current = Catalogue::load(w)?;
            if let Some(existing) = current.row(&name)
                && !replace
            {
                return Err(RegistryError::TypeExists {
                    name,
                    source_name: existing.source.clone(),
                });
            }
            let next = current.with(spec.clone(), source_name);
            check_type(&next, &spec)?;
            super::plugins::check_handler(w, &next, &*next.resolve(&name)?)?;
            if current.contains(&name) {
                check_replacement(w, &current, &next, &name)?;
            }
            w.upsert_type(&spec, source_name, &now)?;
            let row = w
                .type_row(&name)?
                .unwrap_or_else(|| unreachable!("just written"));
            Ok(TypeView::new(&*next.resolve(&name)?, Some(&row)))
        })
    }

    /// Every type, or those in `namespace` (`builtin` for the built-ins).
    pub fn list_types(&self, namespace: Option<&str>) -> Result<Vec<TypeView>, RegistryError> {
        let catalogue = self.catalogue()?;
        catalogue
            .rows()
            .filter(|row| namespace.is_none_or(|ns| row.spec.name.namespace() == ns))
            .map(|row| {
                Ok(TypeView::new(
                    &*catalogue.resolve(&row.spec.name)?,
                    Some(row),
                ))
            })
            .collect()
    }

    /// One type, effective (after inheritance).
    pub fn show_type(&self, name: &str) -> Result<TypeView, RegistryError> {
        let catalogue = self.catalogue()?;
        let resolved = catalogue.find(name)?;
        Ok(TypeView::new(&resolved, catalogue.row(&resolved.name)))
    }

    /// One type after inheritance, with the origin of every field and list
    /// item (`agents resource type explain`); also what embedders use for
    /// `is_a`.
    pub fn resolved_type(&self, name: &str) -> Result<ResolvedType, RegistryError> {
        Ok((*self.catalogue()?.find(name)?).clone())
    }

    /// Remove a custom type no subtype, resource or other type depends on.
    pub fn remove_type(&mut self, name: &str) -> Result<(), RegistryError> {
        self.store.write(|w| {
            let catalogue = Catalogue::load(w)?;
            let resolved = catalogue.find(name)?;
            let name = resolved.name.clone();
            if resolved.built_in {
                return Err(RegistryError::BuiltinType {
                    name,
                    action: "removed",
                });
            }
            let in_use = |reason: String| RegistryError::TypeInUse {
                name: name.clone(),
                reason,
            };
            let subtypes = catalogue.direct_subtypes(&name);
            if !subtypes.is_empty() {
                return Err(in_use(format!(
                    "it is the parent type of {} (a parent type cannot be removed while \
                     subtypes exist); remove those first",
                    join_names(&subtypes)
                )));
            }
            let count = w.count_resources_of_type(&name)?;
            if count > 0 {
                return Err(in_use(format!(
                    "{count} resource(s) of this type are registered; remove them first \
                     (agents resource list --type {name})"
                )));
            }
            let referrers: Vec<TypeName> = catalogue
                .rows()
                .filter(|r| r.spec.name != name && names_in(&r.spec).any(|n| n == &name))
                .map(|r| r.spec.name.clone())
                .collect();
            if !referrers.is_empty() {
                return Err(in_use(format!(
                    "{} name it in their parent/child types, discovery rules or \
                     equivalence links; change or remove those first",
                    join_names(&referrers)
                )));
            }
            w.delete_type(&name)?;
            Ok(())
        })
    }
}

/// Every type name a spec refers to, with the field it appears in.
fn referenced(spec: &TypeSpec) -> impl Iterator<Item = (&'static str, &TypeName)> {
    let parents = spec.parent_types.iter().map(|n| ("parent_types", n));
    let children = spec.child_types.iter().map(|n| ("child_types", n));
    let rules = spec
        .auto_discovery
        .iter()
        .flat_map(|a| &a.rules)
        .map(|r| ("auto_discovery.rules", &r.type_name));
    let links = spec
        .equivalence
        .iter()
        .flat_map(|e| &e.links)
        .map(|n| ("equivalence.links", n));
    parents.chain(children).chain(rules).chain(links)
}

fn names_in(spec: &TypeSpec) -> impl Iterator<Item = &TypeName> {
    referenced(spec).map(|(_, n)| n)
}

/// The checks a new or replacing spec must pass in the catalogue `next`
/// that already contains it.
fn check_type(next: &Catalogue, spec: &TypeSpec) -> Result<(), RegistryError> {
    for (field, missing) in referenced(spec) {
        if !next.contains(missing) {
            return Err(RegistryError::UnknownTypeReference {
                type_name: spec.name.clone(),
                field,
                missing: missing.clone(),
            });
        }
    }
    // The type and everything below it must still resolve.
    for name in next.with_subtypes(&spec.name) {
        next.resolve(&name)?;
    }
    Ok(())
}

/// What a replacement must not break in what is already registered.
fn check_replacement(
    w: &Writer<'_>,
    current: &Catalogue,
    next: &Catalogue,
    name: &TypeName,
) -> Result<(), RegistryError> {
    let breaks = |reason: String| RegistryError::ReplaceBreaks {
        name: name.clone(),
        reason,
    };
    let affected = next.with_subtypes(name);
    for type_name in &affected {
        let (before, after) = (current.resolve(type_name)?, next.resolve(type_name)?);
        let count = w.count_resources_of_type(type_name)?;
        if count == 0 {
            continue;
        }
        if before.resource_kind.value != after.resource_kind.value {
            return Err(breaks(format!(
                "it would change the kind of {type_name} from {} to {}, and {count} resource(s) \
                 of that type exist",
                before.resource_kind.value, after.resource_kind.value
            )));
        }
        let newly_required: Vec<String> = after
            .cli_args
            .iter()
            .map(|a| &a.value)
            .filter(|a| a.required && a.default.is_none())
            .filter(|a| before.arg(&a.name).is_none_or(|b| !b.required))
            .map(|a| format!("--{}", a.name))
            .collect();
        if !newly_required.is_empty() {
            return Err(breaks(format!(
                "it would make {} required for {type_name}, and {count} resource(s) of that \
                 type were registered without it",
                newly_required.join(", ")
            )));
        }
    }
    for link in w.links_touching_types(&affected)? {
        let parent = next.resolve(&link.parent_type)?;
        let child = next.resolve(&link.child_type)?;
        if let Err(rule) = dag::check_link_types(&parent, &child) {
            return Err(breaks(format!(
                "the existing link {} ({}) → {} ({}) would no longer be allowed: {rule}",
                link.parent, link.parent_type, link.child, link.child_type
            )));
        }
    }
    Ok(())
}
