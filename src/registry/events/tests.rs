//! The log through the library: retention applied on write, once in
//! `retention::EVERY` events, keeps what the setting says and nothing
//! less; a dry run and a refusal record nothing.

use crate::registry::recording::retention::EVERY;
use crate::registry::tests::{dir_request, key};
use crate::registry::{EventQuery, Registry, RemoveOptions};

fn dir(reg: &mut Registry, name: &str, path: &std::path::Path) {
    std::fs::create_dir_all(path).unwrap();
    let request = dir_request(name, path);
    reg.register_resource(request, Default::default()).unwrap();
}

fn all(reg: &Registry) -> Vec<i64> {
    reg.events(&EventQuery {
        limit: Some(10_000),
        ..EventQuery::default()
    })
    .unwrap()
    .iter()
    .map(|e| e.seq)
    .collect()
}

#[test]
fn retention_on_write_keeps_the_newest_events_the_setting_names() {
    let tmp = tempfile::tempdir().unwrap();
    let mut reg = Registry::open_in_memory().unwrap();
    dir(&mut reg, "local/a", &tmp.path().join("a"));
    dir(&mut reg, "local/b", &tmp.path().join("b"));
    reg.set_registry_setting("events.keep", Some("10")).unwrap();
    // 3 events so far (two registrations, the setting), all kept.
    assert_eq!(all(&reg), [1, 2, 3]);
    while reg.last_event_seq().unwrap() < EVERY - 1 {
        reg.link_child(&key("local/a"), &key("local/b")).unwrap();
        reg.unlink_child(&key("local/a"), &key("local/b")).unwrap();
    }
    // Not pruned yet: retention runs when an event's number is a
    // multiple of EVERY.
    assert_eq!(all(&reg).len() as i64, EVERY - 1);
    reg.link_child(&key("local/a"), &key("local/b")).unwrap();
    let kept = all(&reg);
    assert_eq!(kept, ((EVERY - 9)..=EVERY).collect::<Vec<_>>());
    // The numbers go on.
    reg.unlink_child(&key("local/a"), &key("local/b")).unwrap();
    assert_eq!(reg.last_event_seq().unwrap(), EVERY + 1);
}

#[test]
fn a_dry_run_and_a_refusal_record_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let mut reg = Registry::open_in_memory().unwrap();
    dir(&mut reg, "local/a", &tmp.path().join("a"));
    dir(&mut reg, "local/b", &tmp.path().join("b"));
    reg.link_child(&key("local/a"), &key("local/b")).unwrap();
    let before = reg.last_event_seq().unwrap();
    assert!(reg.link_child(&key("local/b"), &key("local/a")).is_err());
    reg.remove_resource(&key("local/a"), RemoveOptions::dry_run())
        .unwrap();
    assert!(reg.set_registry_setting("events.keep", Some("0")).is_err());
    assert_eq!(reg.last_event_seq().unwrap(), before);
}

#[test]
fn a_follower_knows_the_events_this_process_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let mut reg = Registry::open_in_memory().unwrap();
    let poll = std::time::Duration::from_millis(10);
    let mut every = reg.follow_events(EventQuery::default(), poll).unwrap();
    let mut others = reg
        .follow_events(EventQuery::default(), poll)
        .unwrap()
        .others_only();
    dir(&mut reg, "local/a", &tmp.path().join("a"));
    let wait = std::time::Duration::from_secs(5);
    let batch = every.next_batch(&reg, wait).unwrap();
    assert!(!batch.is_empty());
    assert!(batch.iter().all(|e| every.written_here(e)), "{batch:?}");
    // The same events, left out by a follower of the others' only.
    assert_eq!(others.next_batch(&reg, poll).unwrap(), []);
    assert_eq!(others.last_seq(), every.last_seq());
}
