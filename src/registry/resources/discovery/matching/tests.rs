use super::*;
use crate::model::ResourceId;
use serde_json::json;

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

/// A stored auto-discovered child `name` of `type_name` at `location`.
fn stored(n: u128, name: &str, type_name: &str, location: Option<&str>) -> ResourceRow {
    ResourceRow {
        location: location.map(str::to_owned),
        content_hash: Some(format!("stored-{n}")),
        ..ResourceRow::discovered_for_test(id(n), name, type_name)
    }
}

/// What a handler found now: like a stored row, with a fresh id (as
/// `child_rows` makes one), its own properties and hash.
fn found(stored_like: &ResourceRow, fresh: u128, hash: Option<&str>, visit: bool) -> FoundChild {
    let mut row = stored_like.clone();
    row.id = id(fresh);
    row.content_hash = hash.map(str::to_owned);
    FoundChild { row, visit }
}

/// The kept children: each one's place in the answer, what was found of
/// it, and the row to visit.
fn kept(matched: &Matched) -> Vec<(usize, &Refresh, Option<&ResourceRow>)> {
    let children = matched.children.iter().enumerate();
    children
        .filter_map(|(index, child)| match child {
            Child::Kept(refresh, visit) => Some((index, refresh, visit.as_ref())),
            Child::Added(_) => None,
        })
        .collect()
}

/// The added children, each with its place in the answer.
fn added(matched: &Matched) -> Vec<(usize, &FoundChild)> {
    let children = matched.children.iter().enumerate();
    children
        .filter_map(|(index, child)| match child {
            Child::Added(found) => Some((index, found)),
            Child::Kept(..) => None,
        })
        .collect()
}

#[test]
fn a_found_child_with_the_same_type_name_and_location_keeps_the_stored_id() {
    let old = stored(1, "p/src", "fs-directory", Some("/p/src"));
    let matched = match_children(
        std::slice::from_ref(&old),
        vec![found(&old, 9, Some("h"), false)],
    );
    assert!(added(&matched).is_empty() && matched.vanished.is_empty());
    let (index, refresh, _) = kept(&matched)[0];
    assert_eq!((index, refresh.id), (0, id(1)));
    assert_eq!(refresh.content_hash.as_deref(), Some("h"));
    assert_eq!(refresh.stored_hash.as_deref(), Some("stored-1"));
    assert!(!refresh.properties_changed);
}

#[test]
fn a_child_that_kept_its_name_but_moved_is_a_new_one_and_the_old_vanishes() {
    let old = stored(1, "p/src", "fs-directory", Some("/p/src"));
    let mut moved = found(&old, 9, None, true);
    moved.row.location = Some("/p/lib".into());
    let matched = match_children(std::slice::from_ref(&old), vec![moved]);
    assert!(kept(&matched).is_empty());
    assert_eq!(matched.vanished, [id(1)]);
    assert_eq!(added(&matched)[0].1.row.id, id(9));
    assert!(added(&matched)[0].1.visit);
}

#[test]
fn another_type_at_the_same_place_is_not_the_same_resource() {
    let old = stored(1, "p/x", "fs-directory", Some("/p/x"));
    let mut other = found(&old, 9, None, false);
    other.row.type_name = crate::model::TypeName::parse("fs-file").unwrap();
    let matched = match_children(std::slice::from_ref(&old), vec![other]);
    assert_eq!(matched.vanished, [id(1)]);
    assert_eq!(added(&matched).len(), 1);
}

#[test]
fn a_child_linked_by_hand_is_neither_matched_nor_vanishes() {
    let mut by_hand = stored(1, "p/src", "fs-directory", Some("/p/src"));
    by_hand.auto_discovered = false;
    let matched = match_children(std::slice::from_ref(&by_hand), vec![]);
    assert!(matched.vanished.is_empty());
    let matched = match_children(
        std::slice::from_ref(&by_hand),
        vec![found(&by_hand, 9, None, false)],
    );
    assert!(kept(&matched).is_empty() && matched.vanished.is_empty());
    assert_eq!(
        added(&matched).len(),
        1,
        "the found one is new (its name collides at the write)"
    );
}

#[test]
fn a_rediscovery_keeps_the_stored_hash_of_a_child_it_does_not_explore() {
    let old = stored(1, "p/main", "git-branch", None);
    let matched = match_children(
        std::slice::from_ref(&old),
        vec![found(&old, 9, None, false)],
    );
    let (_, refresh, visit) = kept(&matched)[0];
    assert_eq!(refresh.content_hash.as_deref(), Some("stored-1"));
    assert!(!refresh.answer_changed(), "nothing to write");
    assert!(visit.is_none());
}

#[test]
fn a_child_to_be_visited_is_hashed_afresh_not_given_the_stored_hash() {
    let old = stored(1, "p/src", "fs-directory", Some("/p/src"));
    let mut now = found(&old, 9, None, true);
    now.row.properties.insert("files".into(), json!(3));
    let matched = match_children(std::slice::from_ref(&old), vec![now]);
    let (_, refresh, visit) = kept(&matched)[0];
    assert_eq!(refresh.content_hash, None, "its visit asks its handler");
    assert!(refresh.properties_changed);
    let row = visit.expect("visited");
    assert_eq!(row.id, id(1), "the stored row is visited");
    assert_eq!(row.properties.get("files"), Some(&json!(3)));
}

#[test]
fn kept_and_added_children_carry_their_place_in_the_answer() {
    let a = stored(1, "p/a", "fs-directory", Some("/p/a"));
    let b = stored(2, "p/b", "fs-directory", Some("/p/b"));
    let mut new = found(&a, 8, None, false);
    new.row.name = Some(crate::model::ResourceName::parse("p/c").unwrap());
    new.row.location = Some("/p/c".into());
    let matched = match_children(
        &[a.clone(), b.clone()],
        vec![found(&b, 9, None, false), new, found(&a, 7, None, false)],
    );
    let kept: Vec<(usize, ResourceId)> = kept(&matched)
        .into_iter()
        .map(|(index, refresh, _)| (index, refresh.id))
        .collect();
    assert_eq!(kept, [(0, id(2)), (2, id(1))]);
    assert_eq!(added(&matched)[0].0, 1);
    assert!(matched.vanished.is_empty());
}
