//! Property test of the DAG: random sequences of registrations,
//! discoveries, links, unlinks and removals through a real in-memory
//! registry, with a reference graph (plain sets of nodes and edges) kept
//! alongside.
//!
//! After every step the registry must hold exactly the reference's
//! resources and links: never a cycle, never a link to a resource that is
//! gone. A link is refused exactly when the reference says so, for the
//! first reason in the registry's documented order — a self link, a
//! duplicate, types that do not allow it (`dag::check_link_types`'s rule,
//! restated here), a cycle (the child already reaches the parent) — and
//! the refusal names both resources. A removal takes exactly the
//! documented set (`dag::removal`): the resource, then every
//! auto-discovered resource all of whose parents go, to a fixpoint;
//! hand-registered children stay and are reported as unlinked. A dry run
//! reports the same and changes nothing. Naming a removed resource is
//! refused as not found, and changes nothing.
//!
//! Three types make the type rule bite: `g/node` lists nothing; `g/sub`
//! inherits it and names `g/node` as its parent type; `g/box` allows only
//! `g/sub` children and, having a discovery rule but no handler, gets a
//! placeholder `g/sub` child when registered — the auto-discovered
//! resources the public API makes. Deeper discovered resources are
//! written as discovery writes them (an auto-discovered row and link).

use super::*;
use crate::model::{ResourceId, ResourceKey};
use crate::registry::{LinksError, ResourcesError};
use proptest::prelude::*;
use proptest::sample::Index;
use std::collections::{BTreeMap, BTreeSet};

mod graph;

use graph::{Graph, Kind};

/// Cases: each opens an in-memory registry and runs up to 6 + [`MAX_OPS`]
/// operations, each followed by a full comparison; about 35 ms in a
/// debug build (128 cases: ~4.5 s).
const CASES: u32 = 128;
const MAX_OPS: usize = 60;
/// Resources in one registry at most: small graphs, many steps.
const MAX_RESOURCES: usize = 12;

const TYPES: [&str; 3] = [
    "name: g/node\nresource_kind: physical\nuser_addable: true\n",
    "name: g/sub\ninherits: g/node\nparent_types: [g/node]\n",
    "name: g/box\nresource_kind: physical\nuser_addable: true\nchild_types: [g/sub]\n\
     auto_discovery:\n  enabled: true\n  rules:\n    - {type: g/sub, pattern: \"*\"}\n",
];

#[derive(Debug, Clone)]
enum Op {
    Add(Kind),
    /// An auto-discovered `g/sub` below the picked resource.
    Discover(Index),
    Link(Index, Index),
    /// Unlink a pair that is most likely not linked.
    Unlink(Index, Index),
    /// Unlink an existing link.
    UnlinkSome(Index),
    Remove {
        target: Index,
        dry_run: bool,
    },
    /// Name a removed resource: as a link's parent or child, in an unlink,
    /// or in a removal.
    Gone {
        live: Index,
        gone: Index,
        how: u8,
    },
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::Node), Just(Kind::Sub), Just(Kind::Box)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => kind().prop_map(Op::Add),
        4 => any::<Index>().prop_map(Op::Discover),
        10 => (any::<Index>(), any::<Index>()).prop_map(|(p, c)| Op::Link(p, c)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(p, c)| Op::Unlink(p, c)),
        2 => any::<Index>().prop_map(Op::UnlinkSome),
        3 => (any::<Index>(), any::<bool>())
            .prop_map(|(target, dry_run)| Op::Remove { target, dry_run }),
        1 => (any::<Index>(), any::<Index>(), 0..4u8)
            .prop_map(|(live, gone, how)| Op::Gone { live, gone, how }),
    ]
}

/// Write an auto-discovered `g/sub` below `parent`, as discovery does.
fn discover(r: &mut Registry, parent: ResourceId, n: usize) -> ResourceId {
    let id = r.ids.next_id(r.clock.now());
    super::tests::insert_discovered(r, parent, id, &format!("local/found-{n}"), "g/sub");
    id
}

fn label(r: &Registry, id: ResourceId) -> String {
    r.store
        .read(|rd| rd.resource_by_id(id))
        .unwrap()
        .map_or_else(|| id.to_string(), |row| row.label())
}

/// The registry holds exactly the reference graph, with no cycle and no
/// dangling link.
fn check_state(r: &Registry, g: &Graph) -> Result<(), TestCaseError> {
    let (rows, children) = r
        .store
        .read(|rd| Ok::<_, RegistryError>((rd.resources(None)?, rd.all_links()?.0)))
        .unwrap();
    let held: BTreeMap<ResourceId, bool> = rows
        .iter()
        .map(|row| (row.id, row.auto_discovered))
        .collect();
    let want: BTreeMap<ResourceId, bool> = g.nodes.iter().map(|n| (n.0, n.2)).collect();
    prop_assert_eq!(&held, &want);
    let links: BTreeSet<(ResourceId, ResourceId)> = children
        .iter()
        .flat_map(|(p, cs)| cs.iter().map(move |c| (*p, *c)))
        .collect();
    for (p, c) in &links {
        prop_assert!(
            held.contains_key(p) && held.contains_key(c),
            "dangling link {p} → {c}"
        );
    }
    prop_assert_eq!(&links, &g.edges);
    // Kahn's algorithm empties an acyclic graph.
    let mut left = links.clone();
    let mut taken: BTreeSet<ResourceId> = BTreeSet::new();
    while let Some(free) = held
        .keys()
        .find(|id| !taken.contains(*id) && !left.iter().any(|e| e.1 == **id))
    {
        taken.insert(*free);
        left.retain(|e| e.0 != *free);
    }
    prop_assert!(left.is_empty(), "a cycle: {left:?}");
    Ok(())
}

/// An operation the reference says must succeed.
fn done<T>(got: Result<T, RegistryError>, what: &str) -> Result<T, TestCaseError> {
    got.map_err(|e| TestCaseError::fail(format!("{what} refused: {e}")))
}

/// A refusal names the resources it is about.
fn assert_names(err: &RegistryError, labels: &[&str]) -> Result<(), TestCaseError> {
    let msg = err.to_string();
    for l in labels {
        prop_assert!(msg.contains(l), "{msg:?} does not name {l}");
    }
    Ok(())
}

fn step(r: &mut Registry, g: &mut Graph, op: &Op, n: usize) -> Result<(), TestCaseError> {
    match op {
        Op::Add(kind) => {
            let placeholder = usize::from(*kind == Kind::Box);
            if g.nodes.len() + 1 + placeholder > MAX_RESOURCES {
                return Ok(());
            }
            let added = done(
                r.register_resource(
                    NewResource {
                        type_name: kind.type_name().into(),
                        name: Some(format!("local/r-{n}")),
                        ..NewResource::default()
                    },
                    Default::default(),
                ),
                "registering",
            )?;
            let id = added.resource_id;
            g.nodes.push((id, *kind, false));
            let children = r.store.read(|rd| rd.children_of(id)).unwrap();
            prop_assert_eq!(children.len(), placeholder, "a box gets one placeholder");
            for child in children {
                g.nodes.push((child, Kind::Sub, true));
                g.edges.insert((id, child));
            }
        }
        Op::Discover(parent) => {
            let Some(parent) = g.pick(parent).filter(|_| g.nodes.len() < MAX_RESOURCES) else {
                return Ok(());
            };
            let id = discover(r, parent, n);
            g.nodes.push((id, Kind::Sub, true));
            g.edges.insert((parent, id));
        }
        Op::Link(p, c) => {
            let (Some(p), Some(c)) = (g.pick(p), g.pick(c)) else {
                return Ok(());
            };
            let (pl, cl) = (label(r, p), label(r, c));
            let got = r.link_child(&p.into(), &c.into());
            match got {
                Ok(link) => {
                    prop_assert!(
                        p != c
                            && !g.edges.contains(&(p, c))
                            && Kind::may_link(g.kind(p), g.kind(c))
                            && !g.reaches(c, p),
                        "linked {pl} → {cl} against the rules"
                    );
                    prop_assert_eq!((link.parent_id, link.child_id), (p, c));
                    g.edges.insert((p, c));
                }
                Err(e) => {
                    let expected = if p == c {
                        matches!(e, RegistryError::Links(LinksError::SelfLink { .. }))
                    } else if g.edges.contains(&(p, c)) {
                        matches!(e, RegistryError::Links(LinksError::DuplicateLink { .. }))
                    } else if !Kind::may_link(g.kind(p), g.kind(c)) {
                        matches!(e, RegistryError::Links(LinksError::IncompatibleLink { .. }))
                    } else {
                        g.reaches(c, p)
                            && matches!(e, RegistryError::Links(LinksError::Cycle { .. }))
                    };
                    prop_assert!(expected, "{pl} → {cl} refused as: {e}");
                    assert_names(&e, &[&pl, &cl])?;
                }
            }
        }
        Op::Unlink(p, c) => {
            let (Some(p), Some(c)) = (g.pick(p), g.pick(c)) else {
                return Ok(());
            };
            unlink(r, g, p, c)?;
        }
        Op::UnlinkSome(edge) => {
            let edges: Vec<_> = g.edges.iter().copied().collect();
            if let Some(&(p, c)) = (!edges.is_empty()).then(|| &edges[edge.index(edges.len())]) {
                unlink(r, g, p, c)?;
            }
        }
        Op::Gone { live, gone, how } => {
            let (Some(live), false) = (g.pick(live), g.gone.is_empty()) else {
                return Ok(());
            };
            let gone = g.gone[gone.index(g.gone.len())];
            let (l, x) = (ResourceKey::from(live), ResourceKey::from(gone));
            let err = match how {
                0 => r.link_child(&l, &x).map(|_| ()),
                1 => r.link_child(&x, &l).map(|_| ()),
                2 => r.unlink_child(&x, &l),
                _ => r.remove_resource(&x, RemoveOptions::default()).map(|_| ()),
            };
            let Err(err) = err else {
                return Err(TestCaseError::fail(format!(
                    "{op:?} on removed {gone}: done"
                )));
            };
            prop_assert!(
                matches!(&err, RegistryError::Resources(ResourcesError::ResourceNotFound { key }) if *key == x),
                "{err}"
            );
            assert_names(&err, &[&gone.to_string()])?;
        }
        Op::Remove { target, dry_run } => {
            let Some(root) = g.pick(target) else {
                return Ok(());
            };
            let report = done(
                r.remove_resource(
                    &root.into(),
                    RemoveOptions {
                        dry_run: *dry_run,
                        ..RemoveOptions::default()
                    },
                ),
                "removing",
            )?;
            let (going, unlinked) = g.removal(root);
            let removed: Vec<ResourceId> = report.removed.iter().map(|x| x.resource_id).collect();
            prop_assert_eq!(
                removed.first(),
                Some(&root),
                "the resource itself goes first"
            );
            prop_assert_eq!(&removed.iter().copied().collect::<BTreeSet<_>>(), &going);
            prop_assert_eq!(removed.len(), going.len(), "each once");
            for (i, id) in removed.iter().enumerate().skip(1) {
                for parent in g.parents(*id) {
                    prop_assert!(removed[..i].contains(&parent), "{id} before its parent");
                }
            }
            let reported: BTreeSet<ResourceId> =
                report.unlinked.iter().map(|x| x.resource_id).collect();
            prop_assert_eq!(&reported, &unlinked);
            prop_assert_eq!(report.unlinked.len(), unlinked.len(), "each once");
            if !dry_run {
                g.remove(&going);
            }
        }
    }
    Ok(())
}

fn unlink(
    r: &mut Registry,
    g: &mut Graph,
    p: ResourceId,
    c: ResourceId,
) -> Result<(), TestCaseError> {
    let (pl, cl) = (label(r, p), label(r, c));
    match r.unlink_child(&ResourceKey::from(p), &ResourceKey::from(c)) {
        Ok(()) => prop_assert!(g.edges.remove(&(p, c)), "unlinked {pl} → {cl}, not linked"),
        Err(e) => {
            prop_assert!(
                !g.edges.contains(&(p, c))
                    && matches!(e, RegistryError::Links(LinksError::NotLinked { .. })),
                "{pl} → {cl} not unlinked: {e}"
            );
            assert_names(&e, &[&pl, &cl])?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::props::cases(CASES))]

    /// A few resources are registered first, so that most operations
    /// find something to work on.
    #[test]
    fn the_registry_keeps_the_dag_of_a_reference_graph_through_random_operations(
        first in prop::collection::vec(kind(), 2..=6),
        ops in prop::collection::vec(op(), 1..=MAX_OPS)
    ) {
        let mut r = Registry::open_in_memory().unwrap();
        for (i, text) in TYPES.iter().enumerate() {
            r.register_type_text(text, &format!("g{i}.yaml"), RegisterTypeOptions::default()).unwrap();
        }
        let mut g = Graph::default();
        let first = first.into_iter().map(Op::Add);
        for (n, op) in first.chain(ops).enumerate() {
            step(&mut r, &mut g, &op, n)?;
            check_state(&r, &g)?;
        }
    }
}
