//! How an import is refused: as a whole, with every conflict with this
//! registry, every plugin component and every type the document needs and
//! nobody has — all of them at once, nothing imported; or for one item
//! ([`TransferError::ImportRefused`]: which item, and the refusal its own
//! verb gives). The room `import` produces these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::{RegistryError, join, join_with};
use crate::model::{ModuleName, ResourceId, ResourceKind, ResourceName, TypeName};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TransferError {
    #[error(
        "the document conflicts with this registry in {} place(s); nothing was imported: {}",
        .0.len(),
        join_with(.0, "; ")
    )]
    ImportConflicts(Vec<ImportConflict>),
    #[error(
        "the document names plugins this home's plugin store does not hold: {}; export it \
         with --with-plugins, or add those components first (agents plugin add FILE); \
         nothing was imported",
        join(missing)
    )]
    ImportPluginsMissing { missing: Vec<MissingPlugin> },
    #[error(
        "the document's resources are of types neither this registry nor the document has: \
         {}; register them first; nothing was imported",
        join(missing)
    )]
    ImportTypesMissing { missing: Vec<MissingType> },
    #[error("cannot import {item}: {source}; nothing was imported")]
    ImportRefused {
        item: String,
        #[source]
        source: Box<RegistryError>,
    },
}

/// Where the document and the registry disagree about the same thing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImportConflict {
    /// A name the document gives one resource belongs to another here.
    #[error("resource name {name} is {here} here but {document} in the document")]
    ResourceName {
        name: ResourceName,
        here: ResourceId,
        document: ResourceId,
    },
    /// The same resource (same id) is here with other values.
    #[error("resource {resource} is here with other {}", fields.join(", "))]
    ResourceChanged {
        resource: String,
        fields: Vec<&'static str>,
    },
    /// The document says a resource is of one kind, its type here another.
    #[error(
        "resource {resource} is {document} in the document, but type {type_name} is {here} here"
    )]
    ResourceKind {
        resource: String,
        type_name: TypeName,
        document: ResourceKind,
        here: ResourceKind,
    },
    /// A type of that name is registered here with another spec.
    #[error("type {name} is registered here with another spec (from {here_source})")]
    Type { name: TypeName, here_source: String },
    /// The module is added here with other bytes.
    #[error(
        "plugin {module} is sha256 {} here but {} in the document",
        short(here),
        short(document)
    )]
    Plugin {
        module: ModuleName,
        here: String,
        document: String,
    },
    /// The link is here with other flags.
    #[error("link {parent} → {child} is here with other {}", fields.join(", "))]
    Link {
        parent: String,
        child: String,
        fields: Vec<&'static str>,
    },
    /// The setting is here with another value.
    #[error("the {setting} environment setting is here with another value")]
    Setting { setting: String },
}

/// A plugin the document names by hash whose file the target's plugin
/// store does not hold (and the document does not carry).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{module} (sha256 {sha256})")]
pub struct MissingPlugin {
    pub module: ModuleName,
    pub sha256: String,
}

/// A type some of the document's resources have that neither the
/// registry nor the document defines.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{type_name} ({resources} resource(s))")]
pub struct MissingType {
    pub type_name: TypeName,
    pub resources: usize,
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
