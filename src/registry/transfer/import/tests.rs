//! Export and import between in-memory registries: the round trip, the
//! no-op, and every refusal leaving the target as it was. (Plugins need
//! a plugin store, so they are the integration suite's.)

use super::*;
use crate::model::ResourceId;
use crate::registry::document::{DocumentError, RegistryDocument};
use crate::registry::tests::{dir_request, key};
use crate::registry::{ExportOptions, ImportOptions, RegisterTypeOptions, Registry, RegistryError};
use crate::registry::{ImportConflict, LinksError, ResourcesError, TransferError};
use std::path::Path;

const PKG: &str = include_str!("../../../../tests/data/python-package.yaml");

fn add_dir(r: &mut Registry, name: &str, dir: &Path) {
    let request = dir_request(name, dir);
    r.register_resource(request, Default::default()).unwrap();
}

/// A registry with the custom type, a checkout-less package tree: two
/// directories (with what discovery found in them) and a link.
fn source(dir: &Path) -> Registry {
    std::fs::create_dir_all(dir.join("a/inner")).unwrap();
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("a/file.txt"), "x").unwrap();
    let mut r = Registry::open_in_memory().unwrap();
    r.register_type_text(PKG, "pkg.yaml", RegisterTypeOptions::default())
        .unwrap();
    add_dir(&mut r, "local/a", &dir.join("a"));
    add_dir(&mut r, "local/b", &dir.join("b"));
    r.link_child(&key("local/a"), &key("local/b")).unwrap();
    r
}

/// The document of [`source`] (made in a new temporary directory, kept
/// while the document is used).
fn source_document() -> (tempfile::TempDir, RegistryDocument) {
    let dir = tempfile::tempdir().unwrap();
    let doc = exported(&source(dir.path()));
    (dir, doc)
}

/// Import `doc` into `target` (default options).
fn import(target: &mut Registry, doc: &RegistryDocument) -> Result<ImportReport, RegistryError> {
    target.import_document(doc, ImportOptions::default())
}

/// Import `doc` into a fresh registry (default options).
fn import_fresh(doc: &RegistryDocument) -> (Registry, Result<ImportReport, RegistryError>) {
    let mut target = Registry::open_in_memory().unwrap();
    let result = import(&mut target, doc);
    (target, result)
}

/// A hand-made link from `parent` to `child`.
fn link(parent: ResourceId, child: ResourceId) -> crate::store::LinkRow {
    crate::store::LinkRow {
        parent,
        child,
        auto_discovered: false,
        derived: false,
        created_at: "2026-01-01T00:00:00.000Z".into(),
        linked_by: None,
    }
}

/// The id of the resource of `type_name` named `name` in `doc`.
fn id_of(doc: &RegistryDocument, type_name: &str, name: &str) -> ResourceId {
    doc.resources
        .iter()
        .find(|r| {
            r.type_name.as_str() == type_name && r.name.as_ref().is_some_and(|n| n.as_str() == name)
        })
        .unwrap_or_else(|| panic!("no {type_name} {name}"))
        .id
}

/// The item an import refused, and the refusal of its own verb.
#[track_caller]
fn refusal(err: &RegistryError) -> (&str, &RegistryError) {
    let RegistryError::Transfer(TransferError::ImportRefused { item, source }) = err else {
        panic!("{err}")
    };
    (item, source)
}

/// `err`'s message says `fragment`.
#[track_caller]
fn says(err: &impl std::fmt::Display, fragment: &str) {
    let message = err.to_string();
    assert!(message.contains(fragment), "{fragment:?} not in: {message}");
}

/// A document with its export time blanked, for comparing.
fn exported(r: &Registry) -> RegistryDocument {
    let mut doc = r.export_document(ExportOptions::default()).unwrap();
    doc.header.exported_at = String::new();
    doc
}

#[test]
fn an_export_imports_into_a_fresh_registry_and_exports_again_identically() {
    let (_dir, doc) = source_document();
    assert_eq!(doc.types.len(), 1, "built-in types are not exported");
    assert!(doc.resources.len() > 2, "discovered children come along");
    let (target, report) = import_fresh(&doc);
    let report = report.unwrap();
    assert_eq!(report.types.added, 1);
    assert_eq!(report.resources.added, doc.resources.len());
    assert_eq!(report.links.added, doc.links.len());
    assert!(report.same_builtin_catalogue);
    assert_eq!(exported(&target), doc);
}

#[test]
fn importing_the_same_document_twice_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = source(dir.path());
    let doc = exported(&r);
    let report = import(&mut r, &doc).unwrap();
    assert!(report.is_no_op(), "{report:?}");
    assert_eq!(report.resources.unchanged, doc.resources.len());
    assert_eq!(exported(&r), doc);
}

#[test]
fn a_dry_run_reports_what_it_would_add_and_writes_nothing() {
    let (_dir, doc) = source_document();
    let mut target = Registry::open_in_memory().unwrap();
    let before = exported(&target);
    let report = target
        .import_document(&doc, ImportOptions::dry_run())
        .unwrap();
    assert!(report.dry_run);
    assert_eq!(report.resources.added, doc.resources.len());
    assert_eq!(exported(&target), before);
}

#[test]
fn every_name_taken_by_another_resource_is_listed_and_nothing_is_written() {
    let (dir, doc) = source_document();
    let mut target = Registry::open_in_memory().unwrap();
    add_dir(&mut target, "local/a", &dir.path().join("b"));
    add_dir(&mut target, "local/b", &dir.path().join("b"));
    let before = exported(&target);
    let err = import(&mut target, &doc).unwrap_err();
    let RegistryError::Transfer(TransferError::ImportConflicts(conflicts)) = &err else {
        panic!("{err}")
    };
    let names: Vec<String> = conflicts
        .iter()
        .filter_map(|c| match c {
            ImportConflict::ResourceName { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["local/a", "local/b"], "{err}");
    says(&err, "nothing was imported");
    assert_eq!(exported(&target), before);
}

#[test]
fn a_type_registered_here_with_another_spec_is_a_conflict() {
    let (_dir, doc) = source_document();
    let mut target = Registry::open_in_memory().unwrap();
    let other = PKG.replace("A Python package directory", "Something else");
    target
        .register_type_text(&other, "other.yaml", RegisterTypeOptions::default())
        .unwrap();
    let err = import(&mut target, &doc).unwrap_err();
    says(
        &err,
        "type myteam/python-package is registered here with another spec (from other.yaml)",
    );
}

#[test]
fn a_changed_resource_is_a_conflict_naming_the_fields() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = source(dir.path());
    let mut doc = exported(&r);
    doc.resources[0].description = Some("edited".into());
    doc.resources[0].read_only = true;
    let err = import(&mut r, &doc).unwrap_err();
    says(
        &err,
        "resource local/a is here with other description, read_only",
    );
}

#[test]
fn a_link_that_would_close_a_cycle_is_refused_and_nothing_is_written() {
    let (_dir, doc) = source_document();
    // The same resources, with local/b → local/a instead.
    let a = id_of(&doc, "fs-directory", "local/a");
    let b = id_of(&doc, "fs-directory", "local/b");
    let mut reversed = doc.clone();
    reversed.links = vec![link(b, a)];
    let (mut target, result) = import_fresh(&reversed);
    result.unwrap();
    let before = exported(&target);
    let err = import(&mut target, &doc).unwrap_err();
    let (item, source) = refusal(&err);
    assert_eq!(item, "the document's links");
    says(&err, "cannot link local/a → local/b");
    let RegistryError::Links(LinksError::Cycle { .. }) = source else {
        panic!("{err}")
    };
    says(&err, "would close a cycle");
    assert_eq!(exported(&target), before);
}

#[test]
fn a_resource_of_a_type_nobody_has_is_refused_naming_the_type() {
    let (_dir, mut doc) = source_document();
    doc.types.clear();
    doc.resources[0].type_name = "acme/gone".parse().unwrap();
    doc.resources[1].type_name = "acme/gone".parse().unwrap();
    let err = import_fresh(&doc).1.unwrap_err();
    let RegistryError::Transfer(TransferError::ImportTypesMissing { .. }) = &err else {
        panic!("{err}")
    };
    says(&err, "acme/gone (2 resource(s))");
}

#[test]
fn a_document_that_contradicts_itself_is_refused_before_the_registry_is_read() {
    let (_dir, mut doc) = source_document();
    doc.header.version = 7;
    let err = import_fresh(&doc).1.unwrap_err();
    let RegistryError::Document(DocumentError::TooNew { found: 7 }) = &err else {
        panic!("{err}")
    };
}

#[test]
fn info_counts_what_the_registry_holds() {
    let dir = tempfile::tempdir().unwrap();
    let r = source(dir.path());
    let info = r.info().unwrap();
    assert_eq!(info.backend, "sqlite");
    assert_eq!(info.database, None);
    assert_eq!(info.schema_version, crate::store::SCHEMA_VERSION);
    assert_eq!(info.counts.custom_types, 1);
    assert!(info.counts.builtin_types > 10);
    let doc = r.export_document(ExportOptions::default()).unwrap();
    assert_eq!(info.counts.resources as usize, doc.resources.len());
    assert_eq!(info.counts.links as usize, doc.links.len());
    assert_eq!(info.counts.plugins, 0);
}

#[test]
fn a_sandbox_strategy_the_type_cannot_use_is_refused_naming_the_resource() {
    let (_dir, mut doc) = source_document();
    doc.resources[0].sandbox_strategy = Some(crate::model::SandboxStrategy::GitWorktree);
    let err = import_fresh(&doc).1.unwrap_err();
    let (item, source) = refusal(&err);
    assert_eq!(item, "resource local/a");
    let RegistryError::Resources(ResourcesError::BadSandboxStrategy { .. }) = source else {
        panic!("{err}")
    };
}

#[test]
fn a_link_the_types_do_not_allow_is_refused_naming_the_rule() {
    let (_dir, mut doc) = source_document();
    let file = id_of(&doc, "fs-file", "local/a/file.txt");
    doc.links
        .push(link(file, id_of(&doc, "fs-directory", "local/b")));
    let (target, result) = import_fresh(&doc);
    let err = result.unwrap_err();
    let RegistryError::Links(LinksError::IncompatibleLink { .. }) = refusal(&err).1 else {
        panic!("{err}")
    };
    says(&err, "the types do not allow it");
    assert_eq!(exported(&target).resources, Vec::new());
}
