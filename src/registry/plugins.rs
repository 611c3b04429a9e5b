//! The plugin store and handler resolution: `agents plugin add|list|show|remove`,
//! and turning a type's `module:Class` into a loaded component.
//!
//! **Where a module comes from.** Names under
//! `cleveragents.resource.handlers.` are reserved for the components built
//! into the binary; every other module comes from the plugin store — a row
//! in `plugins` (module, version, classes, sha256) and a content-addressed
//! file under `<home>/plugins`, verified against that sha256 on every load.
//! A type may only name a module that exists and a class it exports, so a
//! registered type always resolves; a plugin cannot be removed while a type
//! names it.

use super::catalogue::Catalogue;
use super::{Registry, RegistryError, join_names};
use crate::model::{HandlerRef, ResolvedType, TypeName};
use crate::plugin::{
    ComponentSource, LoadOrigin, LoadedModule, PluginFiles, PluginRuntime, builtin_component,
    is_reserved_module,
};
use crate::store::{PluginRow, Reader};
use serde::Serialize;
use std::path::Path;

/// The plugin runtime and the store's files, present when the registry
/// lives in a home.
#[derive(Debug)]
pub(super) struct Plugins {
    pub runtime: PluginRuntime,
    pub files: PluginFiles,
}

/// One added plugin module, as `agents plugin list|show` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginView {
    pub module: String,
    pub version: String,
    pub sha256: String,
    pub classes: Vec<ClassView>,
    pub size_bytes: i64,
    /// The file it was added from.
    pub source: String,
    pub added_at: String,
    /// The types whose handler lives in this module.
    pub used_by: Vec<TypeName>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassView {
    pub name: String,
    pub description: String,
}

impl PluginView {
    fn new(row: PluginRow, used_by: Vec<TypeName>) -> Self {
        Self {
            classes: row
                .classes
                .into_iter()
                .map(|(name, description)| ClassView { name, description })
                .collect(),
            module: row.module,
            version: row.version,
            sha256: row.sha256,
            size_bytes: row.size_bytes,
            source: row.source,
            added_at: row.added_at,
            used_by,
        }
    }
}

/// A handler ready to call: the loaded component and the class.
#[derive(Debug, Clone)]
pub(super) struct Handler {
    pub module: LoadedModule,
    pub class: String,
}

impl Registry {
    pub(super) fn plugins(&self, what: &'static str) -> Result<&Plugins, RegistryError> {
        self.plugins
            .as_ref()
            .ok_or(RegistryError::NoPluginStore(what))
    }

    /// Add the component at `path` to the plugin store (`agents plugin add`).
    /// It must be a component of our world and version whose `describe()`
    /// answers; it is registered under `module` if given, else under the
    /// module name it reports. An added module is refused unless `replace`;
    /// a replacement must still export every class a type uses.
    pub fn add_plugin(
        &mut self,
        path: &Path,
        module: Option<&str>,
        replace: bool,
    ) -> Result<PluginView, RegistryError> {
        let refused = |source| RegistryError::PluginRefused {
            path: path.to_owned(),
            source,
        };
        let bytes = std::fs::read(path).map_err(|source| RegistryError::ReadFile {
            path: path.to_owned(),
            source,
        })?;
        let plugins = self.plugins("cannot add a plugin")?;
        let info = plugins.runtime.describe(&bytes).map_err(refused)?;
        let module = module.unwrap_or(&info.module).to_owned();
        if let Err(reason) = HandlerRef::from_parts(&module, "Class") {
            return Err(RegistryError::PluginRule(reason));
        }
        if is_reserved_module(&module) {
            return Err(RegistryError::PluginRule(format!(
                "module names under {} are reserved for the built-in handlers; pass \
                 --module NAME to add it under another name",
                crate::plugin::BUILTIN_MODULE_PREFIX
            )));
        }
        // The file goes in first (atomically, named by its hash); if the
        // row is then refused, an unused file is removed again.
        let sha256 = plugins.files.import(&bytes).map_err(refused)?.sha256;
        let row = PluginRow {
            module: module.clone(),
            version: info.version.clone(),
            sha256: sha256.clone(),
            classes: info
                .classes
                .iter()
                .map(|c| (c.name.clone(), c.description.clone()))
                .collect(),
            size_bytes: bytes.len() as i64,
            source: path.display().to_string(),
            added_at: self.now(),
        };
        let written = self.store.write(|w| {
            let old = w.plugin(&module)?;
            if let Some(old) = &old {
                if !replace && old.sha256 != sha256 {
                    return Err(RegistryError::PluginExists {
                        module: module.clone(),
                        version: old.version.clone(),
                        sha256: old.sha256.clone(),
                    });
                }
                check_classes_still_exported(w, &module, &info.class_names())?;
            }
            w.upsert_plugin(&row)?;
            Ok(old)
        });
        match written {
            Ok(Some(old)) if old.sha256 != sha256 => self.forget_file_if_unused(&old.sha256),
            Ok(_) => {}
            Err(e) => {
                self.forget_file_if_unused(&sha256);
                return Err(e);
            }
        }
        self.show_plugin(&module)
    }

    pub fn list_plugins(&self) -> Result<Vec<PluginView>, RegistryError> {
        self.store.read(|r| {
            r.plugins()?
                .into_iter()
                .map(|row| {
                    let used = r.types_using_module(&row.module)?;
                    Ok(PluginView::new(row, used))
                })
                .collect()
        })
    }

    pub fn show_plugin(&self, module: &str) -> Result<PluginView, RegistryError> {
        self.store.read(|r| {
            let row = find_plugin(r, module)?;
            let used = r.types_using_module(module)?;
            Ok(PluginView::new(row, used))
        })
    }

    /// Remove a module no type uses; its file goes when no module shares it.
    pub fn remove_plugin(&mut self, module: &str) -> Result<PluginView, RegistryError> {
        let removed = self.store.write(|w| {
            let row = find_plugin(w, module)?;
            let used = w.types_using_module(module)?;
            if !used.is_empty() {
                return Err(RegistryError::PluginRule(format!(
                    "cannot remove plugin {module}: types {} use it as their handler; remove \
                     them first (agents resource type remove NAME)",
                    join_names(&used)
                )));
            }
            w.delete_plugin(module)?;
            Ok(PluginView::new(row, Vec::new()))
        })?;
        self.forget_file_if_unused(&removed.sha256);
        Ok(removed)
    }

    /// Remove a store file no row names any more (best effort: a leftover
    /// file is harmless, it is content-addressed).
    fn forget_file_if_unused(&self, sha256: &str) {
        let Some(plugins) = &self.plugins else { return };
        let still_used = self
            .store
            .read(|r| r.plugins())
            .map(|rows| rows.iter().any(|p| p.sha256 == sha256))
            .unwrap_or(true);
        if !still_used && let Err(e) = plugins.files.remove(sha256) {
            log::warn!("could not remove unused plugin file {sha256}: {e}");
        }
    }

    /// The loaded handler of `ty`, or `None` when it has none — or names a
    /// built-in module that is not in this build (logged).
    pub(super) fn handler_for(&self, ty: &ResolvedType) -> Result<Option<Handler>, RegistryError> {
        let Some(handler) = &ty.handler else {
            return Ok(None);
        };
        let HandlerRef { module, class } = &handler.value;
        let load_err = |source| RegistryError::PluginLoad {
            module: module.clone(),
            source,
        };
        let loaded = if is_reserved_module(module) {
            let Some(bytes) = builtin_component(module) else {
                log::info!(
                    "built-in handler module {module} is not in this build; {} runs without \
                     its handler (no validation or discovery by it)",
                    ty.name
                );
                return Ok(None);
            };
            let plugins = self.plugins("cannot run a built-in handler")?;
            plugins
                .runtime
                .load(ComponentSource::Embedded { module, bytes })
                .map_err(load_err)?
        } else {
            let plugins = self.plugins("cannot run a plugin handler")?;
            let row = self.store.read(|r| find_plugin(r, module))?;
            let path = plugins.files.path_of(&row.sha256).map_err(load_err)?;
            plugins
                .runtime
                .load(ComponentSource::Stored {
                    module,
                    path: &path,
                    sha256: &row.sha256,
                })
                .map_err(load_err)?
        };
        log::debug!(
            "handler module {module} {}",
            match loaded.origin() {
                LoadOrigin::Compiled => "compiled (and written to the compile cache)",
                LoadOrigin::DiskCache => "loaded from the compile cache",
                LoadOrigin::Memory => "already loaded in this process",
            }
        );
        Ok(Some(Handler {
            module: loaded,
            class: class.clone(),
        }))
    }
}

/// A type may name only a module that exists and a class it exports.
pub(super) fn check_handler(
    r: &Reader<'_>,
    next: &Catalogue,
    ty: &ResolvedType,
) -> Result<(), RegistryError> {
    let Some(handler) = &ty.handler else {
        return Ok(());
    };
    let HandlerRef { module, class } = &handler.value;
    let bad = |reason: String| RegistryError::BadHandler {
        type_name: ty.name.clone(),
        handler: handler.value.to_string(),
        reason,
    };
    let classes: Vec<String> = if is_reserved_module(module) {
        // The built-in modules export the classes the catalogue names.
        let mut classes: Vec<String> = next
            .rows()
            .filter(|row| row.spec.built_in)
            .filter_map(|row| row.spec.handler.as_ref())
            .filter(|h| &h.module == module)
            .map(|h| h.class.clone())
            .collect();
        classes.sort();
        classes.dedup();
        if classes.is_empty() {
            return Err(bad(format!("{module} is not a built-in handler module")));
        }
        classes
    } else {
        match r.plugin(module)? {
            Some(row) => row.classes.into_iter().map(|(name, _)| name).collect(),
            None => {
                let added: Vec<String> = r.plugins()?.into_iter().map(|p| p.module).collect();
                return Err(bad(format!(
                    "module {module} is not in the plugin store (added: {}); add it first with \
                     agents plugin add FILE.wasm",
                    if added.is_empty() {
                        "none".to_owned()
                    } else {
                        added.join(", ")
                    }
                )));
            }
        }
    };
    if !classes.iter().any(|c| c == class) {
        return Err(bad(format!(
            "module {module} has no class {class}; it provides: {}",
            classes.join(", ")
        )));
    }
    Ok(())
}

fn check_classes_still_exported(
    r: &Reader<'_>,
    module: &str,
    classes: &[&str],
) -> Result<(), RegistryError> {
    let catalogue = Catalogue::load(r)?;
    for name in r.types_using_module(module)? {
        let ty = catalogue.resolve(&name)?;
        if let Some(h) = &ty.handler
            && h.value.module == module
            && !classes.contains(&h.value.class.as_str())
        {
            return Err(RegistryError::PluginRule(format!(
                "cannot replace plugin {module}: type {name} uses class {}, which the new \
                 component does not export (it provides: {})",
                h.value.class,
                classes.join(", ")
            )));
        }
    }
    Ok(())
}

fn find_plugin(r: &Reader<'_>, module: &str) -> Result<PluginRow, RegistryError> {
    r.plugin(module)?
        .ok_or_else(|| RegistryError::PluginNotFound {
            module: module.to_owned(),
            hint: "`agents plugin list` shows the added modules".to_owned(),
        })
}
