//! `git_worktree` whatever the timing: the agent's writes land in git's
//! racy-clean window and modes change between every round, with both
//! cores kept busy, and every checkpoint and rollback stays exact.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::super::super::Strategy;
use super::super::GitWorktree;
use super::{repo, sandbox, tree_of, write};
use crate::git_env::test_git;

/// Both cores kept busy until dropped, so git and the test are
/// descheduled at awkward moments.
struct CpuLoad {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl CpuLoad {
    fn start() -> CpuLoad {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let threads = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                    }
                })
            })
            .collect();
        CpuLoad { stop, threads }
    }
}

impl Drop for CpuLoad {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// git's racy-clean window: the agent writes content of the same size
/// in the very clock tick git recorded the file (right after create,
/// right after a checkpoint, right after a rollback), again and again
/// with both cores busy. Every checkpoint holds what was written and
/// every rollback brings exactly that back — stat information that can
/// be stale is never trusted.
#[test]
fn same_size_writes_in_gits_racy_window_are_never_missed() {
    let _load = CpuLoad::start();
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("orig");
    std::fs::create_dir(&original).unwrap();
    test_git(&original, &["init", "-q"]);
    write(&original, "README.md", b"# api\n");
    test_git(&original, &["add", "-A"]);
    test_git(&original, &["commit", "-q", "-m", "first"]);
    let git = GitWorktree::default();
    let read = |p: &Path| String::from_utf8(std::fs::read(p).unwrap()).unwrap();
    for round in 0..60 {
        let area = tmp.path().join(format!("R{round}"));
        std::fs::create_dir(&area).unwrap();
        let place = git.create(&original, &area).unwrap();
        let file = place.workdir.join("README.md");
        std::fs::write(&file, b"first\n").unwrap();
        let first = git.checkpoint(&place, "first").unwrap();
        std::fs::write(&file, b"secnd\n").unwrap();
        let second = git.checkpoint(&place, "second").unwrap();
        std::fs::write(&file, b"third\n").unwrap();
        git.rollback(&place, &first).unwrap();
        assert_eq!(read(&file), "first\n", "round {round}: back to the first");
        std::fs::write(&file, b"fourt\n").unwrap();
        let fourth = git.checkpoint(&place, "fourth").unwrap();
        git.rollback(&place, &second).unwrap();
        assert_eq!(read(&file), "secnd\n", "round {round}: back to the second");
        git.rollback(&place, &fourth).unwrap();
        assert_eq!(read(&file), "fourt\n", "round {round}: back to the fourth");
        // Back to the base's bytes, same size again: nothing to show.
        std::fs::write(&file, b"# api\n").unwrap();
        let diff = git.diff(&place).unwrap();
        assert!(diff.modified.is_empty(), "round {round}: {diff:?}");
        git.destroy(&place).unwrap();
    }
}

/// Rollback is exact for modes, whatever the timing: a private file, a
/// group-only script and a private directory come back with their own
/// permission bits (git keeps only the executable bit), round after
/// round with both cores busy; a FIFO the agent made after the
/// checkpoint is gone.
#[test]
fn rollback_restores_every_mode_and_removes_special_files() {
    let _load = CpuLoad::start();
    let tmp = tempfile::tempdir().unwrap();
    let original = repo(tmp.path());
    let git = GitWorktree::default();
    let place = sandbox(tmp.path(), &original);
    let work = &place.workdir;
    let mode = |rel: &str, m: u32| {
        std::fs::set_permissions(work.join(rel), PermissionsExt::from_mode(m)).unwrap();
    };
    write(work, "secret/key.pem", b"private\n");
    mode("secret/key.pem", 0o600);
    mode("secret", 0o700);
    mode("run.sh", 0o750);
    mode("README.md", 0o640);
    let checkpoint = git.checkpoint(&place, "private").unwrap();
    let at_checkpoint = tree_of(work);
    for round in 0..200 {
        if round % 2 == 0 {
            mode("secret/key.pem", 0o644);
            mode("secret", 0o755);
            mode("run.sh", 0o755);
        } else {
            write(work, "secret/key.pem", b"rotated\n");
            mode("README.md", 0o666);
        }
        rustix::fs::mknodat(
            rustix::fs::CWD,
            work.join(format!("fifo-{round}")),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        git.rollback(&place, &checkpoint).unwrap();
        assert_eq!(tree_of(work), at_checkpoint, "round {round}");
    }
}
