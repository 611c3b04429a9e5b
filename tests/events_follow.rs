//! Following the log live: `agents events --follow` in
//! one process prints what another process writes, within a second, on
//! either backend (`AGENTS_TEST_BACKEND=postgres`: woken by `NOTIFY`);
//! with the same filters as `agents events`; and it ends cleanly on
//! Ctrl-C, on a closed stdout (`| head`) and after `--limit` events.
//!
//! Nothing here sleeps and then asserts: every wait is on the follower's
//! own output (or exit), with a deadline.

use crate::common::{Env, backend, skipped};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The most a follower may take to print an event another process
/// committed (docs/events.md: "within the second either way").
const WITHIN: Duration = Duration::from_secs(1);
/// How long a test waits for what should come far sooner (a process
/// starting, exiting) before it fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `agents events --follow -o json …` and its lines.
struct Follower {
    child: Child,
    lines: Receiver<String>,
}

impl Follower {
    fn start(env: &Env, args: &[&str]) -> Self {
        let mut cmd = env.command();
        cmd.args(["events", "--follow", "-o", "json"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    /// The next event it prints, waiting at most `within`.
    fn next(&self, within: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(within).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad line {e}: {line}")))
    }

    /// Its exit status, waiting at most `within` for it.
    fn exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        wait_exit(&mut self.child, within)
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Register `name` (a directory of its own) in a process of its own;
/// when that process has exited, its write has committed.
fn add(env: &Env, name: &str) -> Instant {
    let dir = env.mkdir(name.rsplit('/').next().unwrap());
    env.add("fs-directory", name, &dir, &[]).ok();
    Instant::now()
}

/// The follower is looking: the event of a write made before it started
/// (`--since` it) has come out.
fn started(env: &Env, args: &[&str]) -> Follower {
    add(env, "local/before");
    let mut all = vec!["--since", "0"];
    all.extend_from_slice(args);
    let follower = Follower::start(env, &all);
    let first = follower
        .next(PATIENCE)
        .expect("the follower printed nothing");
    assert_eq!(first["name"], "local/before", "{first}");
    follower
}

#[test]
fn a_follower_prints_another_processs_write_within_a_second() {
    let env = Env::new();
    let follower = started(&env, &[]);
    for name in ["local/one", "local/two", "local/three"] {
        let committed = add(&env, name);
        let event = follower
            .next(WITHIN)
            .unwrap_or_else(|| panic!("{name}: nothing within {WITHIN:?} ({})", backend()));
        let seen = committed.elapsed();
        assert!(seen <= WITHIN, "{name} seen after {seen:?}");
        assert_eq!(event["op"], "resource.registered", "{event}");
        assert_eq!(event["name"], name, "{event}");
        assert_eq!(event["via"], "cli", "{event}");
    }
    // Each event once, in order: nothing more came.
    assert!(follower.next(Duration::from_millis(300)).is_none());
}

#[test]
fn a_follower_keeps_to_its_filters_and_stops_after_its_limit() {
    let env = Env::new();
    add(&env, "local/watched");
    // From the registration on, so the writes below are after its start
    // whenever it starts.
    let since = env.count("SELECT MAX(seq) FROM events").to_string();
    let mut follower = Follower::start(
        &env,
        &[
            "--since",
            &since,
            "--resource",
            "local/watched",
            "--op",
            "resource.removed",
            "--limit",
            "1",
        ],
    );
    // A write it must not print, then one it must: the first line is the
    // second write's (the filter held), and it ends after one.
    add(&env, "local/other");
    env.run(&["resource", "remove", "local/other"]).ok();
    env.run(&["resource", "remove", "local/watched"]).ok();
    let event = follower.next(PATIENCE).expect("nothing printed");
    assert_eq!(event["op"], "resource.removed", "{event}");
    assert_eq!(event["name"], "local/watched", "{event}");
    let status = follower
        .exit(PATIENCE)
        .expect("still running after --limit 1");
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_follower_from_a_number_prints_what_came_after_it_first() {
    let env = Env::new();
    add(&env, "local/a");
    add(&env, "local/b");
    add(&env, "local/c");
    let follower = Follower::start(&env, &["--since", "1"]);
    let names: Vec<Value> = (0..2)
        .map(|_| follower.next(PATIENCE).expect("backlog")["name"].clone())
        .collect();
    assert_eq!(names, ["local/b", "local/c"]);
}

#[test]
fn ctrl_c_ends_a_follower_cleanly() {
    let env = Env::new();
    let mut follower = started(&env, &[]);
    let pid = rustix::process::Pid::from_child(&follower.child);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = follower.exit(PATIENCE).expect("still running after SIGINT");
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_closed_stdout_ends_a_follower_even_with_nothing_to_print() {
    let env = Env::new();
    add(&env, "local/before");
    let mut child = env
        .command()
        .args(["events", "--follow", "--since", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -n 1`: read one line, then close the pipe.
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains("local/before"), "{line}");
    drop(reader);
    // No event comes after: it must notice the closed pipe by itself.
    let status = wait_exit(&mut child, PATIENCE);
    let _ = child.kill();
    let status = status.expect("still running with its stdout closed");
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_committed_write_notifies_postgres_listeners_with_its_seq() {
    let env = Env::new();
    let Some(schema) = &env.postgres else {
        skipped(
            "a_committed_write_notifies_postgres_listeners_with_its_seq",
            "PostgreSQL only (AGENTS_TEST_BACKEND=postgres)",
        );
        return;
    };
    use postgres::fallible_iterator::FallibleIterator;
    let mut client = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
    client.batch_execute("LISTEN agents_events").unwrap();
    add(&env, "local/heard");
    let seq = env.count("SELECT MAX(seq) FROM events");
    let mut ours = Vec::new();
    let mut notifications = client.notifications();
    let mut iter = notifications.timeout_iter(Duration::from_secs(2));
    while let Some(n) = iter.next().unwrap() {
        // Other tests' schemas share the channel: the payload is a seq,
        // and ours is the one this registry's log holds.
        ours.push(n.payload().to_owned());
    }
    assert!(ours.contains(&seq.to_string()), "{ours:?} lacks {seq}");
}
