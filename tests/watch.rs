//! `agents resource watch` through the real binary: it is started, the
//! filesystem and a repository are changed under it, and the test waits
//! for the line that reports each change (a bounded wait on the event,
//! never a sleep standing in for it); Ctrl-C stops it cleanly.

use crate::common::{Env, git, git_repo};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A guard for a test that would otherwise hang: generous, since the
/// wait ends as soon as the line arrives.
const AT_MOST: Duration = Duration::from_secs(60);

struct Watching {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Watching {
    fn start(env: &Env, args: &[&str]) -> Self {
        let mut child = env
            .command()
            .args(["resource", "watch"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Wait for a line containing `text`; the lines read on the way are
    /// kept for the failure message.
    fn wait_for(&mut self, text: &str) -> String {
        loop {
            match self.lines.recv_timeout(AT_MOST) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(text) {
                        return line;
                    }
                }
                Err(e) => panic!("no line with {text:?} ({e}); saw {:#?}", self.seen),
            }
        }
    }

    /// Ctrl-C, and the exit status.
    fn interrupt(mut self) -> std::process::ExitStatus {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        self.child.wait().unwrap()
    }
}

#[test]
fn watch_refreshes_what_changed_on_disk_and_in_git_and_stops_on_ctrl_c() {
    let env = Env::new();
    env.write("d/a.txt", "a\n");
    let d = env.path("d");
    env.add("fs-directory", "local/d", &d, &[]).ok();
    let repo = env.path("repo");
    git_repo(&repo);
    env.add("git-checkout", "local/r", &repo, &["--branch", "main"])
        .ok();
    let mut watch = Watching::start(&env, &[]);
    watch.wait_for("watching 2 locations");
    // A file appears.
    std::fs::write(env.path("d/new.txt"), "new\n").unwrap();
    watch.wait_for("+ local/d/new.txt");
    // A branch appears: seen through the refs.
    git(&repo, &["branch", "feat"]);
    watch.wait_for("+ local/r/git/branch/feat");
    let status = watch.interrupt();
    assert!(status.success(), "{status:?}");
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(names.contains(&"local/d/new.txt"), "{names:?}");
    assert!(names.contains(&"local/r/git/branch/feat"), "{names:?}");
}

#[test]
fn watch_speaks_json_lines_and_watches_only_what_it_is_given() {
    let env = Env::new();
    env.write("d/a.txt", "a\n");
    env.write("e/b.txt", "b\n");
    for (name, dir) in [("local/d", "d"), ("local/e", "e")] {
        let path = env.path(dir);
        env.run(&[
            "resource",
            "add",
            "fs-directory",
            name,
            "--path",
            path.to_str().unwrap(),
        ])
        .ok();
    }
    let mut watch = Watching::start(&env, &["-o", "json", "local/d"]);
    let ready: serde_json::Value =
        serde_json::from_str(&watch.wait_for("\"event\":\"watching\"")).unwrap();
    assert_eq!(
        ready["locations"],
        serde_json::json!([env.path("d").to_str().unwrap()])
    );
    // A change under e is not watched; one under d is.
    std::fs::write(env.path("e/ignored.txt"), "x\n").unwrap();
    std::fs::remove_file(env.path("d/a.txt")).unwrap();
    let line = watch.wait_for("\"event\":\"refreshed\"");
    let event: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(event["resources"], serde_json::json!(["local/d"]));
    assert_eq!(
        event["report"]["changed"][0]["removed"],
        serde_json::json!(["local/d/a.txt"])
    );
    assert!(watch.interrupt().success());
}
