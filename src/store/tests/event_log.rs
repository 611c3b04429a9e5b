//! The event log (`store::events`), on both backends: numbered gap-free,
//! pruned without lowering the high-water mark, found by subject, name
//! prefix and time.

use super::*;

fn event<'a>(at: &'a str, name: &'a str, actor: &'a crate::model::Actor) -> NewEvent<'a> {
    NewEvent {
        at,
        op: "resource.registered",
        kind: "resource",
        subject_id: Some(name),
        subject_name: Some(name),
        related_id: None,
        changes: None,
        actor,
    }
}

on_both_backends! {
fn events_are_numbered_gap_free_and_share_their_writes_first_number(mut store: Store) {
    let alice = crate::model::Actor::new(crate::model::Face::Cli, "alice");
    let t = "2026-01-01T00:00:00.000Z";
    let seqs = store
        .write(|w| {
            let a = w.record(&event(t, "local/a", &alice))?;
            let b = w.record(&event(t, "local/b", &alice))?;
            Ok::<_, StoreError>((a, b))
        })
        .unwrap();
    assert_eq!(seqs, (1, 2));
    // A rolled-back write and a rehearsal take no number.
    let failed: Result<(), StoreError> = store.write(|w| {
        w.record(&event(t, "local/c", &alice))?;
        Err(StoreError::Corrupt { what: "test".into(), reason: "roll back".into() })
    });
    assert!(failed.is_err());
    store.rehearse(|w| w.record(&event(t, "local/d", &alice))).unwrap();
    let third = store.write(|w| w.record(&event(t, "local/e", &alice))).unwrap();
    assert_eq!(third, 3);
    let rows = store
        .read(|r| r.events(&EventSelect { limit: 10, ..EventSelect::default() }))
        .unwrap();
    let got: Vec<(i64, i64, Option<&str>)> = rows
        .iter()
        .map(|e| (e.seq, e.txn, e.subject_name.as_deref()))
        .collect();
    assert_eq!(got, [(1, 1, Some("local/a")), (2, 1, Some("local/b")), (3, 3, Some("local/e"))]);
    assert_eq!(rows[0].actor, alice);
    assert_eq!(store.read(|r| r.last_event_seq()).unwrap(), 3);
}

fn pruning_keeps_the_high_water_mark(mut store: Store) {
    let bob = crate::model::Actor::new(crate::model::Face::Mcp, "bob/1");
    for at in ["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"] {
        store.write(|w| w.record(&event(at, "local/x", &bob))).unwrap();
    }
    let removed = store
        .write(|w| w.prune_events(None, Some("2026-02-01T00:00:00.000Z")))
        .unwrap();
    assert_eq!(removed, 1);
    let removed = store.write(|w| w.prune_events(Some(10), None)).unwrap();
    assert_eq!(removed, 2);
    assert_eq!(store.read(|r| r.last_event_seq()).unwrap(), 3);
    let next = store
        .write(|w| w.record(&event("2026-04-01T00:00:00.000Z", "local/y", &bob)))
        .unwrap();
    assert_eq!(next, 4);
}

fn events_are_found_by_subject_name_prefix_and_time(mut store: Store) {
    let carol = crate::model::Actor::new(crate::model::Face::Python, "carol");
    store
        .write(|w| {
            w.record(&event("2026-01-01T00:00:00.000Z", "local/p", &carol))?;
            w.record(&event("2026-01-02T00:00:00.000Z", "local/p/child", &carol))?;
            w.record(&event("2026-01-03T00:00:00.000Z", "local/p0", &carol))?;
            w.record(&event("2026-01-04T00:00:00.000Z", "local/q", &carol))
        })
        .unwrap();
    let names = |select: EventSelect| -> Vec<String> {
        store
            .read(|r| r.events(&EventSelect { limit: 100, ..select }))
            .unwrap()
            .into_iter()
            .map(|e| e.subject_name.unwrap())
            .collect()
    };
    let below = names(EventSelect {
        names: vec!["local/p".into()],
        prefixes: vec!["local/p/".into()],
        ..EventSelect::default()
    });
    assert_eq!(below, ["local/p", "local/p/child"]);
    let recent = names(EventSelect {
        from_at: Some("2026-01-03T00:00:00.000Z".into()),
        newest_first: true,
        ..EventSelect::default()
    });
    assert_eq!(recent, ["local/q", "local/p0"]);
}
}
