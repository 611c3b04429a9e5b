//! Pulling an artifact and checking whose it is: the manifest (its media
//! types), the layer (its digest, its size), and the publisher's
//! signature against the person's pins — everything about the bytes
//! before the component itself is looked at (`plugin_check`), and before
//! anything is written.

use crate::oci::artifact;
use crate::oci::{Client, FetchedManifest, Layout, OciError, Origin, Source};
use crate::registry::{DistributionError, RegistryError};
use crate::signing::{Keyring, Statement, open, prefix_covers};
use crate::user_files::InputKind;

/// An artifact pulled and checked (not yet accepted as a plugin).
#[derive(Debug)]
pub(super) struct Pulled {
    /// As the person wrote it (for messages).
    pub shown: String,
    /// `HOST[:PORT]`, or `oci-layout:DIR`.
    pub registry: String,
    /// The repository (for a layout: the one its signature names, else
    /// the directory's name).
    pub repository: String,
    pub tag: Option<String>,
    pub manifest_digest: String,
    pub layer_digest: String,
    pub bytes: Vec<u8>,
    /// The signature layer, when the artifact has one.
    pub signature: Option<Vec<u8>>,
}

/// What the signature check concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Vouched {
    /// The signing key's id, when a pinned key signed it.
    pub signer: Option<String>,
    /// Installed without one, on `--allow-unsigned`.
    pub unsigned_allowed: bool,
    /// The module the signature names (checked against the component's).
    pub module: Option<String>,
}

/// Pull `source` (a tag or a digest) through `client`.
pub(super) fn pull(client: &Client, source: &Source) -> Result<Pulled, RegistryError> {
    let shown = source.to_string();
    let oci = DistributionError::oci(&shown);
    let (origin, key, registry, repository, tag) = match source {
        Source::Registry(reference) => (
            Origin::Registry(client.session(reference, false)),
            reference.manifest_key().to_owned(),
            reference.registry.clone(),
            reference.repository.clone(),
            reference.tag.clone(),
        ),
        Source::Layout { dir, tag, digest } => {
            let layout = Layout::open(dir).map_err(oci)?;
            let key = digest.clone().or(tag.clone()).unwrap_or_default();
            let name = dir
                .file_name()
                .map_or_else(|| "layout".to_owned(), |n| n.to_string_lossy().into_owned());
            (
                Origin::Layout(layout),
                key,
                format!("{}{}", crate::oci::LAYOUT_PREFIX, dir.display()),
                name,
                tag.clone(),
            )
        }
    };
    let FetchedManifest {
        bytes,
        digest,
        media_type,
    } = origin.manifest(&key).map_err(oci)?;
    let limit = InputKind::PluginComponent.limit();
    let manifest = artifact::check_manifest(&bytes, media_type.as_deref(), limit).map_err(|e| {
        DistributionError::NotAPlugin {
            reference: shown.clone(),
            source: e,
        }
    })?;
    let layer_digest = manifest.layers[0].digest.clone();
    let component = origin.blob(&layer_digest, limit).map_err(oci)?;
    let signature = match origin.manifest(&artifact::signature_tag(&digest)) {
        Ok(sig) => match artifact::signature_layer(&sig.bytes) {
            Some(layer) => Some(origin.blob(&layer.digest, 64 * 1024).map_err(oci)?),
            None => None,
        },
        Err(OciError::NotFound { .. }) => None,
        Err(e) => return Err(oci(e).into()),
    };
    Ok(Pulled {
        shown,
        registry,
        repository,
        tag,
        manifest_digest: digest,
        layer_digest,
        bytes: component,
        signature,
    })
}

impl Pulled {
    /// `HOST[:PORT]/REPOSITORY` (a layout has none of its own).
    pub fn repository_path(&self) -> Option<String> {
        (!self.registry.starts_with(crate::oci::LAYOUT_PREFIX))
            .then(|| format!("{}/{}", self.registry, self.repository))
    }

    /// Check the signature against `keys`' pins: signed by a pinned key,
    /// pinned for this repository, vouching for this layer. Without one
    /// (or with a bad one) only `allow_unsigned` goes on, recorded.
    pub fn vouch(
        &mut self,
        keys: Option<&Keyring>,
        allow_unsigned: bool,
        expect_signer: Option<&str>,
    ) -> Result<Vouched, RegistryError> {
        match self.verified(keys, expect_signer) {
            Ok(statement) => {
                if self.repository_path().is_none() {
                    // A layout is named by what its publisher signed.
                    self.repository = statement.1.repository.clone();
                }
                Ok(Vouched {
                    signer: Some(statement.0),
                    unsigned_allowed: false,
                    module: Some(statement.1.module),
                })
            }
            Err(e) if allow_unsigned => {
                log::warn!(
                    "installing {} WITHOUT a trusted signature (--allow-unsigned): {e}",
                    self.shown
                );
                Ok(Vouched {
                    signer: None,
                    unsigned_allowed: true,
                    module: None,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    fn verified(
        &self,
        keys: Option<&Keyring>,
        expect_signer: Option<&str>,
    ) -> Result<(String, Statement), DistributionError> {
        let reference = self.shown.clone();
        let bad = |source| DistributionError::BadSignature {
            reference: reference.clone(),
            source,
        };
        let mismatch = |what: &str, vouched: &str, found: &str| {
            Err(DistributionError::SignatureMismatch {
                reference: reference.clone(),
                vouched: format!("{what} {vouched}"),
                found: format!("{what} {found}"),
            })
        };
        let Some(layer) = &self.signature else {
            return Err(DistributionError::Unsigned { reference });
        };
        let opened = open(layer).map_err(bad)?;
        if let Some(expected) = expect_signer
            && expected != opened.key_id
        {
            let found = format!("{expected}, which the lock file names");
            return mismatch("key", &opened.key_id, &found);
        }
        let pins: Vec<_> = keys
            .map(Keyring::pins)
            .transpose()?
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.key_id == opened.key_id)
            .collect();
        let Some(pin) = pins.first() else {
            return Err(DistributionError::UnpinnedKey {
                reference,
                key_id: opened.key_id,
            });
        };
        let statement = opened.verify(&pin.public_key).map_err(bad)?;
        if statement.layer_digest != self.layer_digest {
            return mismatch("layer", &statement.layer_digest, &self.layer_digest);
        }
        let repository = self
            .repository_path()
            .unwrap_or_else(|| statement.repository.clone());
        if statement.repository != repository {
            return mismatch("repository", &statement.repository, &repository);
        }
        if !pins.iter().any(|p| prefix_covers(&p.prefix, &repository)) {
            return Err(DistributionError::WrongPrefix {
                reference,
                key_id: opened.key_id,
                repository,
                prefixes: pins.into_iter().map(|p| p.prefix).collect(),
            });
        }
        Ok((opened.key_id, statement))
    }
}
