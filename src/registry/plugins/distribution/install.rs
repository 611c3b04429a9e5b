//! `agents plugin install REF`: pull, check, add — and record where it
//! came from (see the concern's doc for the order of the checks).

use super::pull::{Pulled, Vouched, pull};
use crate::model::TypeName;
use crate::oci::{Client, Source};
use crate::registry::DistributionError;
use crate::registry::plugins::plugin_add::{AddMode, AddSpec, add_accepted};
use crate::registry::plugins::plugin_check::accept_bytes;
use crate::registry::plugins::plugin_store::PluginView;
use crate::registry::{Registry, RegistryError};
use crate::store::{PluginOrigin, ProvenanceRow};
use serde::Serialize;
use std::path::PathBuf;

/// How [`Registry::install_plugin`] installs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InstallPluginOptions {
    /// `HOST[:PORT]/REPOSITORY:TAG`, `…@sha256:DIGEST`, or
    /// `oci-layout:DIR:TAG`.
    pub reference: String,
    /// Install without a trusted signature (recorded as such).
    pub allow_unsigned: bool,
    /// Replace a module of the same name (and the types it carries) that
    /// is already added with other bytes.
    pub replace: bool,
}

impl InstallPluginOptions {
    pub fn from(reference: impl Into<String>) -> Self {
        Self {
            reference: reference.into(),
            ..Self::default()
        }
    }

    /// Install without a trusted signature (recorded as such).
    pub fn allowing_unsigned(self) -> Self {
        Self {
            allow_unsigned: true,
            ..self
        }
    }

    /// Replace a module of the same name already added with other bytes.
    pub fn replacing(self) -> Self {
        Self {
            replace: true,
            ..self
        }
    }
}

/// What an install added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InstallView {
    pub plugin: PluginView,
    /// Types it carried that were registered, replaced, or already there.
    pub types_added: Vec<TypeName>,
    pub types_replaced: Vec<TypeName>,
    pub types_unchanged: Vec<TypeName>,
}

pub(super) fn install_plugin(
    reg: &mut Registry,
    options: InstallPluginOptions,
) -> Result<InstallView, RegistryError> {
    // (A refusal names at most 200 characters of what was given.)
    let shown: String = options.reference.chars().take(200).collect();
    let source =
        Source::parse(&options.reference).map_err(|e| DistributionError::oci(&shown)(e.into()))?;
    let client = Client::new(reg.oci.clone());
    let mut pulled = pull(&client, &source)?;
    let vouched = pulled.vouch(reg.keys.as_ref(), options.allow_unsigned, None)?;
    let mode = AddMode {
        replace: options.replace,
        ..AddMode::default()
    };
    add_pulled(reg, pulled, &vouched, mode)
}

/// Accept the pulled component and add it with its provenance.
pub(super) fn add_pulled(
    reg: &mut Registry,
    pulled: Pulled,
    vouched: &Vouched,
    mode: AddMode,
) -> Result<InstallView, RegistryError> {
    let shown = PathBuf::from(&pulled.shown);
    let acceptance = accept_bytes(&reg.plugins.runtime, pulled.bytes, &shown, None)?;
    if let Some(signed) = &vouched.module
        && *signed != acceptance.module.as_str()
    {
        return Err(DistributionError::SignatureMismatch {
            reference: pulled.shown,
            vouched: format!("module {signed}"),
            found: format!("module {}", acceptance.module),
        }
        .into());
    }
    let origin = PluginOrigin {
        registry: pulled.registry,
        repository: pulled.repository,
        tag: pulled.tag,
        manifest_digest: pulled.manifest_digest,
        layer_digest: pulled.layer_digest,
        contract: acceptance.accepted.info.contract.as_str().to_owned(),
        signer: vouched.signer.clone(),
    };
    let provenance = ProvenanceRow {
        origin,
        unsigned_allowed: vouched.unsigned_allowed,
        installed_at: reg.now(),
    };
    let spec = AddSpec {
        source: pulled.shown,
        mode,
        provenance: Some(&provenance),
    };
    let (plugin, outcome) = add_accepted(reg, acceptance, &spec)?;
    Ok(InstallView {
        plugin,
        types_added: outcome.added,
        types_replaced: outcome.replaced,
        types_unchanged: outcome.unchanged,
    })
}
