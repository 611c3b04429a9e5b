//! [`admit_link`] against an in-memory graph: each rule's refusal, the
//! order they are applied in (each fact asked only while the link is still
//! admissible), and a property that admitting links one by one never
//! lets a cycle, a self link or a duplicate in — and refuses nothing the
//! rules allow.

use super::tests::{id, ty};
use super::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A graph of links and the type of each resource, answering the rules'
/// questions and noting which were asked.
#[derive(Default, Clone)]
struct Graph {
    links: BTreeSet<(ResourceId, ResourceId)>,
    types: BTreeMap<ResourceId, Arc<ResolvedType>>,
    asked: Vec<&'static str>,
    /// Fail the question of this name (a store that went away).
    failing: Option<&'static str>,
}

impl Graph {
    fn with_types(types: &[(u128, ResolvedType)]) -> Self {
        Self {
            types: types
                .iter()
                .map(|(n, t)| (id(*n), Arc::new(t.clone())))
                .collect(),
            ..Self::default()
        }
    }

    fn link(mut self, parent: u128, child: u128) -> Self {
        self.links.insert((id(parent), id(child)));
        self
    }

    fn ask(&mut self, question: &'static str) -> Result<(), String> {
        self.asked.push(question);
        match self.failing {
            Some(q) if q == question => Err(format!("{question}: the store went away")),
            _ => Ok(()),
        }
    }
}

impl LinkFacts for Graph {
    type Error = String;

    fn linked(&mut self, parent: ResourceId, child: ResourceId) -> Result<bool, String> {
        self.ask("linked")?;
        Ok(self.links.contains(&(parent, child)))
    }

    fn types(
        &mut self,
        parent: ResourceId,
        child: ResourceId,
    ) -> Result<(Arc<ResolvedType>, Arc<ResolvedType>), String> {
        self.ask("types")?;
        Ok((self.types[&parent].clone(), self.types[&child].clone()))
    }

    fn reaches(&mut self, from: ResourceId, to: ResourceId) -> Result<bool, String> {
        self.ask("reaches")?;
        let mut seen = BTreeSet::from([from]);
        let mut todo = vec![from];
        while let Some(at) = todo.pop() {
            if at == to {
                return Ok(true);
            }
            for &(p, c) in &self.links {
                if p == at && seen.insert(c) {
                    todo.push(c);
                }
            }
        }
        Ok(false)
    }
}

/// Three resources of a type that lists nothing.
fn free_graph() -> Graph {
    let free = ty(&["t/free"], &[], &[]);
    Graph::with_types(&[(1, free.clone()), (2, free.clone()), (3, free)])
}

fn admit(graph: &mut Graph, parent: u128, child: u128) -> Result<AdmittedLink, LinkRefusal> {
    admit_link(id(parent), id(child), graph).expect("every fact answered")
}

#[test]
fn a_self_link_is_refused_before_any_fact_is_asked() {
    let mut graph = free_graph();
    assert_eq!(admit(&mut graph, 1, 1), Err(LinkRefusal::SelfLink));
    assert!(graph.asked.is_empty(), "asked {:?}", graph.asked);
}

#[test]
fn a_duplicate_is_refused_before_the_types_are_looked_at() {
    let mut graph = free_graph().link(1, 2);
    assert_eq!(admit(&mut graph, 1, 2), Err(LinkRefusal::Duplicate));
    assert_eq!(graph.asked, ["linked"]);
}

#[test]
fn types_that_refuse_are_reported_before_any_walk_for_a_cycle() {
    let mut graph = Graph::with_types(&[
        (1, ty(&["t/dir"], &[], &["t/file"])),
        (2, ty(&["t/branch"], &[], &[])),
    ]);
    let Err(LinkRefusal::Types(rule)) = admit(&mut graph, 1, 2) else {
        panic!("the types refuse");
    };
    assert_eq!(rule.parent_type.as_str(), "t/dir");
    assert_eq!(rule.child_type.as_str(), "t/branch");
    assert_eq!(graph.asked, ["linked", "types"]);
}

#[test]
fn a_link_that_would_close_a_cycle_through_three_resources_is_refused() {
    let mut graph = free_graph().link(1, 2).link(2, 3);
    assert_eq!(admit(&mut graph, 3, 1), Err(LinkRefusal::Cycle));
    assert_eq!(graph.asked, ["linked", "types", "reaches"]);
}

#[test]
fn a_second_path_to_the_same_child_is_admitted_a_diamond_is_no_cycle() {
    let mut graph = free_graph().link(1, 2).link(2, 3);
    let admitted = admit(&mut graph, 1, 3).expect("admitted");
    assert_eq!((admitted.parent(), admitted.child()), (id(1), id(3)));
}

#[test]
fn a_fact_that_cannot_be_had_is_the_outer_error_not_a_refusal() {
    for question in ["linked", "types", "reaches"] {
        let mut graph = free_graph();
        graph.failing = Some(question);
        assert_eq!(
            admit_link(id(1), id(2), &mut graph),
            Err(format!("{question}: the store went away"))
        );
    }
}

#[test]
fn the_ends_alone_refuse_a_self_link_before_a_duplicate() {
    assert_eq!(check_ends(id(1), id(1), true), Err(LinkRefusal::SelfLink));
    assert_eq!(check_ends(id(1), id(2), true), Err(LinkRefusal::Duplicate));
    assert_eq!(check_ends(id(1), id(2), false), Ok(()));
}

/// Cases: a case is a few dozen admissions over at most 8 resources.
const CASES: u32 = 2048;
const MAX_RESOURCES: usize = 8;

/// Kahn's algorithm: do `links` leave no cycle?
fn acyclic(n: usize, links: &BTreeSet<(usize, usize)>) -> bool {
    let mut indegree = vec![0; n];
    for &(_, c) in links {
        indegree[c] += 1;
    }
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut done = 0;
    while let Some(v) = ready.pop() {
        done += 1;
        for &(p, c) in links {
            if p == v {
                indegree[c] -= 1;
                if indegree[c] == 0 {
                    ready.push(c);
                }
            }
        }
    }
    done == n
}

proptest! {
    #![proptest_config(crate::props::cases(CASES))]

    /// Resources of three types (one listing nothing, one whose children
    /// must be of the third, the third listing nothing); random links
    /// offered one by one to a graph that keeps what is admitted. Each
    /// answer is the first rule the link breaks, decided here without the
    /// function's help, and the graph stays a DAG.
    #[test]
    fn admitting_links_one_by_one_refuses_exactly_what_the_rules_refuse(
        kinds in prop::collection::vec(0..3usize, 1..=MAX_RESOURCES),
        offers in prop::collection::vec((0..MAX_RESOURCES, 0..MAX_RESOURCES), 0..40),
    ) {
        let n = kinds.len();
        let types = [
            ty(&["t/free"], &[], &[]),
            ty(&["t/dir"], &[], &["t/file"]),
            ty(&["t/file"], &[], &[]),
        ];
        let resources: Vec<(u128, ResolvedType)> = kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| (i as u128 + 1, types[k].clone()))
            .collect();
        let mut graph = Graph::with_types(&resources);
        let mut kept: BTreeSet<(usize, usize)> = BTreeSet::new();
        for (p, c) in offers.into_iter().map(|(p, c)| (p % n, c % n)) {
            let mut with = kept.clone();
            with.insert((p, c));
            let expected = if p == c {
                Err("self")
            } else if kept.contains(&(p, c)) {
                Err("duplicate")
            } else if kinds[p] == 1 && kinds[c] != 2 {
                Err("types")
            } else if !acyclic(n, &with) {
                Err("cycle")
            } else {
                Ok(())
            };
            let got = admit(&mut graph, p as u128 + 1, c as u128 + 1).map(|_| ()).map_err(
                |refusal| match refusal {
                    LinkRefusal::SelfLink => "self",
                    LinkRefusal::Duplicate => "duplicate",
                    LinkRefusal::Types(_) => "types",
                    LinkRefusal::Cycle => "cycle",
                },
            );
            prop_assert_eq!(got, expected, "offering {} → {}", p, c);
            if got.is_ok() {
                graph.links.insert((id(p as u128 + 1), id(c as u128 + 1)));
                kept = with;
            }
            prop_assert!(acyclic(n, &kept));
        }
    }

    #[test]
    fn admitting_a_batch_refuses_the_link_and_rule_that_one_by_one_would(
        kinds in prop::collection::vec(0..3usize, 1..=MAX_RESOURCES),
        before in prop::collection::vec((0..MAX_RESOURCES, 0..MAX_RESOURCES), 0..20),
        batch in prop::collection::vec((0..MAX_RESOURCES, 0..MAX_RESOURCES), 0..20),
    ) {
        let n = kinds.len();
        let types = [
            ty(&["t/free"], &[], &[]),
            ty(&["t/dir"], &[], &["t/file"]),
            ty(&["t/file"], &[], &[]),
        ];
        let resources: Vec<(u128, ResolvedType)> = kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| (i as u128 + 1, types[k].clone()))
            .collect();
        let mut graph = Graph::with_types(&resources);
        for (p, c) in before.into_iter().map(|(p, c)| (p % n, c % n)) {
            if admit(&mut graph, p as u128 + 1, c as u128 + 1).is_ok() {
                graph.links.insert((id(p as u128 + 1), id(c as u128 + 1)));
            }
        }
        let batch: Vec<(ResourceId, ResourceId)> = batch
            .into_iter()
            .map(|(p, c)| (id((p % n) as u128 + 1), id((c % n) as u128 + 1)))
            .collect();
        // One by one, stopping at the first refusal, as an import did.
        let mut one_by_one = graph.clone();
        let mut expected = Ok(batch.len());
        for (i, &(p, c)) in batch.iter().enumerate() {
            match admit_link(p, c, &mut one_by_one).unwrap() {
                Ok(_) => {
                    one_by_one.links.insert((p, c));
                }
                Err(refusal) => {
                    expected = Err((i, refusal));
                    break;
                }
            }
        }
        let below: Vec<_> = graph.links.iter().copied().collect();
        graph.asked.clear();
        let got = admit_links(&batch, &below, &mut graph)
            .unwrap()
            .map(|admitted| admitted.len());
        prop_assert_eq!(got, expected);
        prop_assert!(!graph.asked.contains(&"reaches"), "the batch walks nothing per link");
    }
}
