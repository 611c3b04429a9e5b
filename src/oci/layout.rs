//! An OCI image layout directory (`oci-layout`, `index.json`,
//! `blobs/sha256/…`): the one home of reading an air-gapped copy, as
//! `skopeo copy … oci:DIR:TAG` or `oras copy --to-oci-layout` write it.
//!
//! A tag is found by the `org.opencontainers.image.ref.name` annotation
//! of `index.json`'s entries; blobs are read by digest (64 hex digits,
//! checked, so no path is built from other text), bounded, and hashed
//! like a registry's.

use super::OciError;
use super::artifact::Descriptor;
use super::client::{FetchedManifest, MAX_MANIFEST};
use super::reference::check_digest;
use crate::digest::sha256_hex;
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One layout directory.
#[derive(Debug, Clone)]
pub struct Layout {
    dir: PathBuf,
}

#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    manifests: Vec<Descriptor>,
}

const REF_NAME: &str = "org.opencontainers.image.ref.name";

impl Layout {
    pub fn open(dir: &Path) -> Result<Self, OciError> {
        let marker = dir.join("oci-layout");
        if !marker.is_file() {
            return Err(OciError::Layout {
                dir: dir.to_owned(),
                why: "it has no oci-layout file; is it an OCI image layout directory?".into(),
            });
        }
        Ok(Self {
            dir: dir.to_owned(),
        })
    }

    /// The manifest tagged `tag`, or the one with `digest`.
    pub fn manifest(&self, key: &str) -> Result<FetchedManifest, OciError> {
        let index = self.read(&self.dir.join("index.json"), MAX_MANIFEST)?;
        let index: Index = serde_json::from_slice(&index).map_err(|e| OciError::Layout {
            dir: self.dir.clone(),
            why: format!("its index.json is not an OCI index: {e}"),
        })?;
        let found = index.manifests.iter().find(|d| {
            d.digest == key
                || d.annotations
                    .as_ref()
                    .and_then(|a| a.get(REF_NAME))
                    .is_some_and(|name| name == key)
        });
        let descriptor = found.ok_or_else(|| OciError::NotFound {
            reference: format!("oci-layout:{}:{key}", self.dir.display()),
            what: "manifest",
        })?;
        let bytes = self.blob(&descriptor.digest, MAX_MANIFEST)?;
        Ok(FetchedManifest {
            digest: descriptor.digest.clone(),
            media_type: Some(descriptor.media_type.clone()),
            bytes,
        })
    }

    /// The blob `digest`, at most `limit` bytes, checked against it.
    pub fn blob(&self, digest: &str, limit: u64) -> Result<Vec<u8>, OciError> {
        let digest = check_digest(digest).map_err(|why| OciError::Layout {
            dir: self.dir.clone(),
            why: why.into(),
        })?;
        let hex = &digest["sha256:".len()..];
        let bytes = self.read(&self.dir.join("blobs").join("sha256").join(hex), limit)?;
        let actual = format!("sha256:{}", sha256_hex(&bytes));
        if actual != digest {
            return Err(OciError::DigestMismatch {
                what: format!("blob {digest}"),
                expected: digest,
                actual,
            });
        }
        Ok(bytes)
    }

    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, OciError> {
        let io = |e: std::io::Error| OciError::Layout {
            dir: self.dir.clone(),
            why: format!("cannot read {}: {e}", path.display()),
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(OciError::TooBig {
                what: path.display().to_string(),
                limit,
            });
        }
        Ok(bytes)
    }
}
