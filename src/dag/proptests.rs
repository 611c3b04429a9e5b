//! Property test of [`removal`] on its own, from several roots at once
//! (what a rediscovery that drops children asks; `remove` asks with one,
//! which `registry`'s property covers through the store).
//!
//! Random DAGs of up to 12 resources (edges only from a lower to a higher
//! number, so acyclic by construction; ids shuffled, so that id order is
//! not a topological order), random auto-discovered flags and random
//! roots; the edges handed in are the links into the roots'
//! descendants, as the store's walk supplies them. The reference takes
//! the roots, then any auto-discovered resource with parents all of
//! which go, until nothing changes, over the whole graph.

use super::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Cases: a case is well under a millisecond of work in a debug build
/// (4096 cases: ~0.3 s).
const CASES: u32 = 4096;
const MAX_RESOURCES: usize = 12;

#[derive(Debug, Clone)]
struct Case {
    edges: BTreeSet<(usize, usize)>,
    auto: Vec<bool>,
    roots: Vec<usize>,
    /// The id of resource `n` is `ids[n]`.
    ids: Vec<u128>,
}

fn case() -> impl Strategy<Value = Case> {
    (1..=MAX_RESOURCES).prop_flat_map(|n| {
        (
            prop::collection::vec((0..n, 0..n), 0..=3 * n),
            prop::collection::vec(prop::bool::weighted(0.7), n),
            prop::collection::vec(0..n, 1..=3),
            Just((1..=n as u128).collect::<Vec<_>>()).prop_shuffle(),
        )
            .prop_map(|(pairs, auto, roots, ids)| Case {
                edges: pairs
                    .into_iter()
                    .filter(|(a, b)| a != b)
                    .map(|(a, b)| (a.min(b), a.max(b)))
                    .collect(),
                auto,
                roots,
                ids,
            })
    })
}

impl Case {
    fn id(&self, n: usize) -> ResourceId {
        ResourceId::from_ulid(ulid::Ulid(self.ids[n]))
    }

    fn parents(&self, n: usize) -> Vec<usize> {
        self.edges
            .iter()
            .filter(|e| e.1 == n)
            .map(|e| e.0)
            .collect()
    }

    /// The roots and everything below them.
    fn below_roots(&self) -> BTreeSet<usize> {
        let mut below: BTreeSet<usize> = self.roots.iter().copied().collect();
        let mut todo: Vec<usize> = self.roots.clone();
        while let Some(at) = todo.pop() {
            for &(p, c) in &self.edges {
                if p == at && below.insert(c) {
                    todo.push(c);
                }
            }
        }
        below
    }

    /// (what goes, the hand-registered resources that lose a link).
    fn reference(&self) -> (BTreeSet<usize>, BTreeSet<usize>) {
        let mut going: BTreeSet<usize> = self.roots.iter().copied().collect();
        loop {
            let more: Vec<usize> = (0..self.auto.len())
                .filter(|n| self.auto[*n] && !going.contains(n))
                .filter(|n| {
                    let parents = self.parents(*n);
                    !parents.is_empty() && parents.iter().all(|p| going.contains(p))
                })
                .collect();
            if more.is_empty() {
                break;
            }
            going.extend(more);
        }
        let unlinked = self
            .edges
            .iter()
            .filter(|(p, c)| going.contains(p) && !going.contains(c) && !self.auto[*c])
            .map(|e| e.1)
            .collect();
        (going, unlinked)
    }
}

proptest! {
    #![proptest_config(crate::props::cases(CASES))]

    #[test]
    fn removal_from_any_roots_takes_exactly_the_documented_set(case in case()) {
        let id = |n: usize| case.id(n);
        let below = case.below_roots();
        let edges: Vec<(ResourceId, ResourceId)> = case
            .edges
            .iter()
            .filter(|e| below.contains(&e.1))
            .map(|&(p, c)| (id(p), id(c)))
            .collect();
        let auto: BTreeMap<ResourceId, bool> =
            below.iter().map(|&n| (id(n), case.auto[n])).collect();
        let roots: Vec<ResourceId> = case.roots.iter().map(|&n| id(n)).collect();
        let got = removal(&roots, &edges, &auto);

        let (going, unlinked) = case.reference();
        let mut first: Vec<ResourceId> = Vec::new();
        for root in &roots {
            if !first.contains(root) {
                first.push(*root);
            }
        }
        prop_assert_eq!(&got.going[..first.len()], &first[..], "the roots first, once each");
        prop_assert_eq!(
            got.going.iter().copied().collect::<BTreeSet<_>>(),
            going.iter().map(|&n| id(n)).collect::<BTreeSet<_>>()
        );
        prop_assert_eq!(got.going.len(), going.len(), "each once");
        for (i, n) in got.going.iter().enumerate().skip(first.len()) {
            for &(p, c) in &edges {
                if c == *n {
                    prop_assert!(got.going[..i].contains(&p), "{n} before its parent {p}");
                }
            }
        }
        let mut want: Vec<ResourceId> = unlinked.iter().map(|&n| id(n)).collect();
        want.sort();
        prop_assert_eq!(got.unlinked, want, "sorted, once each");
    }
}
