//! OCI registries and image layouts: the one home of moving a plugin's
//! bytes in and out of them — references ([`Reference`], [`Source`]),
//! the CNCF Wasm artifact ([`artifact`]), the Distribution API over
//! http(s) ([`Client`]), credentials ([`RegistryAccess`]) and layout
//! directories ([`Layout`]).
//!
//! Nothing here decides whether a plugin is *used*: this module answers
//! bytes that match the digests they were asked by, or a one-line
//! [`OciError`]; the registry checks the manifest's shape, the component,
//! its signature and its types before anything is added
//! (`registry::distribution`). The only network it touches is the
//! registry named by a reference (and that registry's token service).

pub mod artifact;
mod auth;
mod client;
mod layout;
mod reference;

pub use auth::{Credentials, RegistryAccess};
pub use client::{Client, FetchedManifest, MAX_MANIFEST, Session};
pub use layout::Layout;
pub use reference::{LAYOUT_PREFIX, Reference, ReferenceError, Source, check_digest, check_tag};

use std::path::PathBuf;
use thiserror::Error;

/// Why talking to a registry or a layout failed; each one line.
#[derive(Debug, Error)]
pub enum OciError {
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    #[error("cannot reach registry {registry}: {why}")]
    Unreachable { registry: String, why: String },
    #[error(
        "registry {registry} refused access to {repository} ({status}); log in (docker login \
         {registry}) or set AGENTS_REGISTRY_TOKEN, or AGENTS_REGISTRY_USERNAME and \
         AGENTS_REGISTRY_PASSWORD"
    )]
    Denied {
        registry: String,
        repository: String,
        status: u16,
    },
    #[error("{reference}: no such {what} in the registry")]
    NotFound {
        reference: String,
        what: &'static str,
    },
    #[error("registry {registry} answered {status} while {action}")]
    Status {
        registry: String,
        action: &'static str,
        status: u16,
    },
    #[error("registry {registry} broke off {what}: {why}")]
    Truncated {
        registry: String,
        what: String,
        why: String,
    },
    #[error("{what} has digest {actual}, not {expected}: it was changed or damaged on the way")]
    DigestMismatch {
        what: String,
        expected: String,
        actual: String,
    },
    #[error("{what} is larger than {limit} bytes")]
    TooBig { what: String, limit: u64 },
    #[error("registry {registry}: {why}")]
    Protocol { registry: String, why: String },
    #[error("OCI layout {}: {why}", dir.display())]
    Layout { dir: PathBuf, why: String },
}

/// Where an artifact is read from: a registry's repository, or a layout.
#[derive(Debug)]
pub enum Origin<'a> {
    Registry(Session<'a>),
    Layout(Layout),
}

impl Origin<'_> {
    pub fn manifest(&self, key: &str) -> Result<FetchedManifest, OciError> {
        match self {
            Self::Registry(s) => s.manifest(key),
            Self::Layout(l) => l.manifest(key),
        }
    }

    pub fn blob(&self, digest: &str, limit: u64) -> Result<Vec<u8>, OciError> {
        match self {
            Self::Registry(s) => s.blob(digest, limit),
            Self::Layout(l) => l.blob(digest, limit),
        }
    }
}
