//! The CNCF Wasm OCI artifact: the one home of its media types, its
//! manifest and config, and what a pulled manifest must be to be used.
//!
//! The layout is TAG Runtime's `wasm-oci-artifact` (what wkg, Spin,
//! wasmCloud and containerd speak): an image manifest
//! (`application/vnd.oci.image.manifest.v1+json`) whose config is
//! `application/vnd.wasm.config.v0+json` — `architecture: "wasm"`, `os:
//! "wasip2"`, `layerDigests`, and the component's `imports` / `exports` —
//! and whose one layer is the component, `application/wasm`. The
//! `org.opencontainers.image.*` annotations carry the plugin's version,
//! title (its module), description, source and authors. Nothing else is
//! accepted on a pull: an index, another config type, no layer, two
//! layers, or a layer of another type is refused by [`check_manifest`]
//! with what it was, before any blob is fetched.
//!
//! A publisher's signature travels as a second small artifact tagged
//! `sha256-<manifest hex>.sig` in the same repository (cosign's
//! convention, which works on registries without the referrers API):
//! an empty config and one [`SIGNATURE_MEDIA_TYPE`] layer.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
pub const INDEX_MEDIA_TYPE: &str = "application/vnd.oci.image.index.v1+json";
pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";
pub const EMPTY_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
pub const SIGNATURE_MEDIA_TYPE: &str = "application/vnd.cleveragents.plugin.signature.v1+json";

/// A content descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    #[serde(rename = "mediaType")]
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
}

impl Descriptor {
    pub fn of(media_type: &str, bytes: &[u8]) -> Self {
        Self {
            media_type: media_type.to_owned(),
            digest: format!("sha256:{}", crate::digest::sha256_hex(bytes)),
            size: bytes.len() as u64,
            annotations: None,
        }
    }
}

/// An OCI image manifest (the fields this layout uses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    #[serde(rename = "mediaType", default)]
    pub media_type: Option<String>,
    #[serde(
        rename = "artifactType",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    #[serde(default)]
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// The Wasm config (`application/vnd.wasm.config.v0+json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WasmConfig {
    pub architecture: String,
    pub os: String,
    #[serde(rename = "layerDigests")]
    pub layer_digests: Vec<String>,
    pub component: ComponentWorld,
}

/// What the component imports and exports (WIT interface names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentWorld {
    pub imports: Vec<String>,
    pub exports: Vec<String>,
}

/// The plugin's facts an artifact is annotated with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginMeta {
    pub module: String,
    pub version: String,
    pub description: Option<String>,
    pub source: Option<String>,
    pub authors: Option<String>,
}

/// An artifact ready to push: its config and manifest bytes.
#[derive(Debug, Clone)]
pub struct BuiltArtifact {
    pub config: Vec<u8>,
    pub manifest: Vec<u8>,
    pub layer: Descriptor,
}

/// The artifact for `component` (its bytes, its world, its metadata).
pub fn build_artifact(component: &[u8], world: ComponentWorld, meta: &PluginMeta) -> BuiltArtifact {
    let layer = Descriptor::of(WASM_LAYER_MEDIA_TYPE, component);
    let config = WasmConfig {
        architecture: "wasm".into(),
        os: "wasip2".into(),
        layer_digests: vec![layer.digest.clone()],
        component: world,
    };
    let config = serde_json::to_vec(&config).expect("a config serialises");
    let mut annotations = BTreeMap::new();
    annotations.insert("org.opencontainers.image.title".into(), meta.module.clone());
    annotations.insert(
        "org.opencontainers.image.version".into(),
        meta.version.clone(),
    );
    for (key, value) in [
        ("description", &meta.description),
        ("source", &meta.source),
        ("authors", &meta.authors),
    ] {
        if let Some(value) = value {
            annotations.insert(format!("org.opencontainers.image.{key}"), value.clone());
        }
    }
    let manifest = Manifest {
        schema_version: 2,
        media_type: Some(MANIFEST_MEDIA_TYPE.into()),
        artifact_type: None,
        config: Descriptor::of(WASM_CONFIG_MEDIA_TYPE, &config),
        layers: vec![layer.clone()],
        annotations,
    };
    BuiltArtifact {
        config,
        manifest: serde_json::to_vec(&manifest).expect("a manifest serialises"),
        layer,
    }
}

/// Why a pulled manifest is not a plugin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArtifactRefusal {
    #[error(
        "it is an image index (several manifests), not one plugin; name one manifest by its \
         digest"
    )]
    Index,
    #[error("its manifest is not JSON an OCI manifest has: {0}")]
    NotAManifest(String),
    #[error("its manifest is of type {0:?}, not {MANIFEST_MEDIA_TYPE}")]
    ManifestType(String),
    #[error(
        "its config is of type {0:?}, not {WASM_CONFIG_MEDIA_TYPE}; it is not a WebAssembly \
         component artifact"
    )]
    ConfigType(String),
    #[error(
        "it has {0} layers; a plugin artifact has exactly one, the component ({WASM_LAYER_MEDIA_TYPE})"
    )]
    LayerCount(usize),
    #[error("its layer is of type {0:?}, not {WASM_LAYER_MEDIA_TYPE}")]
    LayerType(String),
    #[error("its layer declares {size} bytes, more than a plugin may have ({limit})")]
    LayerTooBig { size: u64, limit: u64 },
}

/// Parse a pulled manifest (`media_type` as the registry labelled it)
/// and refuse anything but a Wasm component artifact.
pub fn check_manifest(
    bytes: &[u8],
    media_type: Option<&str>,
    max_layer: u64,
) -> Result<Manifest, ArtifactRefusal> {
    if media_type == Some(INDEX_MEDIA_TYPE) {
        return Err(ArtifactRefusal::Index);
    }
    let manifest: Manifest =
        serde_json::from_slice(bytes).map_err(|e| ArtifactRefusal::NotAManifest(e.to_string()))?;
    match manifest.media_type.as_deref() {
        Some(INDEX_MEDIA_TYPE) => return Err(ArtifactRefusal::Index),
        Some(MANIFEST_MEDIA_TYPE) | None => {}
        Some(other) => return Err(ArtifactRefusal::ManifestType(other.into())),
    }
    if manifest.config.media_type != WASM_CONFIG_MEDIA_TYPE {
        return Err(ArtifactRefusal::ConfigType(
            manifest.config.media_type.clone(),
        ));
    }
    let [layer] = manifest.layers.as_slice() else {
        return Err(ArtifactRefusal::LayerCount(manifest.layers.len()));
    };
    if layer.media_type != WASM_LAYER_MEDIA_TYPE {
        return Err(ArtifactRefusal::LayerType(layer.media_type.clone()));
    }
    if layer.size > max_layer {
        return Err(ArtifactRefusal::LayerTooBig {
            size: layer.size,
            limit: max_layer,
        });
    }
    Ok(manifest)
}

/// The tag a manifest's signature artifact is published under.
pub fn signature_tag(manifest_digest: &str) -> String {
    format!("{}.sig", manifest_digest.replace(':', "-"))
}

/// The signature artifact over `signature` (the layer's bytes).
pub fn build_signature_artifact(signature: &[u8]) -> (Vec<u8>, Vec<u8>, Descriptor) {
    let config = b"{}".to_vec();
    let layer = Descriptor::of(SIGNATURE_MEDIA_TYPE, signature);
    let manifest = Manifest {
        schema_version: 2,
        media_type: Some(MANIFEST_MEDIA_TYPE.into()),
        artifact_type: Some(SIGNATURE_MEDIA_TYPE.into()),
        config: Descriptor::of(EMPTY_MEDIA_TYPE, &config),
        layers: vec![layer.clone()],
        annotations: BTreeMap::new(),
    };
    let manifest = serde_json::to_vec(&manifest).expect("a manifest serialises");
    (config, manifest, layer)
}

/// The signature layer of a pulled signature manifest, if it is one.
pub fn signature_layer(bytes: &[u8]) -> Option<Descriptor> {
    let manifest: Manifest = serde_json::from_slice(bytes).ok()?;
    match manifest.layers.as_slice() {
        [layer] if layer.media_type == SIGNATURE_MEDIA_TYPE && layer.size <= 64 * 1024 => {
            Some(layer.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> ComponentWorld {
        ComponentWorld {
            imports: vec!["cleveragents:resource/host@0.2.0".into()],
            exports: vec!["cleveragents:resource/handler@0.2.0".into()],
        }
    }

    #[test]
    fn a_built_artifact_passes_its_own_check_with_the_cncf_media_types() {
        let meta = PluginMeta {
            module: "myteam.python".into(),
            version: "0.1.0".into(),
            ..PluginMeta::default()
        };
        let built = build_artifact(b"\0asm", world(), &meta);
        let manifest = check_manifest(&built.manifest, Some(MANIFEST_MEDIA_TYPE), 1024).unwrap();
        assert_eq!(manifest.config.media_type, WASM_CONFIG_MEDIA_TYPE);
        assert_eq!(manifest.layers[0].media_type, WASM_LAYER_MEDIA_TYPE);
        assert_eq!(
            manifest.annotations["org.opencontainers.image.version"],
            "0.1.0"
        );
        let config: WasmConfig = serde_json::from_slice(&built.config).unwrap();
        assert_eq!(
            (config.architecture.as_str(), config.os.as_str()),
            ("wasm", "wasip2")
        );
        assert_eq!(config.layer_digests, vec![built.layer.digest]);
    }

    #[test]
    fn a_container_image_or_two_layers_are_refused_saying_what_they_are() {
        let meta = PluginMeta::default();
        let built = build_artifact(b"\0asm", world(), &meta);
        let mut manifest: Manifest = serde_json::from_slice(&built.manifest).unwrap();
        manifest.config.media_type = "application/vnd.oci.image.config.v1+json".into();
        let bytes = serde_json::to_vec(&manifest).unwrap();
        let err = check_manifest(&bytes, None, 1024).unwrap_err();
        assert!(matches!(err, ArtifactRefusal::ConfigType(_)), "{err}");

        let mut two: Manifest = serde_json::from_slice(&built.manifest).unwrap();
        two.layers.push(two.layers[0].clone());
        let err = check_manifest(&serde_json::to_vec(&two).unwrap(), None, 1024).unwrap_err();
        assert_eq!(err, ArtifactRefusal::LayerCount(2));

        let err = check_manifest(b"{}", Some(INDEX_MEDIA_TYPE), 1024).unwrap_err();
        assert_eq!(err, ArtifactRefusal::Index);
    }

    #[test]
    fn a_signature_is_tagged_by_the_manifest_digest() {
        let digest = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(
            signature_tag(&digest),
            format!("sha256-{}.sig", "ab".repeat(32))
        );
    }
}
