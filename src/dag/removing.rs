//! What a removal takes with it: the one rule, for `remove` and a
//! rediscovery alike, by which auto-discovered descendants go with their
//! roots and resources made by hand only lose a link.

use crate::model::ResourceId;
use std::collections::{BTreeMap, BTreeSet};

/// What removing some resources takes with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removal {
    /// The roots, then every auto-discovered descendant all of whose
    /// parents are going too, in the order they were found.
    pub going: Vec<ResourceId>,
    /// Resources registered by hand that lose a link to something going
    /// but stay themselves.
    pub unlinked: Vec<ResourceId>,
}

/// The one rule for what goes with a resource, for `remove` and for a
/// rediscovery dropping children alike: the `roots` go, then every
/// auto-discovered descendant all of whose parents are going too (to a
/// fixpoint, so a discovered grandchild kept by a surviving parent
/// survives). User-made resources below are never taken; they only lose
/// the link.
///
/// `edges` are all links into the roots' descendants; `auto` says for
/// each descendant whether it was auto-discovered.
pub fn removal(
    roots: &[ResourceId],
    edges: &[(ResourceId, ResourceId)],
    auto: &BTreeMap<ResourceId, bool>,
) -> Removal {
    // A worklist, not passes to a fixpoint: each resource that goes
    // tells its children once, so a chain costs its length, not its
    // length squared (an imported chain is as long as its author likes).
    let mut children: BTreeMap<ResourceId, Vec<ResourceId>> = BTreeMap::new();
    let mut staying: BTreeMap<ResourceId, usize> = BTreeMap::new();
    for (p, c) in edges {
        children.entry(*p).or_default().push(*c);
        *staying.entry(*c).or_default() += 1;
    }
    let mut going: BTreeSet<ResourceId> = BTreeSet::new();
    let mut order: Vec<ResourceId> = Vec::with_capacity(roots.len());
    for root in roots {
        if going.insert(*root) {
            order.push(*root);
        }
    }
    let mut next = 0;
    while let Some(&gone) = order.get(next) {
        next += 1;
        for child in children.get(&gone).into_iter().flatten() {
            let left = staying
                .get_mut(child)
                .expect("every child's parents are counted");
            *left -= 1;
            let discovered = auto.get(child).copied().unwrap_or(false);
            if *left == 0 && discovered && going.insert(*child) {
                order.push(*child);
            }
        }
    }
    let mut unlinked: Vec<ResourceId> = edges
        .iter()
        .filter(|(p, c)| going.contains(p) && !going.contains(c))
        .filter(|(_, c)| !auto.get(c).copied().unwrap_or(true))
        .map(|(_, c)| *c)
        .collect();
    unlinked.sort();
    unlinked.dedup();
    Removal {
        going: order,
        unlinked,
    }
}
