//! Which compiler compiles a component, and that every limit holds under
//! Winch as under Cranelift: a component of at least
//! `Compiler::WINCH_THRESHOLD` bytes is Winch's (where this build has
//! it), a smaller one Cranelift's, each cached under its own engine's
//! compatibility; the `test.faulty` fixture forced through Winch traps,
//! times out and runs out of memory with the same labelled outcomes.
//!
//! The big component is the faulty fixture with a custom section that
//! brings it over the threshold (custom sections carry no code, as debug
//! information does not), so Winch compiles it in a fraction of a second.

use crate::common;
use crate::plugin_support::{Host, canonical, grant, wasm};
use resource_host::plugin::{
    CallErrorKind, Compiler, Grant, Limits, LoadOrigin, Operation, PluginError, PluginRuntime,
};
use std::time::Duration;

const MODULE: &str = "test.faulty";

/// `component` with a custom section appended that brings it to at least
/// `size` bytes.
fn padded(component: &[u8], size: usize) -> Vec<u8> {
    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    let name = b"padding";
    let mut body = Vec::new();
    leb(name.len(), &mut body);
    body.extend_from_slice(name);
    body.resize(body.len() + size.saturating_sub(component.len()), 0);
    let mut out = component.to_vec();
    out.push(0); // a custom section
    leb(body.len(), &mut out);
    out.extend_from_slice(&body);
    out
}

fn big_faulty() -> Vec<u8> {
    padded(&wasm("faulty"), Compiler::WINCH_THRESHOLD as usize)
}

/// Whether Winch is in this build; says so when the test cannot run.
fn winch_built_in(test: &str) -> bool {
    if !Compiler::WINCH_AVAILABLE {
        common::skipped(
            test,
            "this build has no Winch (the `winch` feature on x86_64)",
        );
    }
    Compiler::WINCH_AVAILABLE
}

fn healthy(host: &Host, m: &resource_host::plugin::LoadedModule) {
    let props = host
        .runtime
        .validate(m, "Healthy", &[], &Grant::none())
        .unwrap();
    assert_eq!(props[0].1, "healthy validate");
}

#[test]
fn a_big_component_is_compiled_by_winch_and_a_small_one_by_cranelift() {
    if !winch_built_in("a_big_component_is_compiled_by_winch_and_a_small_one_by_cranelift") {
        return;
    }
    let big = big_faulty();
    assert!(big.len() as u64 >= Compiler::WINCH_THRESHOLD);
    let host = Host::new(Limits::default());
    let small = host.load("faulty", MODULE);
    assert_eq!(small.compiler(), Compiler::Cranelift);
    let large = host.load_bytes(&big, "test.big");
    assert_eq!(large.compiler(), Compiler::Winch);
    assert_eq!(large.origin(), LoadOrigin::Compiled);
    healthy(&host, &small);
    healthy(&host, &large);

    // A new runtime over the same cache finds each entry under the engine
    // that compiles that component.
    let again = Host::in_home(host.home, Limits::default());
    let small = again.load("faulty", MODULE);
    let large = again.load_bytes(&big, "test.big");
    assert_eq!(
        (small.compiler(), small.origin()),
        (Compiler::Cranelift, LoadOrigin::DiskCache)
    );
    assert_eq!(
        (large.compiler(), large.origin()),
        (Compiler::Winch, LoadOrigin::DiskCache)
    );
    healthy(&again, &large);
    let entry = |runtime: &resource_host::plugin::PluginRuntime, sha: &str, size: usize| {
        runtime.cache_entry_path(sha, size as u64).unwrap().unwrap()
    };
    let big_entry = entry(&again.runtime, large.sha256(), big.len());
    let small_entry = entry(&again.runtime, small.sha256(), wasm("faulty").len());
    let compat = |p: &std::path::Path| {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        name.rsplit_once('-').unwrap().1.to_owned()
    };
    assert!(big_entry.is_file() && small_entry.is_file());
    assert_ne!(compat(&big_entry), compat(&small_entry));
}

#[test]
fn a_forced_compiler_compiles_every_component_and_reuses_no_code_of_the_other() {
    if !winch_built_in("a_forced_compiler_compiles_every_component_and_reuses_no_code_of_the_other")
    {
        return;
    }
    let big = big_faulty();
    let host = Host::new(Limits::default());
    assert_eq!(
        host.load_bytes(&big, "test.big").compiler(),
        Compiler::Winch
    );

    let cranelift = Host::in_home(host.home, Limits::default());
    let cranelift = Host {
        runtime: cranelift.runtime.with_compiler(Compiler::Cranelift),
        ..cranelift
    };
    let m = cranelift.load_bytes(&big, "test.big");
    assert_eq!(
        (m.compiler(), m.origin()),
        (Compiler::Cranelift, LoadOrigin::Compiled)
    );
    healthy(&cranelift, &m);

    let winch = Host::with_compiler(Limits::default(), Compiler::Winch);
    let m = winch.load("faulty", MODULE);
    assert_eq!(m.compiler(), Compiler::Winch);
    healthy(&winch, &m);
}

/// The faulty fixture, compiled by Winch.
fn winch_faulty(limits: Limits) -> (Host, resource_host::plugin::LoadedModule) {
    let host = Host::with_compiler(limits, Compiler::Winch);
    let m = host.load("faulty", MODULE);
    assert_eq!(m.compiler(), Compiler::Winch);
    (host, m)
}

fn discover(
    host: &Host,
    m: &resource_host::plugin::LoadedModule,
    class: &str,
) -> resource_host::plugin::CallError {
    let dir = tempfile::tempdir().unwrap();
    let view = crate::plugin_support::view(dir.path(), &[]);
    host.runtime
        .discover(m, class, &view, &grant(dir.path()))
        .unwrap_err()
}

#[test]
fn under_winch_traps_are_named_with_module_class_and_operation() {
    if !winch_built_in("under_winch_traps_are_named_with_module_class_and_operation") {
        return;
    }
    let (host, m) = winch_faulty(Limits::default());
    let err = host
        .runtime
        .validate(&m, "Panic", &[], &Grant::none())
        .unwrap_err();
    assert_eq!((err.module.as_str(), err.class.as_str()), (MODULE, "Panic"));
    assert_eq!(err.operation, Operation::Validate);
    let CallErrorKind::Trap(why) = &err.kind else {
        panic!("expected a trap, got {err}")
    };
    assert!(why.contains("deliberate panic during validate"), "{why}");
    assert!(
        err.to_string().starts_with("handler test.faulty:Panic "),
        "{err}"
    );

    let err = discover(&host, &m, "Unreachable");
    assert_eq!(err.class, "Unreachable");
    assert_eq!(err.operation, Operation::Discover);
    assert!(
        matches!(&err.kind, CallErrorKind::Trap(why) if why.contains("unreachable")),
        "{err}"
    );
    healthy(&host, &m);
}

#[test]
fn under_winch_an_endless_loop_times_out_at_the_deadline() {
    if !winch_built_in("under_winch_an_endless_loop_times_out_at_the_deadline") {
        return;
    }
    let (host, m) = winch_faulty(Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    });
    let err = discover(&host, &m, "Loop");
    assert_eq!(
        err.to_string(),
        "handler test.faulty:Loop timed out after 300ms during discover"
    );
    healthy(&host, &m);
}

#[test]
fn under_winch_a_guest_sleeping_in_a_host_call_times_out() {
    if !winch_built_in("under_winch_a_guest_sleeping_in_a_host_call_times_out") {
        return;
    }
    let (host, m) = winch_faulty(Limits {
        timeout: Duration::from_millis(100),
        ..Limits::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let args = vec![("path".to_owned(), canonical(dir.path()))];
    let err = host
        .runtime
        .validate(&m, "Sleep", &args, &grant(dir.path()))
        .unwrap_err();
    assert_eq!(err.kind, CallErrorKind::Timeout(Duration::from_millis(100)));
    healthy(&host, &m);
}

#[test]
fn under_winch_unbounded_allocation_runs_out_of_memory_at_the_cap() {
    if !winch_built_in("under_winch_unbounded_allocation_runs_out_of_memory_at_the_cap") {
        return;
    }
    let (host, m) = winch_faulty(Limits {
        memory_bytes: 32 << 20,
        ..Limits::default()
    });
    let err = discover(&host, &m, "Hog");
    assert_eq!(err.class, "Hog");
    assert_eq!(err.kind, CallErrorKind::OutOfMemory { limit: 32 << 20 });
    assert!(
        err.to_string()
            .contains("ran out of memory during discover (limit 32 MiB"),
        "{err}"
    );
    healthy(&host, &m);
}

/// A component whose one core module makes a tail call (`return_call`):
/// valid for Cranelift, a proposal Winch does not compile.
fn tail_calling() -> Vec<u8> {
    let module: &[u8] = &[
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // a core module
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // one type: [] -> []
        0x03, 0x03, 0x02, 0x00, 0x00, // two functions of it
        0x0a, 0x09, 0x02, // their code:
        0x04, 0x00, 0x12, 0x01, 0x0b, // return_call 1
        0x02, 0x00, 0x0b, // nothing
    ];
    let mut component = b"\0asm\x0d\0\x01\0".to_vec();
    component.push(0x01); // a core module section
    component.push(module.len() as u8);
    component.extend_from_slice(module);
    component
}

#[test]
fn a_big_component_winch_cannot_compile_is_compiled_by_cranelift_once() {
    if !winch_built_in("a_big_component_winch_cannot_compile_is_compiled_by_cranelift_once") {
        return;
    }
    let small = tail_calling();
    let winch = Host::with_compiler(Limits::default(), Compiler::Winch);
    let refused = winch.runtime.accept(&small).unwrap_err();
    assert!(matches!(refused, PluginError::Invalid(_)), "{refused}");

    let big = padded(&small, Compiler::WINCH_THRESHOLD as usize);
    let host = Host::new(Limits::default());
    // It compiles (and is then refused for exporting no handler).
    let err = host.runtime.accept(&big).unwrap_err();
    assert!(matches!(err, PluginError::WrongWorld { .. }), "{err}");
    let sha = resource_host::digest::sha256_hex(&big);
    let entries = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".cwasm"))
            .collect();
        names.sort();
        names
    };
    let cranelift = PluginRuntime::new(host.cache_dir(), Limits::default())
        .with_compiler(Compiler::Cranelift)
        .cache_entry_path(&sha, big.len() as u64)
        .unwrap()
        .unwrap();
    let name = cranelift
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(entries(&host.cache_dir()), vec![name.clone()]);

    // The next runtime uses that entry: no second Winch attempt, and no
    // second compile.
    let again = Host::in_home(host.home, Limits::default());
    let inode =
        |p: &std::path::Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let before = inode(&cranelift);
    let err = again.runtime.accept(&big).unwrap_err();
    assert!(matches!(err, PluginError::WrongWorld { .. }), "{err}");
    assert_eq!(entries(&again.cache_dir()), vec![name]);
    assert_eq!(inode(&cranelift), before, "the entry was written again");
}
