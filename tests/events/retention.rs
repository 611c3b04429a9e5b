//! What stays: pruning removes only older events and never reuses a
//! number, and the `events.keep` setting keeps the newest and refuses
//! nonsense.

use super::{events, seqs};
use crate::common::Env;

#[test]
fn pruning_removes_only_older_events_and_never_reuses_a_number() {
    let env = Env::new();
    for i in 0..5 {
        let dir = env.mkdir(&format!("d{i}"));
        env.add("fs-directory", &format!("local/d{i}"), &dir, &[])
            .ok();
    }
    let pruned = env
        .run(&["events", "prune", "--before", "3", "-o", "json"])
        .json();
    assert_eq!(pruned["removed"], 2);
    assert_eq!(seqs(&events(&env, &[])), [3, 4, 5]);
    // Everything pruned: the next event is still 6.
    env.run(&["events", "prune", "--before", "100"]).ok();
    assert!(events(&env, &[]).is_empty());
    env.run(&["resource", "remove", "local/d0"]).ok();
    assert_eq!(seqs(&events(&env, &[])), [6]);
    // Pruning by time: nothing is older than the year 2000.
    env.run(&["events", "prune", "--before", "2000-01-01"]).ok();
    assert_eq!(seqs(&events(&env, &[])), [6]);
    env.run(&["events", "prune", "--before", "yesterday"])
        .usage(&["neither an event number nor a time"]);
    env.run(&["events", "--op", "resource.exploded"])
        .usage(&["not an event operation", "resource.registered"]);
    env.run(&["events", "--type", "planet"])
        .usage(&["not an event kind"]);
}

#[test]
fn the_keep_setting_keeps_the_newest_events_and_refuses_nonsense() {
    let env = Env::new();
    for i in 0..4 {
        let dir = env.mkdir(&format!("d{i}"));
        env.add("fs-directory", &format!("local/d{i}"), &dir, &[])
            .ok();
    }
    env.run(&["registry", "settings", "events.keep"])
        .ok()
        .contains("(not set)")
        .then_some(())
        .unwrap();
    env.run(&["registry", "settings", "events.keep", "2"]).ok();
    // The setting's own change is an event (5); the newest two stay.
    let kept = events(&env, &[]);
    assert_eq!(seqs(&kept), [4, 5]);
    assert_eq!(kept[1]["op"], "settings.changed");
    assert_eq!(
        kept[1]["changes"]["events.keep"],
        serde_json::json!({"before": null, "after": "2"})
    );
    let shown = env
        .run(&["registry", "settings", "events.keep", "-o", "json"])
        .json();
    assert_eq!(shown["value"], "2");
    env.run(&["registry", "settings", "events.keep", "90d"])
        .ok();
    // Everything here is younger than 90 days.
    assert_eq!(seqs(&events(&env, &[])), [4, 5, 6]);
    for bad in ["0", "90h", "1.5", "lots"] {
        env.run(&["registry", "settings", "events.keep", bad])
            .refused(&["not a value for events.keep"]);
    }
    env.run(&["registry", "settings", "colour", "red"])
        .refused(&["not a registry setting"]);
    env.run(&["registry", "settings", "events.keep", "--unset"])
        .ok();
    assert_eq!(seqs(&events(&env, &[])).last(), Some(&7));
}
