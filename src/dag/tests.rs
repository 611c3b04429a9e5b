use super::*;
use crate::model::{ResourceKind, SandboxStrategy, Sourced, SourcedCapabilities};
use std::collections::BTreeMap;

pub(super) fn name(n: &str) -> TypeName {
    TypeName::parse(n).unwrap()
}

fn sourced<T>(value: T) -> Sourced<T> {
    Sourced { value, from: None }
}

/// A resolved type with `chain` (self first) and the given lists.
pub(super) fn ty(chain: &[&str], parents: &[&str], children: &[&str]) -> ResolvedType {
    ResolvedType {
        name: name(chain[0]),
        chain: chain.iter().map(|n| name(n)).collect(),
        built_in: false,
        description: sourced(String::new()),
        kind: sourced(ResourceKind::Physical),
        sandbox_strategy: sourced(SandboxStrategy::None),
        user_addable: sourced(true),
        cli_args: vec![],
        parent_types: parents.iter().map(|n| sourced(name(n))).collect(),
        child_types: children.iter().map(|n| sourced(name(n))).collect(),
        handler: None,
        capabilities: SourcedCapabilities {
            read: sourced(true),
            write: sourced(false),
            sandbox: sourced(false),
            checkpoint: sourced(false),
        },
        auto_discovery: None,
        equivalence: None,
    }
}

pub(super) fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

#[test]
fn types_that_list_nothing_link_freely() {
    assert!(check_link_types(&ty(&["a/x"], &[], &[]), &ty(&["a/y"], &[], &[])).is_ok());
}

#[test]
fn a_parent_listing_the_child_type_allows_the_link_and_its_subtypes() {
    let dir = ty(&["fs-directory"], &["fs-mount"], &["fs-file"]);
    let file = ty(&["fs-file"], &["fs-directory"], &[]);
    let special = ty(&["a/special-file", "fs-file"], &[], &[]);
    assert!(check_link_types(&dir, &file).is_ok());
    assert!(check_link_types(&dir, &special).is_ok());
}

#[test]
fn a_child_naming_its_parent_type_attaches_below_a_built_in() {
    let checkout = ty(&["git-checkout"], &[], &["git", "fs-directory"]);
    let package = ty(
        &["myteam/python-package"],
        &["git-checkout"],
        &["fs-directory"],
    );
    assert!(check_link_types(&checkout, &package).is_ok());
}

#[test]
fn a_restricting_side_refuses_what_neither_side_declares() {
    let git = ty(&["git"], &[], &["git-branch"]);
    let dir = ty(&["fs-directory"], &[], &[]);
    let err = check_link_types(&git, &dir).unwrap_err();
    assert_eq!(err.parent_allows, vec![name("git-branch")]);
    let text = err.to_string();
    assert!(text.contains("git allows children: git-branch"), "{text}");
    assert!(text.contains("fs-directory allows parents: any"), "{text}");
    let branch = ty(&["git-branch"], &["git"], &[]);
    assert!(check_link_types(&dir, &branch).is_err());
}

#[test]
fn unfold_marks_a_node_reached_twice_instead_of_repeating_it() {
    // 1 → 2 → 4, 1 → 3 → 4
    let edges = [
        (id(1), id(2)),
        (id(1), id(3)),
        (id(2), id(4)),
        (id(3), id(4)),
    ];
    let tree = unfold(id(1), &edges, &|_| true, MAX_TREE_DEPTH).unwrap();
    assert_eq!(tree.children.len(), 2);
    assert!(!tree.children[0].children[0].repeated);
    assert!(tree.children[1].children[0].repeated);
}

#[test]
fn unfold_keeps_only_paths_that_lead_to_kept_nodes() {
    let edges = [(id(1), id(2)), (id(2), id(3)), (id(1), id(4))];
    let tree = unfold(id(1), &edges, &|n| n == id(3), MAX_TREE_DEPTH).unwrap();
    assert_eq!(tree.children.len(), 1);
    assert_eq!(tree.children[0].id, id(2));
    assert_eq!(tree.children[0].children[0].id, id(3));
}

#[test]
fn unfold_walks_a_chain_of_a_hundred_thousand_links_without_recursing() {
    // A call frame per level would overflow the test thread's stack here.
    let edges: Vec<_> = (0..100_000u128).map(|n| (id(n), id(n + 1))).collect();
    assert_eq!(
        unfold(id(0), &edges, &|_| true, MAX_TREE_DEPTH),
        Err(TooDeep {
            limit: MAX_TREE_DEPTH
        })
    );
    let mut node = unfold(id(0), &edges[..60], &|_| true, MAX_TREE_DEPTH).unwrap();
    let mut depth = 0;
    while let Some(child) = node.children.pop() {
        node = child;
        depth += 1;
    }
    assert_eq!((depth, node.id), (60, id(60)), "exactly the limit is shown");
}

#[test]
fn unfold_counts_the_depth_it_unfolds_not_the_shortest_path() {
    // Every node is one link below the root, and a chain joins them: the
    // walk that unfolds the chain goes as deep as the chain.
    let mut edges: Vec<_> = (1..=100u128).map(|n| (id(0), id(n))).collect();
    edges.extend((1..100u128).map(|n| (id(n), id(n + 1))));
    assert!(unfold(id(0), &edges, &|_| true, MAX_TREE_DEPTH).is_err());
    assert!(unfold(id(0), &edges, &|_| true, 100).is_ok());
}

#[test]
fn removal_takes_discovered_children_no_other_parent_keeps() {
    // 1 → 2 (auto) → 3 (auto): both go with 1.
    // 1 → 6 (auto) ← 5 (user): 5 keeps 6. 1 → 7 (user): 7 stays, unlinked.
    let edges = [
        (id(1), id(2)),
        (id(2), id(3)),
        (id(1), id(6)),
        (id(5), id(6)),
        (id(1), id(7)),
    ];
    let auto = BTreeMap::from([
        (id(1), false),
        (id(2), true),
        (id(3), true),
        (id(6), true),
        (id(7), false),
    ]);
    let removal = removal(&[id(1)], &edges, &auto);
    assert_eq!(removal.going, vec![id(1), id(2), id(3)]);
    assert_eq!(removal.unlinked, vec![id(7)]);
}

#[test]
fn removal_reaches_a_fixpoint_through_diamonds() {
    // 1 → 2, 1 → 3, 2 → 4, 3 → 4 (all auto): all go.
    let edges = [
        (id(1), id(2)),
        (id(1), id(3)),
        (id(3), id(4)),
        (id(2), id(4)),
    ];
    let auto = BTreeMap::from([(id(1), false), (id(2), true), (id(3), true), (id(4), true)]);
    let mut going = removal(&[id(1)], &edges, &auto).going;
    going.sort();
    assert_eq!(going, vec![id(1), id(2), id(3), id(4)]);
}

#[test]
fn removal_from_several_roots_takes_what_only_they_kept() {
    // 1 → 3 (auto), 2 → 3 (auto), 2 → 4 (auto), 9 → 4: removing 1 and 2
    // takes 3; 4 stays with 9.
    let edges = [
        (id(1), id(3)),
        (id(2), id(3)),
        (id(2), id(4)),
        (id(9), id(4)),
    ];
    let auto = BTreeMap::from([(id(1), true), (id(2), true), (id(3), true), (id(4), true)]);
    let removal = removal(&[id(1), id(2)], &edges, &auto);
    assert_eq!(removal.going, vec![id(1), id(2), id(3)]);
    assert!(removal.unlinked.is_empty());
}
