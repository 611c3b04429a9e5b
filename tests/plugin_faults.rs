//! The fault matrix: every misbehaviour of the `test.faulty` fixture ends
//! in its own labelled outcome naming module, class and operation, the
//! sandbox holds (no files outside the location, no env, no network), and
//! the same runtime answers the next call normally. Also: what
//! `describe` refuses at `agents plugin add`.

use crate::plugin_support;

use plugin_support::{Host, grant, keep_logs, logged, view, wasm};
use resource_host::plugin::{
    AnswerRefusal, CallError, CallErrorKind, Grant, HandlerError, Limits, LoadedModule, Operation,
    PlacementRefusal, PluginError, ResourceView,
};
use std::time::Duration;

const MODULE: &str = "test.faulty";

/// A runtime with default limits and the faulty component loaded.
fn faulty() -> (Host, LoadedModule) {
    faulty_with(Limits::default())
}

fn faulty_with(limits: Limits) -> (Host, LoadedModule) {
    keep_logs();
    let host = Host::new(limits);
    let m = host.load("faulty", MODULE);
    (host, m)
}

fn location() -> (tempfile::TempDir, ResourceView, Grant) {
    let dir = tempfile::tempdir().unwrap();
    let v = view(dir.path(), &[]);
    let g = grant(dir.path());
    (dir, v, g)
}

fn discover(host: &Host, m: &LoadedModule, class: &str) -> Result<usize, CallError> {
    let (_dir, v, g) = location();
    host.runtime.discover(m, class, &v, &g).map(|c| c.len())
}

fn inspect(host: &Host, m: &LoadedModule, class: &str, v: &ResourceView, g: &Grant) -> String {
    host.runtime.inspect(m, class, v, None, g).unwrap().text
}

/// The runtime that just contained a fault still answers normally.
fn still_works(host: &Host, m: &LoadedModule) {
    let props = host
        .runtime
        .validate(m, "Healthy", &[], &Grant::none())
        .unwrap();
    assert_eq!(
        props,
        vec![("report".to_owned(), "healthy validate".to_owned())]
    );
}

fn assert_names_the_call(err: &CallError, class: &str, operation: Operation) {
    assert_eq!((err.module.as_str(), err.class.as_str()), (MODULE, class));
    assert_eq!(err.operation, operation);
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("handler {MODULE}:{class} ")),
        "{text}"
    );
    assert!(text.contains(operation.as_str()), "{text}");
}

#[test]
fn a_panicking_handler_is_a_trap_quoting_its_panic_message() {
    let (host, m) = faulty();
    let err = host
        .runtime
        .validate(&m, "Panic", &[], &Grant::none())
        .unwrap_err();
    assert_names_the_call(&err, "Panic", Operation::Validate);
    let CallErrorKind::Trap(why) = &err.kind else {
        panic!("expected a trap, got {err}")
    };
    assert!(why.contains("deliberate panic during validate"), "{why}");
    still_works(&host, &m);
}

#[test]
fn an_unreachable_instruction_is_a_trap() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "Unreachable").unwrap_err();
    assert_names_the_call(&err, "Unreachable", Operation::Discover);
    assert!(
        matches!(&err.kind, CallErrorKind::Trap(why) if why.contains("unreachable")),
        "{err}"
    );
    still_works(&host, &m);
}

#[test]
fn an_endless_loop_times_out_at_the_configured_deadline() {
    // A short deadline: no test waits the default 10 s.
    let (host, m) = faulty_with(Limits {
        timeout: Duration::from_millis(500),
        ..Limits::default()
    });
    let err = discover(&host, &m, "Loop").unwrap_err();
    assert_eq!(err.kind, CallErrorKind::Timeout(Duration::from_millis(500)));
    assert_eq!(
        err.to_string(),
        "handler test.faulty:Loop timed out after 500ms during discover"
    );
    still_works(&host, &m);
}

#[test]
fn unbounded_allocation_runs_out_of_memory_at_the_cap() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "Hog").unwrap_err();
    assert_names_the_call(&err, "Hog", Operation::Discover);
    assert_eq!(err.kind, CallErrorKind::OutOfMemory { limit: 128 << 20 });
    assert!(
        err.to_string()
            .contains("ran out of memory during discover (limit 128 MiB; --handler-memory"),
        "{err}"
    );
    still_works(&host, &m);
}

#[test]
fn a_handler_error_is_reported_as_the_handlers_own_answer() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "Fails").unwrap_err();
    assert_eq!(
        err.kind,
        CallErrorKind::Handler(HandlerError::Failed(
            "deliberate failure during discover".into()
        ))
    );
    assert_eq!(
        err.to_string(),
        "handler test.faulty:Fails refused discover: failed: deliberate failure during discover"
    );
}

#[test]
fn a_stdout_flood_is_cut_at_the_bound_and_the_call_still_answers() {
    let (host, m) = faulty();
    let (_dir, v, g) = location();
    let answer = host.runtime.inspect(&m, "Flood", &v, None, &g).unwrap();
    assert_eq!(answer.text, "flooded during inspect");
    let kept: usize = logged("test.faulty:Flood inspect stdout: x")
        .iter()
        .map(|l| l.len() - "test.faulty:Flood inspect stdout: ".len())
        .sum();
    assert!(kept > 0 && kept <= 64 * 1024, "kept {kept} bytes of stdout");
    let total: u64 = 50 * 1024 * 1024;
    let dropped = logged("test.faulty:Flood inspect stdout: ")
        .into_iter()
        .find_map(|l| {
            l.split("stdout: ")
                .nth(1)?
                .strip_suffix(" more bytes dropped (bound 64 KiB)")
                .map(str::to_owned)
        })
        .expect("a line counting the dropped bytes");
    assert_eq!(dropped.parse::<u64>().unwrap(), total - 64 * 1024);
    assert!(!logged("test.faulty:Flood inspect stderr: flooded stdout during inspect").is_empty());
}

#[test]
fn a_million_children_are_refused_not_registered() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "TooManyChildren").unwrap_err();
    let CallErrorKind::RefusedResult(why) = &err.kind else {
        panic!("refused as a result: {err:?}");
    };
    assert_eq!(
        **why,
        AnswerRefusal::TooManyChildren {
            count: 1_000_000,
            max: 100_000
        }
    );
    let why = why.to_string();
    assert!(
        why.starts_with("1000000 children, more than the 100000 allowed")
            && why.contains("--handler-max-children"),
        "{why}"
    );
    still_works(&host, &m);
}

#[test]
fn a_twenty_megabyte_string_is_refused() {
    let (host, m) = faulty();
    let (_dir, v, g) = location();
    let err = host
        .runtime
        .content_hash(&m, "HugeString", &v, &g)
        .unwrap_err();
    assert_eq!(
        err.kind,
        CallErrorKind::RefusedResult(Box::new(AnswerRefusal::TooLong {
            what: "the content hash".into(),
            len: 20971520,
            max: 128
        }))
    );
    assert!(
        err.to_string()
            .ends_with("the content hash is 20971520 bytes, more than the 128 allowed"),
        "{err}"
    );
    let err = host
        .runtime
        .inspect(&m, "HugeString", &v, None, &g)
        .unwrap_err();
    assert!(matches!(err.kind, CallErrorKind::RefusedResult(_)), "{err}");
    still_works(&host, &m);
}

#[test]
fn a_child_type_that_is_not_a_type_name_is_refused() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "BadChildType").unwrap_err();
    let CallErrorKind::RefusedResult(why) = &err.kind else {
        panic!("{err}")
    };
    assert!(
        matches!(**why, AnswerRefusal::ChildTypeName { .. }),
        "{why:?}"
    );
    let why = why.to_string();
    assert!(
        why.starts_with("child 0: type name \"Not A Type!\" is not valid"),
        "{why}"
    );
}

#[test]
fn an_unknown_but_well_formed_child_type_is_left_to_the_registry() {
    let (host, m) = faulty();
    let (_dir, v, g) = location();
    let children = host
        .runtime
        .discover(&m, "UnknownChildType", &v, &g)
        .unwrap();
    assert_eq!(children[0].type_name.as_str(), "no-such/type");
}

#[test]
fn a_child_located_outside_the_resource_is_refused() {
    let (host, m) = faulty();
    let err = discover(&host, &m, "ChildOutside").unwrap_err();
    let CallErrorKind::RefusedResult(why) = &err.kind else {
        panic!("{err}")
    };
    assert!(
        matches!(
            **why,
            AnswerRefusal::Placement(PlacementRefusal::Outside { .. })
        ),
        "{why:?}"
    );
    let why = why.to_string();
    assert!(
        why.contains("\"/etc\" lies outside the resource's location"),
        "{why}"
    );
}

#[test]
fn log_lines_past_the_bound_are_dropped_and_counted() {
    let (host, m) = faulty();
    let props = host
        .runtime
        .validate(&m, "LogSpam", &[], &Grant::none())
        .unwrap();
    assert_eq!(props[0].1, "logged during validate");
    assert_eq!(logged("test.faulty:LogSpam validate: log line").len(), 1000);
    assert_eq!(
        logged("test.faulty:LogSpam validate: 99000 log lines dropped (bound 1000 per call)").len(),
        1
    );
}

#[cfg(unix)]
#[test]
fn reads_outside_the_location_all_fail_inside_the_guest() {
    let (host, m) = faulty();
    let outer = tempfile::tempdir().unwrap();
    let secret = outer.path().join("secret.txt");
    std::fs::write(&secret, "top secret").unwrap();
    let location = outer.path().join("resource");
    std::fs::create_dir(&location).unwrap();
    std::os::unix::fs::symlink(&secret, location.join("link")).unwrap();
    let secret = std::fs::canonicalize(&secret).unwrap();
    let v = view(&location, &[("secret", secret.to_str().unwrap())]);
    let report = inspect(&host, &m, "ReadOutside", &v, &grant(&location));
    let attempts: Vec<&str> = report.lines().collect();
    assert_eq!(attempts.len(), 7, "{report}");
    for attempt in [
        "/etc/passwd: refused",
        "list /: refused",
        "relative ../: refused",
        "location/..: refused",
        "absolute secret: refused",
        "location/../secret: refused",
        "symlink to secret: refused",
    ] {
        assert!(
            report.contains(attempt),
            "{attempt:?} missing in:\n{report}"
        );
    }
    assert!(!report.contains("ALLOWED"), "{report}");
}

#[test]
fn the_environment_is_empty_inside_the_guest() {
    let (host, m) = faulty();
    let (_dir, v, g) = location();
    let report = inspect(&host, &m, "ReadEnv", &v, &g);
    assert!(
        report.contains("environment: refused (no variables)"),
        "{report}"
    );
    assert!(
        report.contains("arguments: refused (no arguments)"),
        "{report}"
    );
    assert!(!report.contains("ALLOWED"), "{report}");
}

#[test]
fn tcp_udp_and_name_lookups_are_refused_inside_the_guest() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let (host, m) = faulty();
    let dir = tempfile::tempdir().unwrap();
    let v = view(dir.path(), &[("port", &port)]);
    let report = inspect(&host, &m, "Network", &v, &grant(dir.path()));
    assert!(
        report.contains("tcp connect 127.0.0.1: refused"),
        "{report}"
    );
    assert!(report.contains("dns lookup localhost: refused"), "{report}");
    assert!(report.contains("udp bind: refused"), "{report}");
    assert!(!report.contains("ALLOWED"), "{report}");
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the listener saw a connection: {accepted:?}"
    );
}

#[test]
fn describe_refuses_a_core_module() {
    let host = Host::new(Limits::default());
    // The smallest valid core module: magic and version 1, no sections.
    let err = host.runtime.describe(b"\0asm\x01\0\0\0").unwrap_err();
    assert!(matches!(err, PluginError::CoreModule), "{err}");
    assert!(
        err.to_string()
            .starts_with("a core WebAssembly module, not a component"),
        "{err}"
    );
}

#[test]
fn describe_refuses_garbage_bytes() {
    let host = Host::new(Limits::default());
    let err = host
        .runtime
        .describe(b"#!/bin/sh\necho not wasm\n")
        .unwrap_err();
    assert!(matches!(err, PluginError::NotWasm), "{err}");
    let mut truncated = wasm("python_package");
    truncated.truncate(truncated.len() / 2);
    let err = host.runtime.describe(&truncated).unwrap_err();
    assert!(matches!(err, PluginError::Invalid(_)), "{err}");
}

#[test]
fn describe_refuses_a_component_of_another_contract_version() {
    let host = Host::new(Limits::default());
    let err = host.runtime.describe(&wasm("other_world")).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PluginError::WrongWorld { .. }), "{text}");
    assert!(
        text.starts_with(
            "the component does not export a handler of a contract this host serves \
             (cleveragents:resource/handler@0.1.0, cleveragents:resource/handler@0.2.0)"
        ),
        "{text}"
    );
    assert!(
        text.contains("cleveragents:resource/handler@9.0.0"),
        "{text}"
    );
}

#[test]
fn describe_lists_every_fixture_class() {
    let host = Host::new(Limits::default());
    let info = host.runtime.describe(&wasm("faulty")).unwrap();
    assert_eq!(info.module.as_str(), MODULE);
    assert!(
        info.has_class("Loop") && info.has_class("Network"),
        "{info:?}"
    );
}
