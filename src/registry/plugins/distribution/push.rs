//! `agents plugin push FILE REF`: a component published in the CNCF Wasm
//! layout, checked first as `plugin add` checks it (so nothing a teammate
//! could not install is published), tagged with its version unless the
//! reference names a tag, and signed on request.

use crate::model::TypeName;
use crate::oci::artifact::{self, ComponentWorld, PluginMeta};
use crate::oci::{Client, Reference, check_tag};
use crate::registry::DistributionError;
use crate::registry::plugins::plugin_check::{Acceptance, accept};
use crate::registry::{Registry, RegistryError};
use crate::signing::Statement;
use serde::Serialize;
use std::path::Path;

/// How [`Registry::push_plugin`] publishes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushPluginOptions {
    /// `HOST[:PORT]/REPOSITORY[:TAG]` (default tag: the plugin's version).
    pub reference: String,
    /// Sign with this key of the home (`plugin key new`).
    pub sign: Option<String>,
    /// `org.opencontainers.image.source` (where its code lives).
    pub source: Option<String>,
    /// `org.opencontainers.image.description` (default: its classes').
    pub description: Option<String>,
    /// `org.opencontainers.image.authors`.
    pub authors: Option<String>,
}

impl PushPluginOptions {
    pub fn to(reference: impl Into<String>) -> Self {
        Self {
            reference: reference.into(),
            ..Self::default()
        }
    }

    /// Sign with this key of the home (`plugin key new`).
    pub fn signed_with(self, key: impl Into<String>) -> Self {
        Self {
            sign: Some(key.into()),
            ..self
        }
    }
}

/// What a push published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushView {
    /// `HOST[:PORT]/REPOSITORY:TAG`.
    pub reference: String,
    pub module: String,
    pub version: String,
    pub manifest_digest: String,
    pub layer_digest: String,
    pub size_bytes: u64,
    /// The types the component carries.
    pub types: Vec<TypeName>,
    /// The id of the key that signed it.
    pub signed_by: Option<String>,
}

pub(super) fn push_plugin(
    reg: &Registry,
    file: &Path,
    options: PushPluginOptions,
) -> Result<PushView, RegistryError> {
    let oci = DistributionError::oci;
    let parsed =
        Reference::parse(&options.reference).map_err(|e| oci(&options.reference)(e.into()))?;
    let keys = options
        .sign
        .as_ref()
        .map(|_| reg.keyring("signing"))
        .transpose()?;
    let Acceptance {
        bytes,
        module,
        accepted,
        types,
    } = accept(&reg.plugins.runtime, file, None)?;
    let info = &accepted.info;
    let tag = match &parsed.tag {
        Some(tag) => tag.clone(),
        None => {
            check_tag(&info.version).map_err(|why| DistributionError::BadTag {
                version: info.version.clone(),
                why,
            })?;
            info.version.clone()
        }
    };
    let reference = parsed.with_tag(&tag);
    let shown = reference.to_string();
    let description = options.description.clone().unwrap_or_else(|| {
        info.classes
            .iter()
            .map(|c| format!("{}: {}", c.name, c.description))
            .collect::<Vec<_>>()
            .join("; ")
    });
    let meta = PluginMeta {
        module: module.to_string(),
        version: info.version.clone(),
        description: Some(description).filter(|d| !d.is_empty()),
        source: options.source.clone(),
        authors: options.authors.clone(),
    };
    let world = ComponentWorld {
        imports: accepted.imports.clone(),
        exports: vec![info.contract.handler_export().to_owned()],
    };
    let built = artifact::build_artifact(&bytes, world, &meta);
    // Signed before anything is sent: a missing key fails the push whole.
    let signature = match (&options.sign, keys) {
        (Some(name), Some(keys)) => Some(keys.sign(
            name,
            &Statement {
                repository: reference.repository_path(),
                module: module.to_string(),
                version: info.version.clone(),
                layer_digest: built.layer.digest.clone(),
            },
        )?),
        _ => None,
    };
    let client = Client::new(reg.oci.clone());
    let session = client.session(&reference, true);
    // An artifact goes up as its config and layer blobs, then its manifest.
    let put = |tag: &str, config: &[u8], layer: &[u8], manifest: &[u8]| {
        session.put_blob(config)?;
        session.put_blob(layer)?;
        session.put_manifest(tag, manifest, artifact::MANIFEST_MEDIA_TYPE)
    };
    let manifest_digest = put(&tag, &built.config, &bytes, &built.manifest).map_err(oci(&shown))?;
    let signed_by = match signature {
        Some((layer, key_id)) => {
            let (config, manifest, _) = artifact::build_signature_artifact(&layer);
            let tag = artifact::signature_tag(&manifest_digest);
            put(&tag, &config, &layer, &manifest).map_err(oci(&shown))?;
            Some(key_id)
        }
        None => None,
    };
    Ok(PushView {
        reference: shown,
        module: module.to_string(),
        version: info.version.clone(),
        manifest_digest,
        layer_digest: built.layer.digest,
        size_bytes: bytes.len() as u64,
        types: types.names(),
        signed_by,
    })
}
