//! How a link operation is refused: a link to itself, one that exists,
//! one that would close a cycle, one neither type allows (the order
//! `dag::admit_link` checks them in), an unlink of what is not
//! linked, and a tree too deep to show. The room `links` produces these, for `link_child` and for
//! every link an import adds (inside
//! [`TransferError::ImportRefused`](super::TransferError::ImportRefused)).
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::RegistryError;
use crate::dag::{LinkRefusal, LinkTypeRefusal};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum LinksError {
    #[error("cannot link {resource} to itself: a resource cannot be its own child")]
    SelfLink { resource: String },
    #[error("{parent} is already a parent of {child}")]
    DuplicateLink { parent: String, child: String },
    #[error(
        "cannot link {parent} → {child}: {child} already reaches {parent}, so the link would \
         close a cycle (the resource graph is a DAG)"
    )]
    Cycle { parent: String, child: String },
    #[error(
        "cannot link {parent} ({}) → {child} ({}): the types do not allow it — {rule}",
        rule.parent_type, rule.child_type
    )]
    IncompatibleLink {
        parent: String,
        child: String,
        rule: Box<LinkTypeRefusal>,
    },
    #[error("{parent} is not a parent of {child}; nothing to unlink")]
    NotLinked { parent: String, child: String },
    #[error(
        "the tree below {resource} goes deeper than {limit} links, the most a tree or graph \
         shows; ask for fewer levels (--depth N, `depth` over MCP, N at most {limit}) or start \
         from a resource further down"
    )]
    TreeTooDeep { resource: String, limit: u32 },
}

/// A link refusal in the registry's words, naming its ends by `parent`
/// and `child`.
pub(crate) fn link_refused(refusal: LinkRefusal, parent: String, child: String) -> RegistryError {
    match refusal {
        LinkRefusal::SelfLink => LinksError::SelfLink { resource: parent },
        LinkRefusal::Duplicate => LinksError::DuplicateLink { parent, child },
        LinkRefusal::Types(rule) => LinksError::IncompatibleLink {
            parent,
            child,
            rule,
        },
        LinkRefusal::Cycle => LinksError::Cycle { parent, child },
    }
    .into()
}
