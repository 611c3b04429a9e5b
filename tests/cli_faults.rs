//! The fault matrix through the real binary: every misbehaving handler
//! class of `plugins/fixtures/faulty` gets a distinct, labelled error that
//! names module, class and operation; the process exits normally (1, not a
//! signal); and the registry is byte-for-byte what it was.

use crate::common;
use crate::common::{Env, wasm};

use crate::common::faulty_home;

/// `resource add` of the class's type, with a short deadline for the
/// class that loops (the others must fail for their own reason, not the
/// clock, however loaded the machine is).
fn add(env: &Env, class: &str, extra: &[&str]) -> common::Run {
    let ty = format!("test/{}", class.to_lowercase());
    let loc = env.path("loc");
    let mut args = vec![
        "--handler-timeout",
        if class == "Loop" { "1" } else { "30" },
        "resource",
        "add",
        &ty,
        "local/x",
        "--path",
        loc.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    env.run(&args)
}

const CASES: &[(&str, &[&str])] = &[
    (
        "Panic",
        &[
            "handler test.faulty:Panic trapped during validate",
            "deliberate panic",
        ],
    ),
    (
        "Unreachable",
        &["handler test.faulty:Unreachable trapped during validate"],
    ),
    (
        "Loop",
        &["handler test.faulty:Loop timed out after 1s during validate"],
    ),
    (
        "Hog",
        &[
            "handler test.faulty:Hog ran out of memory during validate",
            "128 MiB",
        ],
    ),
    (
        "Fails",
        &[
            "handler test.faulty:Fails refused validate",
            "deliberate failure during validate",
        ],
    ),
    (
        "HugeString",
        &["handler test.faulty:HugeString answered validate with a result the host refuses"],
    ),
    (
        "TooManyChildren",
        &["handler test.faulty:TooManyChildren answered discover with a result the host refuses"],
    ),
    (
        "BadChildType",
        &["handler test.faulty:BadChildType answered discover with a result the host refuses"],
    ),
    (
        "UnknownChildType",
        &[
            "handler test.faulty:UnknownChildType answered discover with a result the host refuses",
            "no-such/type is not a registered type",
        ],
    ),
    (
        "ChildOutside",
        &[
            "handler test.faulty:ChildOutside answered discover with a result the host refuses",
            "/etc",
        ],
    ),
];

#[test]
fn every_fault_is_labelled_and_leaves_the_registry_as_it_was() {
    let classes: Vec<&str> = CASES.iter().map(|(c, _)| *c).collect();
    let env = faulty_home(&classes);
    let before = env.state();
    for (class, parts) in CASES {
        let out = add(&env, class, &[]);
        out.refused(parts);
        assert_eq!(env.state(), before, "{class} changed the registry");
    }
    // The same home keeps working afterwards.
    let dir = env.mkdir("plain");
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/plain",
        "--path",
        dir.to_str().unwrap(),
    ])
    .ok();
}

#[test]
fn the_four_failure_kinds_read_differently() {
    let labels: Vec<&str> = [
        "trapped",
        "timed out",
        "ran out of memory",
        "refused validate",
        "result the host refuses",
    ]
    .to_vec();
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(!a.contains(b) && !b.contains(a));
        }
    }
    let kinds: Vec<&str> = CASES
        .iter()
        .filter_map(|(_, parts)| labels.iter().find(|l| parts[0].contains(*l)).copied())
        .collect();
    for label in labels {
        assert!(kinds.contains(&label), "no case shows {label}");
    }
}

#[test]
fn a_stdout_flood_is_bounded_and_shown_only_in_the_log() {
    let env = faulty_home(&["Flood"]);
    let out = add(&env, "Flood", &["-vv"]);
    out.ok();
    assert!(
        out.stdout.len() < 1024,
        "stdout: {} bytes",
        out.stdout.len()
    );
    assert!(
        out.stderr.contains("test.faulty:Flood validate"),
        "{}",
        &out.stderr[..out.stderr.len().min(2000)]
    );
    assert!(
        out.stderr.len() < 1 << 20,
        "log: {} bytes",
        out.stderr.len()
    );
    let quiet = env
        .run(&["resource", "show", "local/x", "-o", "json"])
        .json();
    assert_eq!(quiet["properties"]["report"], "flooded during validate");
}

#[test]
fn reads_outside_the_location_env_and_network_all_fail_inside_the_sandbox() {
    let env = faulty_home(&["ReadOutside", "ReadEnv", "Network"]);
    let secret = env.write("secret.txt", "top secret\n");
    std::os::unix::fs::symlink(&secret, env.path("loc/link")).unwrap();
    add(&env, "ReadOutside", &["--secret", secret.to_str().unwrap()]).ok();
    // `inspect` runs the probe again with the resource in view.
    let report = env.run(&["resource", "inspect", "local/x"]).ok().to_owned();
    for attempt in [
        "/etc/passwd",
        "relative ../",
        "absolute secret",
        "location/../secret",
        "symlink to secret",
    ] {
        assert!(report.contains(&format!("{attempt}: refused")), "{report}");
    }
    assert!(!report.contains("ALLOWED"), "{report}");

    env.run(&["resource", "remove", "local/x"]).ok();
    let out = env
        .command()
        .env("AGENTS_TEST_SECRET", "hunter2")
        .args(["resource", "add", "test/readenv", "local/x", "--path"])
        .arg(env.path("loc"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = env
        .run(&["resource", "show", "local/x", "-o", "json"])
        .json()["properties"]["report"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        report.contains("environment: refused (no variables)"),
        "{report}"
    );
    assert!(
        !report.contains("hunter2") && !report.contains("ALLOWED"),
        "{report}"
    );

    env.run(&["resource", "remove", "local/x"]).ok();
    add(&env, "Network", &[]).ok();
    let report = env.run(&["resource", "inspect", "local/x"]).ok().to_owned();
    assert!(!report.contains("ALLOWED"), "{report}");
    assert!(report.contains("refused"), "{report}");
}

#[test]
fn plugin_add_refuses_what_is_not_a_component_of_our_world() {
    let env = Env::new();
    env.run(&["resource", "type", "list"]).ok();
    let before = env.state();
    let garbage = env.write("garbage.wasm", "this is not wasm at all");
    let core = env.path("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let cases: Vec<(std::path::PathBuf, &[&str])> = vec![
        (garbage, &["not a WebAssembly file"]),
        (core, &["a core WebAssembly module, not a component"]),
        (
            wasm("other_world.wasm"),
            &[
                "does not export a handler of a contract this host serves",
                "cleveragents:resource/handler@0.1.0",
                "it exports: cleveragents:resource/handler@9.0.0",
            ],
        ),
        (env.path("missing.wasm"), &["missing.wasm"]),
    ];
    for (file, parts) in cases {
        env.run(&["plugin", "add", file.to_str().unwrap()])
            .refused(parts);
        assert_eq!(
            env.state(),
            before,
            "{} changed the registry",
            file.display()
        );
    }
    let stored = std::fs::read_dir(env.home.path().join("plugins"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0, "a refused plugin left a file in the store");
}
