//! The DAG rules: which links may exist, what a tree walk shows, and what a
//! removal takes with it. Pure functions over resolved types and edges the
//! store walked; the registry applies them inside its transactions. The
//! links are here; a tree walk is in `tree`, a removal in `removing`.
//!
//! **Which links are allowed.** A link parent → child is allowed when the
//! relation is *declared* by either side — the child's type is (a subtype
//! of) a type in the parent's effective `child_types`, or the parent's type
//! is (a subtype of) a type in the child's effective `parent_types` — or
//! when neither side restricts (both lists empty). A non-empty list is a
//! restriction the other side can only pass by naming it explicitly.
//!
//! This deliberately differs from "both sides must list each other"
//! (DESIGN.md's first sketch): with that rule a custom type could never
//! attach itself below a built-in one (the spec's own `myteam/python-package`
//! declares `parent_types: [git-checkout]`, and `git-checkout` cannot know
//! custom types), while built-ins still need precise lists so that, say, a
//! `git-branch` cannot be linked under an `fs-directory`.
//!
//! **Which links may exist.** [`admit_link`] is the one home of the whole
//! rule, in the order it is applied: no self link, no duplicate, the types
//! allow it, no cycle. It asks what it needs to know of the graph and of
//! the types through [`LinkFacts`], one question at a time and only while
//! the link is still admissible — the registry answers from the store
//! (whose reachability walk up the parent's ancestors is the cycle check)
//! before every link write. An import adds many links at once:
//! [`admit_links`] gives the answer `admit_link` would give one by one,
//! with one cycle check for the whole batch (a walk per link is
//! quadratic on a chain). A document's
//! own check, which has no registry, applies the first two rules alone
//! ([`check_ends`]). Each caller turns a [`LinkRefusal`] into its own
//! message, naming the resources as it knows them.

use crate::model::{ResolvedType, ResourceId, TypeName};
use std::fmt;
use std::sync::Arc;
use thiserror::Error;

mod removing;
mod tree;

pub use removing::{Removal, removal};
pub use tree::{MAX_TREE_DEPTH, TooDeep, TreeNode, unfold};

/// Why the types refuse a link: neither side declares the relation. It
/// carries both types and what each allows, so the message can say what
/// to change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct LinkTypeRefusal {
    pub parent_type: TypeName,
    pub child_type: TypeName,
    /// The parent type's effective `child_types` (empty: any).
    pub parent_allows: Vec<TypeName>,
    /// The child type's effective `parent_types` (empty: any).
    pub child_allows: Vec<TypeName>,
}

impl fmt::Display for LinkTypeRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |names: &[TypeName]| {
            if names.is_empty() {
                "any".to_owned()
            } else {
                names
                    .iter()
                    .map(TypeName::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        write!(
            f,
            "a link needs {p}'s child_types to include {c} (or an ancestor of it), or {c}'s \
             parent_types to include {p} (or an ancestor of it); {p} allows children: {pc}; \
             {c} allows parents: {cp}",
            p = self.parent_type,
            c = self.child_type,
            pc = list(&self.parent_allows),
            cp = list(&self.child_allows),
        )
    }
}

/// Is a `parent` → `child` link allowed by the types?
pub fn check_link_types(
    parent: &ResolvedType,
    child: &ResolvedType,
) -> Result<(), LinkTypeRefusal> {
    let parent_lists = !parent.child_types.is_empty();
    let child_lists = !child.parent_types.is_empty();
    if !parent_lists && !child_lists {
        return Ok(());
    }
    let declared_by_parent = parent.child_type_names().any(|t| child.is_a(t));
    let declared_by_child = child.parent_type_names().any(|t| parent.is_a(t));
    if declared_by_parent || declared_by_child {
        return Ok(());
    }
    Err(LinkTypeRefusal {
        parent_type: parent.name.clone(),
        child_type: child.name.clone(),
        parent_allows: parent.child_type_names().cloned().collect(),
        child_allows: child.parent_type_names().cloned().collect(),
    })
}

/// Why a link parent → child may not exist: the first rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkRefusal {
    #[error("a resource cannot be its own child")]
    SelfLink,
    #[error("the link exists already")]
    Duplicate,
    #[error(transparent)]
    Types(Box<LinkTypeRefusal>),
    #[error("the child already reaches the parent, so the link would close a cycle")]
    Cycle,
}

/// What the link rules ask of the graph a link would join and of the
/// types of its ends: the store's answers inside a write, or an in-memory
/// graph's.
pub trait LinkFacts {
    /// Why an answer could not be had (the store failed).
    type Error;
    /// Is there a link `parent` → `child` already?
    fn linked(&mut self, parent: ResourceId, child: ResourceId) -> Result<bool, Self::Error>;
    /// The resolved types of `parent` and `child`.
    fn types(
        &mut self,
        parent: ResourceId,
        child: ResourceId,
    ) -> Result<(Arc<ResolvedType>, Arc<ResolvedType>), Self::Error>;
    /// Does a path of links lead from `from` down to `to` (or is it `to`)?
    fn reaches(&mut self, from: ResourceId, to: ResourceId) -> Result<bool, Self::Error>;
}

/// A link that passed every rule of [`admit_link`] against the facts it
/// was given; only that function makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmittedLink {
    parent: ResourceId,
    child: ResourceId,
}

impl AdmittedLink {
    /// The link of a child discovery found below `parent`, written in the
    /// same transaction as the child's new row: a new row has no parent
    /// and nothing below it, so the link can neither repeat one nor close
    /// a cycle, and the child's type was checked below the parent's when
    /// the answer was accepted (`registry`'s `children`, or the type's
    /// own rules for a placeholder). What is left to check is its ends.
    pub(crate) fn new_child(parent: ResourceId, child: ResourceId) -> Result<Self, LinkRefusal> {
        check_ends(parent, child, false)?;
        Ok(Self { parent, child })
    }

    /// Any link, unchecked: for the store's own tests, which show that
    /// the table refuses what the rules would have.
    #[cfg(test)]
    pub(crate) fn unchecked_for_test(parent: ResourceId, child: ResourceId) -> Self {
        Self { parent, child }
    }

    pub fn parent(&self) -> ResourceId {
        self.parent
    }

    pub fn child(&self) -> ResourceId {
        self.child
    }
}

/// The rules of a link's ends alone, decidable from the set of links
/// without types or walks: not its own child, not there already.
pub fn check_ends(
    parent: ResourceId,
    child: ResourceId,
    already_linked: bool,
) -> Result<(), LinkRefusal> {
    if parent == child {
        Err(LinkRefusal::SelfLink)
    } else if already_linked {
        Err(LinkRefusal::Duplicate)
    } else {
        Ok(())
    }
}

/// May the link `parent` → `child` exist? The rules in order — no self
/// link, no duplicate ([`check_ends`]), the types allow it
/// ([`check_link_types`]), the child does not already reach the parent
/// (the link would close a cycle) — each fact asked of `facts` only when
/// the rules before it passed. The outer error is a fact that could not
/// be had; the inner one the first rule the link breaks.
pub fn admit_link<F: LinkFacts>(
    parent: ResourceId,
    child: ResourceId,
    facts: &mut F,
) -> Result<Result<AdmittedLink, LinkRefusal>, F::Error> {
    let linked = parent != child && facts.linked(parent, child)?;
    if let Err(refusal) = check_ends(parent, child, linked) {
        return Ok(Err(refusal));
    }
    let (parent_type, child_type) = facts.types(parent, child)?;
    if let Err(rule) = check_link_types(&parent_type, &child_type) {
        return Ok(Err(LinkRefusal::Types(Box::new(rule))));
    }
    if facts.reaches(child, parent)? {
        return Ok(Err(LinkRefusal::Cycle));
    }
    Ok(Ok(AdmittedLink { parent, child }))
}

/// May all of `links` exist, added in this order? The answer
/// [`admit_link`] would give adding them one by one — the first link that
/// breaks a rule, with its index and the first rule it breaks — in time
/// linear in the batch and the graph below it, where one reachability
/// walk per link is quadratic on a chain.
///
/// The rules of the ends and the types are asked of `facts` per link (a
/// duplicate is one there already or earlier in the batch). The cycle
/// rule is decided for the whole batch at once from `below`: every link
/// already out of the batch's children and out of whatever is below
/// them — all a cycle closed by the batch can run through. `facts` is
/// never asked `reaches`.
#[allow(clippy::type_complexity)]
pub fn admit_links<F: LinkFacts>(
    links: &[(ResourceId, ResourceId)],
    below: &[(ResourceId, ResourceId)],
    facts: &mut F,
) -> Result<Result<Vec<AdmittedLink>, (usize, LinkRefusal)>, F::Error> {
    let mut batch: std::collections::HashSet<(ResourceId, ResourceId)> =
        std::collections::HashSet::with_capacity(links.len());
    let mut refusal = None;
    for (i, &(parent, child)) in links.iter().enumerate() {
        let linked =
            parent != child && (batch.contains(&(parent, child)) || facts.linked(parent, child)?);
        let rule = match check_ends(parent, child, linked) {
            Err(rule) => Some(rule),
            Ok(()) => {
                let (parent_type, child_type) = facts.types(parent, child)?;
                check_link_types(&parent_type, &child_type)
                    .err()
                    .map(|rule| LinkRefusal::Types(Box::new(rule)))
            }
        };
        if let Some(rule) = rule {
            refusal = Some((i, rule));
            break;
        }
        batch.insert((parent, child));
    }
    // Only the links before the first refused one are ever added.
    let passed = refusal.as_ref().map_or(links.len(), |(i, _)| *i);
    if let Some(i) = first_cycle(below, &links[..passed]) {
        return Ok(Err((i, LinkRefusal::Cycle)));
    }
    Ok(match refusal {
        Some(refused) => Err(refused),
        None => Ok(links
            .iter()
            .map(|&(parent, child)| AdmittedLink { parent, child })
            .collect()),
    })
}

/// The first of `links` that closes a cycle with `graph` (acyclic) and
/// the links before it; `None` when all of them together leave it
/// acyclic. One topological sort (Kahn's, linear) for the answer `None`,
/// the common one; a bisection over prefixes to name the link otherwise.
fn first_cycle(
    graph: &[(ResourceId, ResourceId)],
    links: &[(ResourceId, ResourceId)],
) -> Option<usize> {
    if acyclic(graph.iter().chain(links)) {
        return None;
    }
    // With `lo` links the graph is acyclic, with `hi` it is not.
    let (mut lo, mut hi) = (0, links.len());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if acyclic(graph.iter().chain(&links[..mid])) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi - 1)
}

/// Whether `edges` form no cycle: Kahn's topological sort, O(V + E),
/// with a worklist of its own.
fn acyclic<'e>(edges: impl Iterator<Item = &'e (ResourceId, ResourceId)>) -> bool {
    let mut index: std::collections::HashMap<ResourceId, usize> = std::collections::HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut into: Vec<usize> = Vec::new();
    let mut node = |id: ResourceId, out: &mut Vec<Vec<usize>>, into: &mut Vec<usize>| {
        *index.entry(id).or_insert_with(|| {
            out.push(Vec::new());
            into.push(0);
            out.len() - 1
        })
    };
    for &(parent, child) in edges {
        let (p, c) = (
            node(parent, &mut out, &mut into),
            node(child, &mut out, &mut into),
        );
        out[p].push(c);
        into[c] += 1;
    }
    let mut ready: Vec<usize> = (0..into.len()).filter(|&n| into[n] == 0).collect();
    let mut sorted = 0;
    while let Some(n) = ready.pop() {
        sorted += 1;
        for &c in &out[n] {
            into[c] -= 1;
            if into[c] == 0 {
                ready.push(c);
            }
        }
    }
    sorted == into.len()
}

#[cfg(test)]
mod admission_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
