//! How moving a plugin through a registry is refused: the registry or
//! layout could not give the artifact, the artifact is not a plugin, its
//! signature is missing, unpinned, pinned elsewhere or wrong, a lock pins
//! other bytes, or a key operation failed. The room `distribution`
//! produces these; every one leaves the registry as it was.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use crate::model::ModuleName;
use crate::oci::{OciError, artifact::ArtifactRefusal};
use crate::signing::SigningError;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum DistributionError {
    #[error("{reference}: {source}")]
    Oci {
        reference: String,
        #[source]
        source: OciError,
    },
    #[error("{reference} is not a plugin artifact: {source}")]
    NotAPlugin {
        reference: String,
        #[source]
        source: ArtifactRefusal,
    },
    #[error(
        "{reference} is not signed; ask its publisher to push it with --sign, or pass \
         --allow-unsigned to install it anyway (recorded as unsigned)"
    )]
    Unsigned { reference: String },
    #[error(
        "{reference} is signed by key {key_id}, which is not pinned here; if you trust its \
         publisher: agents plugin key trust PUBLIC_KEY --for HOST/REPOSITORY-PREFIX"
    )]
    UnpinnedKey { reference: String, key_id: String },
    #[error(
        "{reference} is signed by key {key_id}, which is pinned for {} only, not for {repository}",
        prefixes.join(", ")
    )]
    WrongPrefix {
        reference: String,
        key_id: String,
        repository: String,
        prefixes: Vec<String>,
    },
    #[error("{reference}: {source}")]
    BadSignature {
        reference: String,
        #[source]
        source: SigningError,
    },
    #[error("{reference}'s signature vouches for {vouched}, not for {found}")]
    SignatureMismatch {
        reference: String,
        vouched: String,
        found: String,
    },
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error("{action} needs a home (keys and pins are kept there)")]
    NoKeyring { action: &'static str },
    #[error("plugin {module} differs from the lock file: {why}; nothing was installed")]
    LockDiffers { module: ModuleName, why: String },
    #[error("lock file {}: {why}", path.display())]
    LockFile { path: PathBuf, why: String },
    #[error(
        "plugin {module} was not installed from a registry (agents plugin show {module}); \
         only installed plugins are updated"
    )]
    NotInstalled { module: ModuleName },
    #[error("cannot push: {version:?} is not a tag ({why}); give the reference a :TAG")]
    BadTag { version: String, why: &'static str },
}

impl DistributionError {
    /// The refusal of an OCI step on `reference` (what the person wrote,
    /// as the message names it), for `map_err`.
    pub(crate) fn oci(reference: &str) -> impl Fn(OciError) -> Self + Copy + '_ {
        move |source| Self::Oci {
            reference: reference.to_owned(),
            source,
        }
    }

    pub fn kind(&self) -> super::ErrorKind {
        use super::ErrorKind as K;
        match self {
            Self::Oci { source, .. } => match source {
                OciError::NotFound { .. } => K::NotFound,
                OciError::Reference(_) => K::InvalidArguments,
                _ => K::Refused,
            },
            Self::Unsigned { .. }
            | Self::UnpinnedKey { .. }
            | Self::WrongPrefix { .. }
            | Self::BadSignature { .. }
            | Self::SignatureMismatch { .. } => K::NotTrusted,
            Self::LockDiffers { .. } => K::Conflict,
            Self::NotInstalled { .. } => K::NotFound,
            Self::NotAPlugin { .. }
            | Self::LockFile { .. }
            | Self::BadTag { .. }
            | Self::Signing(_) => K::InvalidArguments,
            Self::NoKeyring { .. } => K::Refused,
        }
    }
}
