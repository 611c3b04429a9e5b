//! A measurement, not a test (speed is never asserted): what
//! `checkpoint` and `rollback` cost on 2,000 files / 40 MB, next to
//! `cp -a` of the same tree. Run it in the debug build with
//!
//! `cargo test --lib sandbox::copy_on_write::tests::measure -- --ignored --nocapture`
//!
//! The shape is a fifth of the sandbox bench's fixture: 20 directories of
//! 100 files, 10 of them 2 MiB, the rest 256 B – 20 KiB, pseudo-random
//! bytes. Each run: `create`, the first checkpoint, a small change (10
//! files rewritten, 5 added, 5 deleted), a second checkpoint, a rollback
//! to the first and one back to the second. Two patterns: "settled", where
//! the first checkpoint comes 2.1 s after `create` (an agent's work takes
//! seconds), and "immediate", where it follows at once, so every file is
//! racily clean in it (see `stat.rs`) and must be compared, not trusted.
//! A `sync` (untimed) precedes every timed step; figures are medians.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use super::super::CopyOnWrite;
use crate::sandbox::Strategy;

const DIRS: usize = 20;
const PER_DIR: usize = 100;
const LARGE_EVERY: usize = 200;
const RUNS: usize = 3;

/// xorshift64*: the same bytes in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut buf = vec![0u8; len];
        for chunk in buf.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
        buf
    }
}

fn file(d: usize, f: usize) -> String {
    format!("d{d:02}/f{f:02}.dat")
}

/// The fixture at `root`; its size in bytes.
fn make(root: &Path) -> u64 {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut total = 0;
    for d in 0..DIRS {
        fs::create_dir_all(root.join(format!("d{d:02}"))).unwrap();
        for f in 0..PER_DIR {
            let len = if (d * PER_DIR + f).is_multiple_of(LARGE_EVERY) {
                2 << 20
            } else {
                256 + (rng.next() % (20 << 10)) as usize
            };
            fs::write(root.join(file(d, f)), rng.bytes(len)).unwrap();
            total += len as u64;
        }
    }
    total
}

/// 10 small files rewritten, 5 added, 5 deleted.
fn small_change(work: &Path) {
    let mut rng = Rng(42);
    for k in 0..10 {
        fs::write(work.join(file(k * 2, 3)), rng.bytes(4096)).unwrap();
    }
    for k in 0..5 {
        fs::write(
            work.join(format!("d{:02}/new-{k}.dat", k * 4)),
            rng.bytes(4096),
        )
        .unwrap();
        fs::remove_file(work.join(file(k * 4 + 1, 7))).unwrap();
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    rustix::fs::sync();
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

fn median(mut samples: Vec<Duration>) -> String {
    samples.sort();
    format!("{:>8.1} ms", samples[samples.len() / 2].as_secs_f64() * 1e3)
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn measure_checkpoint_and_rollback() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    let bytes = make(&original);
    let mut rows: Vec<(String, Vec<Duration>)> = Vec::new();
    let mut add = |name: &str, took: Duration| match rows.iter_mut().find(|(n, _)| n == name) {
        Some((_, v)) => v.push(took),
        None => rows.push((name.to_owned(), vec![took])),
    };
    for run in 0..RUNS {
        let copy = tmp.path().join(format!("cp-{run}"));
        let (status, took) = timed(|| {
            std::process::Command::new("cp")
                .arg("-a")
                .arg(&original)
                .arg(&copy)
                .status()
                .unwrap()
        });
        assert!(status.success());
        add("cp -a (the full copy)", took);
        fs::remove_dir_all(&copy).unwrap();
        for settled in [true, false] {
            let pattern = if settled { "settled" } else { "immediate" };
            let area = tmp.path().join(format!("area-{run}-{pattern}"));
            fs::create_dir(&area).unwrap();
            let (place, took) = timed(|| CopyOnWrite.create(&original, &area).unwrap());
            add(&format!("{pattern}: create"), took);
            if settled {
                std::thread::sleep(Duration::from_millis(2100));
            }
            let (first, took) = timed(|| CopyOnWrite.checkpoint(&place, "first").unwrap());
            add(&format!("{pattern}: first checkpoint"), took);
            small_change(&place.workdir);
            let (second, took) = timed(|| CopyOnWrite.checkpoint(&place, "second").unwrap());
            add(&format!("{pattern}: checkpoint after the change"), took);
            let ((), took) = timed(|| CopyOnWrite.rollback(&place, &first).unwrap());
            add(&format!("{pattern}: rollback undoing the change"), took);
            assert!(place.workdir.join(file(1, 7)).exists(), "undone");
            let ((), took) = timed(|| CopyOnWrite.rollback(&place, &second).unwrap());
            add(&format!("{pattern}: rollback redoing it"), took);
            assert!(!place.workdir.join(file(1, 7)).exists(), "redone");
            CopyOnWrite.destroy(&place).unwrap();
        }
    }
    println!(
        "\n{} files, {:.1} MB, median of {RUNS} runs (debug build):",
        DIRS * PER_DIR,
        bytes as f64 / 1e6
    );
    for (name, samples) in rows {
        println!("  {name:<44} {}", median(samples));
    }
}
