//! An import's first step, inside its transaction but before any write:
//! set the document beside the registry, item by item, and sort every
//! item into *already here, identical* (left alone), *new* (to add) or a
//! conflict. Every conflict, missing plugin file and missing type is
//! collected, then refused together.

use super::report::{ImportReport, differing, differing_fields};
use crate::model::{ResourceId, TypeName, TypeSpec, resource_label};
use crate::plugin::PluginFiles;
use crate::registry::document::{PluginEntry, RegistryDocument};
use crate::registry::type_set::TypeSet;
use crate::registry::{ImportConflict, MissingPlugin, MissingType, TransferError};
use crate::registry::{Plugins, RegistryError};
use crate::store::{LinkRow, Reader, ResourceRow, SettingRow, TypeRow};
use std::collections::{BTreeMap, BTreeSet};

/// What the document adds, in the order it must be written.
pub(super) struct Plan<'d> {
    /// Plugins to add, with their embedded bytes (if carried).
    pub plugins: Vec<(&'d PluginEntry, Option<&'d [u8]>)>,
    /// Types to add, every parent before its subtypes.
    pub types: Vec<TypeRow>,
    /// The registry's types with the new ones: what the rules consult.
    pub next: TypeSet,
    pub resources: Vec<ResourceRow>,
    pub links: Vec<&'d LinkRow>,
    pub settings: Vec<&'d SettingRow>,
    /// The tallies so far (what is unchanged, what will be added).
    pub report: ImportReport,
}

/// Sort the document's items; refuse with everything that conflicts.
pub(super) fn plan<'d>(
    r: &Reader<'_>,
    current: &TypeSet,
    doc: &'d RegistryDocument,
    specs: &[TypeSpec],
    components: &'d [Option<Vec<u8>>],
    plugins: &Plugins,
) -> Result<Plan<'d>, RegistryError> {
    let mut conflicts: Vec<ImportConflict> = Vec::new();
    let mut report = ImportReport::default();

    let mut new_plugins = Vec::new();
    let mut missing_plugins = Vec::new();
    for (entry, bytes) in doc.plugins.iter().zip(components) {
        match r.plugin(&entry.row.module)? {
            Some(here) if here.sha256 == entry.row.sha256 => report.plugins.unchanged += 1,
            Some(here) => conflicts.push(ImportConflict::Plugin {
                module: entry.row.module.clone(),
                here: here.sha256,
                document: entry.row.sha256.clone(),
            }),
            None => {
                let files = plugins.files("cannot import plugins")?;
                let present = holds(files, entry)? || r.has_plugin_component(&entry.row.sha256)?;
                match (present, bytes) {
                    (false, None) => missing_plugins.push(MissingPlugin {
                        module: entry.row.module.clone(),
                        sha256: entry.row.sha256.clone(),
                    }),
                    (false, Some(_)) => report.plugin_files.push(entry.row.sha256.clone()),
                    (true, _) => {}
                }
                new_plugins.push((entry, bytes.as_deref()));
            }
        }
    }
    report.plugin_files.sort();
    report.plugin_files.dedup();

    let mut new_types = Vec::new();
    for (entry, spec) in doc.types.iter().zip(specs) {
        match current.row(&spec.name) {
            Some(here) if here.spec == *spec => report.types.unchanged += 1,
            Some(here) => conflicts.push(ImportConflict::Type {
                name: spec.name.clone(),
                here_source: here.origin.source.clone(),
            }),
            None => new_types.push(TypeRow {
                spec: spec.clone(),
                origin: entry.origin.clone(),
            }),
        }
    }
    let next = current.with_rows(new_types.iter().cloned());

    let mut new_resources = Vec::new();
    let mut missing_types: BTreeMap<TypeName, usize> = BTreeMap::new();
    for entry in &doc.resources {
        let mut row = entry.clone();
        // A document made before credentials were kept out (or by hand)
        // may hold one: it is removed, never stored (and counted).
        let scrubbed = crate::credentials::scrub_properties(&mut row.properties);
        let label = row.label();
        if let Some(here) = r.resource_by_id(row.id)? {
            if here == row {
                report.resources.unchanged += 1;
            } else {
                conflicts.push(ImportConflict::ResourceChanged {
                    resource: label,
                    fields: differing_fields(&here, &row),
                });
            }
            continue;
        }
        if let Some(name) = &row.name
            && let Some(holder) = r.resource_by_name(name)?
        {
            conflicts.push(ImportConflict::ResourceName {
                name: name.clone(),
                here: holder.id,
                document: row.id,
            });
            continue;
        }
        if !next.contains(&row.type_name) {
            *missing_types.entry(row.type_name.clone()).or_default() += 1;
            continue;
        }
        // A type that does not resolve is refused when it is written.
        if let Ok(ty) = next.resolve(&row.type_name)
            && ty.kind() != row.kind
        {
            conflicts.push(ImportConflict::ResourceKind {
                resource: label,
                type_name: row.type_name.clone(),
                document: row.kind,
                here: ty.kind(),
            });
            continue;
        }
        report.credentials_removed += scrubbed;
        new_resources.push(row);
    }

    let labels = labels(doc);
    let mut new_links = Vec::new();
    for row in &doc.links {
        match r.link_row(row.parent, row.child)? {
            Some(here) if here == *row => report.links.unchanged += 1,
            Some(here) => conflicts.push(ImportConflict::Link {
                parent: labels[&row.parent].clone(),
                child: labels[&row.child].clone(),
                fields: differing([
                    (
                        "auto_discovered",
                        here.auto_discovered == row.auto_discovered,
                    ),
                    ("derived", here.derived == row.derived),
                    ("created_at", here.created_at == row.created_at),
                ]),
            }),
            None => new_links.push(row),
        }
    }

    let mut new_settings = Vec::new();
    for entry in &doc.environment_settings {
        match r.setting(&entry.scope)? {
            Some(here) if here == *entry => report.environment_settings.unchanged += 1,
            Some(_) => conflicts.push(ImportConflict::Setting {
                setting: entry.scope.to_string(),
            }),
            None => new_settings.push(entry),
        }
    }

    // What is new is added.
    report.plugins.added = new_plugins.len();
    report.types.added = new_types.len();
    report.resources.added = new_resources.len();
    report.links.added = new_links.len();
    report.environment_settings.added = new_settings.len();
    if !conflicts.is_empty() {
        return Err(TransferError::ImportConflicts(conflicts).into());
    }
    if !missing_plugins.is_empty() {
        let missing = missing_plugins;
        return Err(TransferError::ImportPluginsMissing { missing }.into());
    }
    if !missing_types.is_empty() {
        let missing = missing_types
            .into_iter()
            .map(|(type_name, resources)| MissingType {
                type_name,
                resources,
            })
            .collect();
        return Err(TransferError::ImportTypesMissing { missing }.into());
    }
    Ok(Plan {
        plugins: new_plugins,
        types: parents_first(new_types),
        next,
        resources: new_resources,
        links: new_links,
        settings: new_settings,
        report,
    })
}

/// Does the plugin store hold `entry`'s file, intact? A file that is
/// there with other bytes is refused (the store's own tamper check).
fn holds(files: &PluginFiles, entry: &PluginEntry) -> Result<bool, RegistryError> {
    let load = RegistryError::plugin_load(&entry.row.module);
    if !files.path_of(&entry.row.sha256).map_err(&load)?.exists() {
        return Ok(false);
    }
    files.read(&entry.row.sha256).map_err(load)?;
    Ok(true)
}

/// How messages name each of the document's resources.
pub(super) fn labels(doc: &RegistryDocument) -> BTreeMap<ResourceId, String> {
    doc.resources
        .iter()
        .map(|r| (r.id, resource_label(r.name.as_ref(), r.id)))
        .collect()
}

/// `rows` ordered so that a type comes after the type it inherits when
/// both are new (`inherits` is a foreign key).
fn parents_first(mut rows: Vec<TypeRow>) -> Vec<TypeRow> {
    let names: BTreeSet<TypeName> = rows.iter().map(|r| r.spec.name.clone()).collect();
    let parent: BTreeMap<TypeName, TypeName> = rows
        .iter()
        .filter_map(|r| {
            let p = r.spec.inherits.clone()?;
            names.contains(&p).then(|| (r.spec.name.clone(), p))
        })
        .collect();
    // Depth among the new types; a cycle (refused later) stops the walk.
    let depth = |name: &TypeName| {
        let mut at = name;
        let mut n = 0;
        while let Some(p) = parent.get(at)
            && n <= names.len()
        {
            at = p;
            n += 1;
        }
        n
    };
    rows.sort_by_cached_key(|r| (depth(&r.spec.name), r.spec.name.clone()));
    rows
}
