//! The deadline holds whatever the guest is doing: computing (epoch
//! interruption) or waiting in the host (sleeping, polling, opening a
//! named pipe). An embedder's thread always comes back, and repeated
//! timeouts leave no threads or file descriptors behind. One test per
//! binary: it counts the process's threads and descriptors.

mod plugin_support;

use plugin_support::{Host, canonical, grant};
use resource_host::plugin::{CallErrorKind, Limits};
use std::time::Duration;

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
fn repeated_timeouts_in_host_calls_leave_nothing_behind() {
    let host = Host::new(Limits {
        timeout: Duration::from_millis(100),
        ..Limits::default()
    });
    let m = host.load("faulty", "test.faulty");
    let dir = tempfile::tempdir().unwrap();
    let args = vec![("path".to_owned(), canonical(dir.path()))];
    let sleep = || {
        let err = host
            .runtime
            .validate(&m, "Sleep", &args, &grant(dir.path()))
            .unwrap_err();
        assert!(matches!(err.kind, CallErrorKind::Timeout(_)), "{err}");
    };
    // Warm up: the engine, its ticker and the executor start once.
    sleep();
    let (threads, fds) = (count("/proc/self/task"), count("/proc/self/fd"));
    for _ in 0..20 {
        sleep();
    }
    assert!(
        count("/proc/self/task") <= threads,
        "threads grew from {threads} to {}",
        count("/proc/self/task")
    );
    assert!(
        count("/proc/self/fd") <= fds,
        "descriptors grew from {fds} to {}",
        count("/proc/self/fd")
    );
    // The runtime still answers.
    let ok = host
        .runtime
        .validate(&m, "Healthy", &args, &grant(dir.path()))
        .unwrap();
    assert_eq!(ok[0].1, "healthy validate");
}
