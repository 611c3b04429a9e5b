//! Which children of a visited resource are the ones already stored below
//! it: a pure decision over the stored children and what the handler's
//! answer found, with no handler call, store read or filesystem probe.
//!
//! **Identity.** A found child is *the same* resource as a stored
//! auto-discovered one when type, name and location agree ([`identity`]):
//! it is kept (its id and row stay; properties and hash are refreshed). A
//! found child matching none is added; a stored auto-discovered child no
//! found one matches has vanished. A child someone linked by hand is never
//! matched and never vanishes: discovery did not make it.
//!
//! **Hashes of what is not visited.** A kept child this discovery will not
//! visit (below the explored depth) and whose answer carries no hash keeps
//! its stored hash: what was learnt of it before still holds.

use super::Refresh;
use crate::model::{ResourceId, ResourceName, TypeName};
use crate::store::ResourceRow;
use std::collections::{HashMap, HashSet};

/// What makes a discovered child the same resource as a stored one.
type Identity<'a> = (&'a TypeName, Option<&'a ResourceName>, Option<&'a str>);

pub(in crate::registry) fn identity(row: &ResourceRow) -> Identity<'_> {
    (&row.type_name, row.name.as_ref(), row.location.as_deref())
}

/// A child a handler's answer named, and whether this discovery visits it.
#[derive(Debug, Clone)]
pub(super) struct FoundChild {
    pub row: ResourceRow,
    pub visit: bool,
}

/// One found child, matched.
#[derive(Debug)]
pub(super) enum Child {
    /// A stored child found again: what was found of it now, against what
    /// is stored, and — when it is to be visited — the stored row with
    /// what was found of it now.
    Kept(Refresh, Option<ResourceRow>),
    /// A child found for the first time.
    Added(FoundChild),
}

/// The stored children set beside the found ones.
#[derive(Debug, Default)]
pub(super) struct Matched {
    /// Each found child, in the order of the handler's answer.
    pub children: Vec<Child>,
    /// Stored auto-discovered children no found one matches, in stored
    /// order.
    pub vanished: Vec<ResourceId>,
}

/// Match what a handler `found` below a resource against the children
/// `stored` below it (see the module doc).
pub(super) fn match_children(stored: &[ResourceRow], found: Vec<FoundChild>) -> Matched {
    let stored: Vec<&ResourceRow> = stored.iter().filter(|c| c.auto_discovered).collect();
    let by_identity: HashMap<Identity<'_>, &ResourceRow> =
        stored.iter().map(|c| (identity(c), *c)).collect();
    let found_now: HashSet<Identity<'_>> = found.iter().map(|f| identity(&f.row)).collect();
    let vanished = stored
        .iter()
        .filter(|c| !found_now.contains(&identity(c)))
        .map(|c| c.id)
        .collect();
    drop(found_now);
    let children = found
        .into_iter()
        .map(|found| {
            let Some(existing) = by_identity.get(&identity(&found.row)).copied() else {
                return Child::Added(found);
            };
            let FoundChild { row: child, visit } = found;
            let properties_changed = existing.properties != child.properties;
            let stored_hash = existing.content_hash.clone();
            let content_hash = match child.content_hash {
                None if !visit => stored_hash.clone(),
                hash => hash,
            };
            let visit = visit.then(|| ResourceRow {
                properties: child.properties.clone(),
                content_hash: content_hash.clone(),
                ..existing.clone()
            });
            let refresh = Refresh {
                id: existing.id,
                properties: child.properties,
                content_hash,
                properties_changed,
                stored_hash,
                first_explored: false,
            };
            Child::Kept(refresh, visit)
        })
        .collect();
    Matched { children, vanished }
}

#[cfg(test)]
mod tests;
