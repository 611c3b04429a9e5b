//! The plugin lock file (`agents plugin lock`, `install --locked`): the
//! one home of its format and of what "exactly those bytes" means.
//!
//! A lock is a team file, committed beside the code: for each installed
//! plugin its module, version, reference, the manifest and layer digests
//! it was installed by, the contract version and the signer's key id.
//! Installing from it pulls every plugin first — by its tag when it has
//! one, so a tag re-pushed with other bytes is *noticed*, not followed —
//! and refuses, naming the plugin, when a manifest, a layer or a signer
//! differs; only when every plugin matched is any of them added.

use super::install::{InstallView, add_pulled};
use super::pull::pull;
use crate::model::ModuleName;
use crate::oci::{Client, LAYOUT_PREFIX, Reference, Source};
use crate::registry::DistributionError;
use crate::registry::plugins::plugin_add::AddMode;
use crate::registry::plugins::plugin_store::shown;
use crate::registry::{Registry, RegistryError};
use crate::store::PluginOrigin;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The lock file's `format` value.
pub const LOCK_FORMAT: &str = "agents-plugin-lock";

/// A lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    pub format: String,
    pub version: u32,
    pub plugins: Vec<LockEntry>,
    /// Modules added from files (not installed), so not in the lock.
    #[serde(skip)]
    pub not_installed: Vec<ModuleName>,
}

/// One pinned plugin: its installed provenance's origin (not when or
/// how this machine installed it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockEntry {
    pub module: ModuleName,
    pub version: String,
    /// `HOST[:PORT]/REPOSITORY:TAG` (or by digest).
    pub reference: String,
    #[serde(flatten)]
    pub origin: PluginOrigin,
}

/// How [`Registry::install_locked`] installs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LockedInstallOptions {
    /// Install plugins the lock records as unsigned (recorded again).
    pub allow_unsigned: bool,
}

impl LockFile {
    /// Parse a lock file's text (`path` names it in refusals).
    pub fn parse(text: &str, path: &std::path::Path) -> Result<Self, RegistryError> {
        let refused = |why| DistributionError::LockFile {
            path: path.to_owned(),
            why,
        };
        let lock: Self = serde_json::from_str(text)
            .map_err(|e| refused(format!("not a plugin lock file: {e}")))?;
        if lock.format != LOCK_FORMAT || lock.version != 1 {
            let (format, version) = (&lock.format, lock.version);
            let why = format!("format {format:?} version {version} is not {LOCK_FORMAT} version 1");
            return Err(refused(why).into());
        }
        Ok(lock)
    }
}

pub(super) fn lock_plugins(reg: &Registry) -> Result<LockFile, RegistryError> {
    let (plugins, provenances) = reg
        .store
        .read(|r| Ok::<_, RegistryError>((r.plugins()?, r.plugin_provenances()?)))?;
    let mut entries = Vec::new();
    let mut not_installed = Vec::new();
    for plugin in plugins {
        let Some((_, p)) = provenances.iter().find(|(m, _)| *m == plugin.module) else {
            not_installed.push(plugin.module);
            continue;
        };
        entries.push(LockEntry {
            reference: shown(&p.origin),
            module: plugin.module,
            version: plugin.version,
            origin: p.origin.clone(),
        });
    }
    Ok(LockFile {
        format: LOCK_FORMAT.to_owned(),
        version: 1,
        plugins: entries,
        not_installed,
    })
}

/// Where a lock entry is pulled from: its tag when it has one.
fn source_of(entry: &LockEntry) -> Result<Source, RegistryError> {
    let pinned = &entry.origin;
    if let Some(dir) = pinned.registry.strip_prefix(LAYOUT_PREFIX) {
        return Ok(Source::Layout {
            dir: PathBuf::from(dir),
            tag: pinned.tag.clone(),
            digest: pinned.tag.is_none().then(|| pinned.manifest_digest.clone()),
        });
    }
    let text = format!("{}/{}", pinned.registry, pinned.repository);
    let base = Reference::parse(&text).map_err(|e| differs(entry, &e.to_string()))?;
    Ok(Source::Registry(match &pinned.tag {
        Some(tag) => base.with_tag(tag),
        None => Reference {
            digest: Some(pinned.manifest_digest.clone()),
            ..base
        },
    }))
}

fn differs(entry: &LockEntry, why: &str) -> RegistryError {
    DistributionError::LockDiffers {
        module: entry.module.clone(),
        why: why.to_owned(),
    }
    .into()
}

pub(super) fn install_locked(
    reg: &mut Registry,
    lock: &LockFile,
    options: LockedInstallOptions,
) -> Result<Vec<InstallView>, RegistryError> {
    let client = Client::new(reg.oci.clone());
    let mut checked = Vec::new();
    for entry in &lock.plugins {
        let pinned = &entry.origin;
        let mut pulled = pull(&client, &source_of(entry)?)?;
        if pulled.manifest_digest != pinned.manifest_digest {
            return Err(differs(
                entry,
                &format!(
                    "{} now resolves to manifest {}, the lock pins {}",
                    entry.reference, pulled.manifest_digest, pinned.manifest_digest
                ),
            ));
        }
        if pulled.layer_digest != pinned.layer_digest {
            return Err(differs(
                entry,
                &format!(
                    "its layer is {}, the lock pins {}",
                    pulled.layer_digest, pinned.layer_digest
                ),
            ));
        }
        let allow = options.allow_unsigned && pinned.signer.is_none();
        let vouched = pulled.vouch(reg.keys.as_ref(), allow, pinned.signer.as_deref())?;
        checked.push((pulled, vouched));
    }
    let mode = AddMode {
        replace: true,
        ..AddMode::default()
    };
    checked
        .into_iter()
        .map(|(pulled, vouched)| add_pulled(reg, pulled, &vouched, mode))
        .collect()
}
