//! Adding a component to the plugin store: the one write path of a
//! module, whether it came from a file (`agents plugin add`) or from a
//! registry (`agents plugin install`, `update`).
//!
//! **The module, its types and where it came from, together.** The file
//! goes into the content-addressed store first (atomically, named by its
//! hash); then one transaction writes the module's row, its bytes (a
//! shared registry serves them to every machine), the types it carries
//! (`carried_types`) and its provenance — a module added from a file has
//! none, so re-adding from a file forgets an earlier install's. A refusal
//! anywhere leaves the registry as it was, the old component included,
//! and removes the new file again when no row names it.

use crate::plugin::Accepted;
use crate::registry::PluginsError;
use crate::registry::plugins::carried_types::{CarriedOutcome, register_carried};
use crate::registry::plugins::plugin_check::{Acceptance, accept};
use crate::registry::plugins::plugin_store::{AddPluginOptions, PluginView};
use crate::registry::{Registry, RegistryError};
use crate::store::{PluginRow, ProvenanceRow};
use std::path::Path;

/// How [`add_accepted`] writes an accepted component.
#[derive(Debug)]
pub(crate) struct AddSpec<'a> {
    /// What the row's `source` records (the file, or the reference).
    pub source: String,
    pub mode: AddMode,
    pub provenance: Option<&'a ProvenanceRow>,
}

/// What a write may replace, and whether it is kept.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AddMode {
    /// Replace a module of the same name, and differing types it carries.
    pub replace: bool,
    /// Replace carried types even when a registered resource would lack
    /// a field they now require (`plugin update --force`).
    pub force: bool,
    /// Run every check and write in a transaction that is rolled back,
    /// and leave no file (`plugin update --dry-run`).
    pub rehearse: bool,
}

/// The work of [`Registry::add_plugin`].
pub(crate) fn add_plugin(
    reg: &mut Registry,
    path: &Path,
    options: AddPluginOptions,
) -> Result<PluginView, RegistryError> {
    let AddPluginOptions { module, replace } = options;
    reg.check_read_in_roots(path, "reading a plugin file")?;
    let acceptance = accept(&reg.plugins.runtime, path, module.as_ref())?;
    let spec = AddSpec {
        source: path.display().to_string(),
        mode: AddMode {
            replace,
            ..AddMode::default()
        },
        provenance: None,
    };
    let (view, _) = add_accepted(reg, acceptance, &spec)?;
    Ok(view)
}

/// Write an accepted component (see the module doc); answers its view
/// and what happened to the types it carries.
pub(crate) fn add_accepted(
    reg: &mut Registry,
    acceptance: Acceptance,
    spec: &AddSpec<'_>,
) -> Result<(PluginView, CarriedOutcome), RegistryError> {
    let Acceptance {
        bytes,
        module,
        accepted: Accepted { info, .. },
        types: carried,
    } = acceptance;
    let AddMode {
        replace,
        force,
        rehearse,
    } = spec.mode;
    let refused = |source| PluginsError::PluginRefused {
        path: spec.source.clone().into(),
        source,
    };
    let plugins = &reg.plugins;
    let files = plugins.files("cannot add a plugin")?;
    let sha256 = match rehearse {
        true => crate::digest::sha256_hex(&bytes),
        false => files.import(&bytes).map_err(refused)?.sha256,
    };
    let row = PluginRow {
        module: module.clone(),
        version: info.version.clone(),
        sha256: sha256.clone(),
        classes: info.classes.clone(),
        size_bytes: bytes.len() as i64,
        source: spec.source.clone(),
        added_at: reg.now(),
    };
    let now = reg.now();
    let rec = reg.recorder();
    let cache = &reg.types;
    let write = |w: &crate::store::Writer<'_>| {
        let old = w.plugin(&module)?;
        let current = cache.get(w)?;
        if let Some(old) = &old {
            if !replace && old.sha256 != sha256 {
                return Err(PluginsError::PluginExists {
                    module: module.clone(),
                    version: old.version.clone(),
                    sha256: old.sha256.clone(),
                }
                .into());
            }
            for type_name in w.types_using_module(&module)? {
                let ty = current.resolve(&type_name)?;
                if let Some(h) = ty.handler_ref()
                    && h.module == module
                    && !row.exports(&h.class)
                    // A carried replacement of the type may name another class.
                    && !carried.specs.iter().any(|s| s.name == type_name)
                {
                    return Err(PluginsError::ReplacementDropsClass {
                        module: module.clone(),
                        type_name,
                        class: h.class.clone(),
                        provides: row.class_names(),
                    }
                    .into());
                }
            }
        }
        w.upsert_plugin(&row)?;
        // The bytes go in the registry too: on a shared registry every
        // machine fetches them from there.
        w.put_plugin_component(&sha256, &bytes)?;
        if let Some(old) = &old {
            w.drop_unused_plugin_component(&old.sha256)?;
        }
        let outcome = register_carried(w, &current, &module, &carried, (replace, force), &now)?;
        w.set_plugin_provenance(&module, spec.provenance)?;
        record_plugin(w, &rec, old.as_ref(), &row, spec.provenance)?;
        record_carried(w, &rec, &module, &outcome)?;
        Ok::<_, RegistryError>((old, outcome))
    };
    if rehearse {
        let (_, outcome) = reg.store.rehearse(write)?;
        return Ok((reg.show_plugin(&module)?, outcome));
    }
    let (old, outcome) = reg
        .store
        .write(write)
        .inspect_err(|_| reg.forget_file_if_unused(&sha256))?;
    if let Some(old) = old
        && old.sha256 != sha256
    {
        reg.forget_file_if_unused(&old.sha256);
    }
    Ok((reg.show_plugin(&module)?, outcome))
}

/// The event of a plugin added or replaced: its version, digest, source
/// and where it was installed from (a replacement: what of those changed;
/// an identical re-add records nothing).
fn record_plugin(
    w: &crate::store::Writer<'_>,
    rec: &crate::registry::recording::Recorder,
    old: Option<&PluginRow>,
    row: &PluginRow,
    provenance: Option<&crate::store::ProvenanceRow>,
) -> Result<(), RegistryError> {
    use crate::registry::recording::{EventOp, diff_documents};
    use serde_json::json;
    let from = provenance.map(|p| &p.origin).map(|o| {
        json!({"registry": o.registry, "repository": o.repository, "tag": o.tag,
               "manifest_digest": o.manifest_digest, "signer": o.signer})
    });
    let facts =
        |r: &PluginRow| json!({"version": r.version, "sha256": r.sha256, "source": r.source});
    let (op, changes) = match old {
        None => (EventOp::PluginAdded, Some(facts(row))),
        Some(old) => (
            EventOp::PluginReplaced,
            diff_documents(&facts(old), &facts(row)),
        ),
    };
    if let Some(mut changes) = changes {
        changes["from"] = json!(from);
        rec.named(w, op, &row.module.to_string(), None, Some(changes))?;
    }
    Ok(())
}

/// The events of the types a plugin brought: each added or replaced one.
fn record_carried(
    w: &crate::store::Writer<'_>,
    rec: &crate::registry::recording::Recorder,
    module: &crate::model::ModuleName,
    outcome: &CarriedOutcome,
) -> Result<(), RegistryError> {
    use crate::registry::recording::EventOp;
    let changes = || Some(serde_json::json!({"source": format!("plugin {module}")}));
    for name in &outcome.added {
        rec.named(w, EventOp::TypeAdded, name.as_str(), None, changes())?;
    }
    for name in &outcome.replaced {
        rec.named(w, EventOp::TypeReplaced, name.as_str(), None, changes())?;
    }
    Ok(())
}
