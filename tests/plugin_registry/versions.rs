//! A plugin's versions over time: a lock file installs the same bytes
//! and notices a re-pushed tag; an update checks the registered resources
//! against the new types first.

use super::{
    HEALTHY_V1, new_publisher, packed_faulty, plugin_modules, push, registry, repo, run, trusting,
};
use crate::common::Env;

#[test]
fn a_locked_install_gets_identical_bytes_and_refuses_a_re_pushed_tag() {
    let Some(reg) = registry("locked install") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "faulty");
    let v1 = packed_faulty(&publisher, "v1", HEALTHY_V1);
    push(
        &publisher,
        &v1,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let first = trusting(&key, &reg.open);
    run(
        &first,
        &["plugin", "install", &format!("{reference}:1.0.0")],
        &[],
    )
    .ok();
    let lock = first.path("plugins.lock");
    run(
        &first,
        &["plugin", "lock", "--out", lock.to_str().unwrap()],
        &[],
    )
    .ok();

    let second = trusting(&key, &reg.open);
    run(
        &second,
        &["plugin", "install", "--locked", lock.to_str().unwrap()],
        &[],
    )
    .ok();
    let sha = |env: &Env| {
        run(env, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json()["sha256"].clone()
    };
    assert_eq!(sha(&first), sha(&second));

    // The tag now points at other bytes: the lock notices, names the plugin.
    let other = packed_faulty(
        &publisher,
        "v1b",
        &HEALTHY_V1.replace(
            "user_addable: true\n",
            "user_addable: true\ndescription: other bytes\n",
        ),
    );
    push(
        &publisher,
        &other,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let third = trusting(&key, &reg.open);
    run(
        &third,
        &["plugin", "install", "--locked", lock.to_str().unwrap()],
        &[],
    )
    .refused(&[
        "plugin test.faulty differs from the lock file",
        "now resolves to",
    ]);
    assert!(plugin_modules(&third).is_empty());
}

#[test]
fn an_update_that_breaks_a_resource_is_refused_and_one_adding_a_field_is_accepted() {
    let Some(reg) = registry("update") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "faulty");
    let v1 = packed_faulty(&publisher, "v1", HEALTHY_V1);
    push(
        &publisher,
        &v1,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let home = trusting(&key, &reg.open);
    run(
        &home,
        &["plugin", "install", &format!("{reference}:1.0.0")],
        &[],
    )
    .ok();
    home.mkdir("loc");
    run(
        &home,
        &[
            "resource",
            "add",
            "test/healthy",
            "local/a",
            "--path",
            home.path("loc").to_str().unwrap(),
        ],
        &[],
    )
    .ok();

    let breaking = HEALTHY_V1.replace(
        "required: true}\n",
        "required: true}\n  - {name: owner, type: string, required: true}\n",
    );
    let v2 = packed_faulty(&publisher, "v2", &breaking);
    push(
        &publisher,
        &v2,
        &format!("{reference}:2.0.0"),
        &["--sign", "team"],
    );
    let before = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    let dry = run(&home, &["plugin", "update", "--dry-run", "-o", "json"], &[]);
    dry.refused(&["local/a", "owner", "--force"]);
    run(&home, &["plugin", "update"], &[]).refused(&["resource local/a has no owner"]);
    let after = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    assert_eq!(before["sha256"], after["sha256"], "the old component stays");

    let adding = HEALTHY_V1.replace(
        "required: true}\n",
        "required: true}\n  - {name: notes, type: string}\n",
    );
    let v3 = packed_faulty(&publisher, "v3", &adding);
    push(
        &publisher,
        &v3,
        &format!("{reference}:3.0.0"),
        &["--sign", "team"],
    );
    let dry = run(&home, &["plugin", "update", "--dry-run", "-o", "json"], &[]).json();
    assert_eq!(dry[0]["to_version"], "3.0.0");
    assert_eq!(dry[0]["updated"], false);
    assert_eq!(
        dry[0]["types"],
        serde_json::json!([{"name": "test/healthy", "change": "changed"}])
    );
    let updated = run(&home, &["plugin", "update", "-o", "json"], &[]).json();
    assert_eq!(updated[0]["updated"], true);
    let shown = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    assert_eq!(
        shown["provenance"]["reference"],
        format!("{reference}:3.0.0")
    );
}
