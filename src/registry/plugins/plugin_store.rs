//! The plugin store: `agents plugin add|list|show|remove`.
//!
//! **Where a module comes from.** Names under
//! [`BUILTIN_MODULE_PREFIX`](crate::model::BUILTIN_MODULE_PREFIX) are
//! reserved for the components built into the binary; every other module
//! comes from the plugin store — a row in `plugins` (module, version,
//! classes, sha256) and a content-addressed file under `<home>/plugins`,
//! verified against that sha256 on every load. A type may only name a
//! module that exists and a class it exports (`types::check_handler`),
//! so a registered type always resolves; a plugin cannot be removed while
//! a type names it.

use crate::model::{ModuleName, TypeName};
use crate::plugin::{
    ClassInfo, ComponentSource, PluginError, PluginFiles, builtin_component, builtin_components,
};
use crate::registry::PluginsError;
use crate::registry::{Registry, RegistryError};
use crate::store::{PluginOrigin, PluginRow, ProvenanceRow, Reader};
use serde::Serialize;
use std::path::PathBuf;

/// One plugin module — added to the store, or built into the binary — as
/// `agents plugin list|show` prints it. It repeats the store row's fields
/// (`PluginRow`) rather than flattening the row in: `built_in` comes
/// between `module` and `version` in what it has always printed, and a
/// built-in module has no row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PluginView {
    pub module: ModuleName,
    /// Built into the binary (not in the plugin store).
    pub built_in: bool,
    pub version: String,
    pub sha256: String,
    pub classes: Vec<ClassInfo>,
    pub size_bytes: i64,
    /// The file it was added from (`built-in` for a built-in module).
    pub source: String,
    pub added_at: String,
    /// The types whose handler lives in this module.
    pub used_by: Vec<TypeName>,
    /// The types it carried and registered with it (`plugin add`).
    pub types: Vec<TypeName>,
    /// Where it was installed from (`plugin install`); none for a module
    /// added from a file or built in.
    pub provenance: Option<ProvenanceView>,
}

/// Where an installed plugin came from, as `plugin show` and `plugin
/// list` say it: the recorded provenance and how it is referred to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProvenanceView {
    /// `HOST[:PORT]/REPOSITORY:TAG` (or `@sha256:…` when installed by
    /// digest; `oci-layout:DIR:TAG` from a layout directory).
    pub reference: String,
    #[serde(flatten)]
    pub recorded: ProvenanceRow,
}

impl From<ProvenanceRow> for ProvenanceView {
    fn from(recorded: ProvenanceRow) -> Self {
        Self {
            reference: shown(&recorded.origin),
            recorded,
        }
    }
}

/// How `origin` is referred to: `HOST[:PORT]/REPOSITORY:TAG` (see
/// [`ProvenanceView::reference`]).
pub(crate) fn shown(o: &PluginOrigin) -> String {
    crate::oci::Source::shown(
        &o.registry,
        &o.repository,
        o.tag.as_deref(),
        &o.manifest_digest,
    )
}

impl PluginView {
    fn new(
        row: PluginRow,
        used_by: Vec<TypeName>,
        types: Vec<TypeName>,
        provenance: Option<ProvenanceRow>,
    ) -> Self {
        Self {
            classes: row.classes,
            module: row.module,
            built_in: false,
            version: row.version,
            sha256: row.sha256,
            size_bytes: row.size_bytes,
            source: row.source,
            added_at: row.added_at,
            used_by,
            types,
            provenance: provenance.map(Into::into),
        }
    }
}

/// How [`Registry::add_plugin`] adds a component.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AddPluginOptions {
    /// The module name to register it under (default: the one its
    /// `describe()` reports).
    pub module: Option<ModuleName>,
    /// Replace a module of the same name already added (otherwise a
    /// different component under that name is refused).
    pub replace: bool,
}

impl AddPluginOptions {
    /// Replace a module of the same name.
    pub fn replacing() -> Self {
        Self {
            replace: true,
            ..Self::default()
        }
    }

    /// Register it under `module`.
    pub fn named(self, module: ModuleName) -> Self {
        Self {
            module: Some(module),
            ..self
        }
    }
}

impl Registry {
    /// A built-in module as its component describes itself.
    fn builtin_view(
        &self,
        module: &ModuleName,
        bytes: &'static [u8],
    ) -> Result<PluginView, RegistryError> {
        let loaded = self
            .plugins
            .runtime
            .load(ComponentSource::Embedded { module, bytes })
            .map_err(RegistryError::plugin_load(module))?;
        let info = loaded.info();
        let used_by = self.store.read(|r| r.types_using_module(module))?;
        let row = PluginRow {
            module: module.clone(),
            version: info.version.clone(),
            sha256: loaded.sha256().to_owned(),
            classes: info.classes.clone(),
            size_bytes: bytes.len() as i64,
            source: "built-in".to_owned(),
            added_at: String::new(),
        };
        Ok(PluginView {
            built_in: true,
            ..PluginView::new(row, used_by, Vec::new(), None)
        })
    }

    /// This machine's file of `row`'s component: the local copy, fetched
    /// from the registry once when missing (a plugin added on another
    /// machine) — hashed before it is written, and checked again by the
    /// store on every load like any plugin file.
    pub(crate) fn local_component(
        &self,
        files: &PluginFiles,
        row: &PluginRow,
    ) -> Result<PathBuf, RegistryError> {
        let load_err = RegistryError::plugin_load(&row.module);
        let path = files.path_of(&row.sha256).map_err(&load_err)?;
        if path.exists() {
            return Ok(path);
        }
        let bytes = self.store.read(|r| stored_component(r, row))?;
        log::info!(
            "plugin {} fetched from the registry into {}",
            row.module,
            path.display()
        );
        files.import(&bytes).map_err(load_err)?;
        Ok(path)
    }

    /// Remove a store file no row names any more, and its compiled forms
    /// (best effort: a leftover file is harmless, it is content-addressed).
    pub(crate) fn forget_file_if_unused(&self, sha256: &str) {
        let plugins = &self.plugins;
        let still_used = self
            .store
            .read(|r| r.plugins())
            .map(|rows| rows.iter().any(|p| p.sha256 == sha256))
            .unwrap_or(true);
        if still_used {
            return;
        }
        plugins.runtime.forget_compiled(sha256);
        if let Some(files) = &plugins.files
            && let Err(e) = files.remove(sha256)
        {
            log::warn!("could not remove unused plugin file {sha256}: {e}");
        }
    }
}

fn view(r: &Reader<'_>, row: PluginRow) -> Result<PluginView, RegistryError> {
    let used = r.types_using_module(&row.module)?;
    let carried = crate::registry::plugins::carried_types::carried_by(r, &row.module)?;
    let provenance = r.plugin_provenance(&row.module)?;
    Ok(PluginView::new(row, used, carried, provenance))
}

/// `row`'s component as the registry holds it, refused when missing or
/// not what `row` says ([`verify_component`]).
pub(crate) fn stored_component(r: &Reader<'_>, row: &PluginRow) -> Result<Vec<u8>, RegistryError> {
    let bytes = r
        .plugin_component(&row.sha256)?
        .ok_or_else(|| PluginsError::ComponentMissing {
            module: row.module.clone(),
            sha256: row.sha256.clone(),
        })?;
    verify_component(row, &bytes)?;
    Ok(bytes)
}

/// Check that component bytes read from the registry are what `row` says
/// (the registry is shared: its bytes are trusted no more than a file's).
fn verify_component(row: &PluginRow, bytes: &[u8]) -> Result<(), RegistryError> {
    let actual = crate::digest::sha256_hex(bytes);
    if actual == row.sha256 {
        return Ok(());
    }
    Err(RegistryError::PluginLoad {
        module: row.module.clone(),
        source: PluginError::Tampered {
            path: PathBuf::from(format!("<registry>/plugin_components/{}", row.sha256)),
            expected: row.sha256.clone(),
            actual,
        },
    })
}

/// The work of [`Registry::list_plugins`].
pub(crate) fn list_plugins(reg: &Registry) -> Result<Vec<PluginView>, RegistryError> {
    let mut views = Vec::new();
    for (module, bytes) in builtin_components() {
        views.push(reg.builtin_view(&module, bytes)?);
    }
    let stored = reg.store.read(|r| {
        r.plugins()?
            .into_iter()
            .map(|row| view(r, row))
            .collect::<Result<Vec<_>, RegistryError>>()
    })?;
    views.extend(stored);
    Ok(views)
}

/// The work of [`Registry::show_plugin`].
pub(crate) fn show_plugin(
    reg: &Registry,
    module: &ModuleName,
) -> Result<PluginView, RegistryError> {
    if let Some(bytes) = builtin_component(module) {
        return reg.builtin_view(module, bytes);
    }
    reg.store.read(|r| view(r, find_plugin(r, module)?))
}

/// The work of [`Registry::remove_plugin`].
pub(crate) fn remove_plugin(
    reg: &mut Registry,
    module: &ModuleName,
) -> Result<PluginView, RegistryError> {
    let rec = reg.recorder();
    let removed = reg.store.write(|w| {
        let row = find_plugin(w, module)?;
        let types = w.types_using_module(module)?;
        if !types.is_empty() {
            return Err(PluginsError::PluginInUse {
                module: module.clone(),
                types,
            }
            .into());
        }
        w.delete_plugin(module)?;
        w.drop_unused_plugin_component(&row.sha256)?;
        let changes = serde_json::json!({"version": row.version, "sha256": row.sha256});
        let op = crate::registry::recording::EventOp::PluginRemoved;
        rec.named(w, op, &row.module.to_string(), None, Some(changes))?;
        Ok::<_, RegistryError>(PluginView::new(row, Vec::new(), Vec::new(), None))
    })?;
    reg.forget_file_if_unused(&removed.sha256);
    Ok(removed)
}

/// The plugin-store row of `module`.
pub(crate) fn find_plugin(r: &Reader<'_>, module: &ModuleName) -> Result<PluginRow, RegistryError> {
    r.plugin(module)?.ok_or_else(|| {
        PluginsError::PluginNotFound {
            module: module.clone(),
        }
        .into()
    })
}
