//! `agents plugin update [MODULE]`: the newest semver tag of each
//! installed plugin's repository, what it changes (version, contract,
//! types added, removed, changed), and the update itself — checked as an
//! install is, and refused when a changed type would leave a registered
//! resource without a field it requires, unless forced. A dry run runs
//! every check and the write in a transaction it rolls back.

use super::install::add_pulled;
use super::pull::pull;
use crate::model::{ModuleName, TypeName};
use crate::oci::{Client, LAYOUT_PREFIX, Reference, Source};
use crate::registry::DistributionError;
use crate::registry::plugins::carried_types;
use crate::registry::plugins::plugin_add::AddMode;
use crate::registry::plugins::plugin_check::accept_bytes;
use crate::registry::{Registry, RegistryError};
use crate::store::PluginOrigin;
use serde::Serialize;
use std::path::PathBuf;

/// How [`Registry::update_plugins`] updates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpdatePluginsOptions {
    /// Only this module (default: every installed one).
    pub module: Option<ModuleName>,
    /// Replace types even when registered resources would lack a field
    /// the new ones require.
    pub force: bool,
    /// Show what would change; change nothing.
    pub dry_run: bool,
    /// Update to a version without a trusted signature (recorded).
    pub allow_unsigned: bool,
}

/// One type's change in an update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeChange {
    pub name: TypeName,
    /// `added`, `removed` (no longer carried; it stays registered) or
    /// `changed`.
    pub change: &'static str,
}

/// What an update of one module found and did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpdateView {
    pub module: ModuleName,
    pub from_version: String,
    /// The newer version found (none: up to date).
    pub to_version: Option<String>,
    /// `HOST[:PORT]/REPOSITORY:TAG` of the newer version.
    pub reference: Option<String>,
    pub from_contract: String,
    pub to_contract: Option<String>,
    pub types: Vec<TypeChange>,
    /// Whether it was updated (false: up to date, or a dry run).
    pub updated: bool,
    pub dry_run: bool,
}

pub(super) fn update_plugins(
    reg: &mut Registry,
    options: UpdatePluginsOptions,
) -> Result<Vec<UpdateView>, RegistryError> {
    let (plugins, provenances) = reg
        .store
        .read(|r| Ok::<_, RegistryError>((r.plugins()?, r.plugin_provenances()?)))?;
    if let Some(module) = &options.module
        && !provenances.iter().any(|(m, _)| m == module)
    {
        return Err(DistributionError::NotInstalled {
            module: module.clone(),
        }
        .into());
    }
    let client = Client::new(reg.oci.clone());
    provenances
        .iter()
        .map(|(module, provenance)| (module, &provenance.origin))
        .filter(|(module, p)| {
            options.module.as_ref().is_none_or(|m| m == *module)
                && !p.registry.starts_with(LAYOUT_PREFIX)
        })
        .map(|(module, p)| {
            let row = plugins.iter().find(|row| row.module == *module);
            let installed = row.map(|row| row.version.as_str());
            update_one(reg, &client, module, p, installed, &options)
        })
        .collect()
}

/// Update `module`, installed from `p` (its row's version: `installed`).
fn update_one(
    reg: &mut Registry,
    client: &Client,
    module: &ModuleName,
    p: &PluginOrigin,
    installed: Option<&str>,
    options: &UpdatePluginsOptions,
) -> Result<UpdateView, RegistryError> {
    // The tag it was installed by, when that is a version (a plugin's own
    // version may lag its tags), else its own.
    let from_version = p
        .tag
        .clone()
        .filter(|t| parse_version(t).is_some())
        .or_else(|| installed.map(str::to_owned))
        .unwrap_or_default();
    let text = format!("{}/{}", p.registry, p.repository);
    let base = Reference::parse(&text).map_err(|e| DistributionError::oci(&text)(e.into()))?;
    let shown = base.to_string();
    let tags = client
        .session(&base, false)
        .tags()
        .map_err(DistributionError::oci(&shown))?;
    let current = parse_version(&from_version);
    let newest = tags
        .iter()
        .filter_map(|t| parse_version(t).map(|v| (v, t)))
        .filter(|(v, _)| current.as_ref().is_none_or(|c| v > c))
        .max_by(|a, b| a.0.cmp(&b.0));
    let mut view = UpdateView {
        module: module.clone(),
        from_version,
        to_version: None,
        reference: None,
        from_contract: p.contract.clone(),
        to_contract: None,
        types: Vec::new(),
        updated: false,
        dry_run: options.dry_run,
    };
    let Some((version, tag)) = newest else {
        return Ok(view);
    };
    let reference = base.with_tag(tag);
    let mut pulled = pull(client, &Source::Registry(reference.clone()))?;
    let vouched = pulled.vouch(reg.keys.as_ref(), options.allow_unsigned, None)?;
    // What changes, from the component's own carried types.
    let shown = PathBuf::from(&pulled.shown);
    let preview = accept_bytes(&reg.plugins.runtime, pulled.bytes.clone(), &shown, None)?;
    let (old_names, rows) = reg
        .store
        .read(|r| Ok::<_, RegistryError>((carried_types::carried_by(r, module)?, r.types()?)))?;
    for spec in &preview.types.specs {
        let change = match rows.iter().find(|row| row.spec.name == spec.name) {
            None => "added",
            Some(row) if row.spec != *spec => "changed",
            Some(_) => continue,
        };
        view.types.push(TypeChange {
            name: spec.name.clone(),
            change,
        });
    }
    for name in old_names {
        if !preview.types.specs.iter().any(|s| s.name == name) {
            view.types.push(TypeChange {
                name,
                change: "removed",
            });
        }
    }
    view.to_version = Some(version.to_string());
    view.reference = Some(reference.to_string());
    view.to_contract = Some(preview.accepted.info.contract.as_str().to_owned());
    let mode = AddMode {
        replace: true,
        force: options.force,
        rehearse: options.dry_run,
    };
    add_pulled(reg, pulled, &vouched, mode)?;
    view.updated = !options.dry_run;
    Ok(view)
}

/// A tag or version as semver (`1.2.0`, `v1.2.0`).
fn parse_version(text: &str) -> Option<semver::Version> {
    semver::Version::parse(text.strip_prefix('v').unwrap_or(text)).ok()
}
