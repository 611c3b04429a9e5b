//! How an import is refused: as a whole, with every conflict with this
//! registry, every plugin component and every type the document needs and
//! nobody has — all of them at once, nothing imported; or for one item
//! ([`TransferError::ImportRefused`]: which item, and the refusal its own
//! verb gives). The room `import` produces these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::{RegistryError, join, join_with};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TransferError {
    #[error(
        "the document conflicts with this registry in {} place(s); nothing was imported: {}",
        .0.len(),
        join_with(.0, "; ")
    )]
    ImportConflicts(Vec<crate::registry::ImportConflict>),
    #[error(
        "the document names plugins this home's plugin store does not hold: {}; export it \
         with --with-plugins, or add those components first (agents plugin add FILE); \
         nothing was imported",
        join(missing)
    )]
    ImportPluginsMissing {
        missing: Vec<crate::registry::MissingPlugin>,
    },
    #[error(
        "the document's resources are of types neither this registry nor the document has: \
         {}; register them first; nothing was imported",
        join(missing)
    )]
    ImportTypesMissing {
        missing: Vec<crate::registry::MissingType>,
    },
    #[error("cannot import {item}: {source}; nothing was imported")]
    ImportRefused {
        item: String,
        #[source]
        source: Box<RegistryError>,
    },
}
