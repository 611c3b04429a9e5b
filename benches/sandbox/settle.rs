//! Part 3 (`BENCH_ONLY=settle`): what `copy_on_write`'s racy-clean rule
//! costs. A checkpoint trusts a file's recorded stat only when the file is
//! older than the snapshot by a margin (`src/sandbox/copy_on_write/stat.rs`);
//! a file written just before the snapshot is "racily clean" and must be
//! compared instead. Two patterns on the same fixture: "settled", where
//! the first checkpoint comes 2.1 s after `create` (an agent's work takes
//! seconds), and "immediate", where it follows at once, so every file is
//! racily clean in it. Each run: `create`, the first checkpoint, the small
//! change, a second checkpoint, a rollback to the first (checked) and one
//! back to the second.

use super::fixture;
use super::table::{Samples, ms};
use super::timed;
use resource_host::sandbox::{CopyOnWrite, Strategy};
use std::path::Path;
use std::time::Duration;

const STEPS: [&str; 5] = [
    "create",
    "first checkpoint",
    "checkpoint after the change",
    "rollback undoing the change",
    "rollback redoing it",
];

pub fn run(tmp: &Path, runs: usize) {
    println!("## 3. copy_on_write: a settled first checkpoint vs an immediate one\n");
    let original = tmp.join("settle-fixture");
    fixture::make(&original);
    let areas = tmp.join("settle");
    std::fs::create_dir(&areas).expect("areas");
    // [settled, immediate] × step
    let mut samples: [Vec<Vec<Duration>>; 2] = Default::default();
    for pattern in &mut samples {
        *pattern = vec![Vec::new(); STEPS.len()];
    }
    for run in 0..runs {
        // Each run another pattern goes first.
        for k in 0..2 {
            let settled = (k + run) % 2 == 0;
            let area = areas.join(format!("{run}-{settled}"));
            std::fs::create_dir(&area).expect("area");
            let took = one_run(&original, &area, settled);
            let pattern = &mut samples[usize::from(!settled)];
            for (step, d) in took.into_iter().enumerate() {
                pattern[step].push(d);
            }
        }
    }
    println!("| step (median of {runs}) | settled | immediate |\n|---|---|---|");
    for (step, name) in STEPS.iter().enumerate() {
        let median = |p: usize| ms(Samples(samples[p][step].clone()).median());
        println!("| {name} | {} | {} |", median(0), median(1));
    }
    println!();
}

/// The five steps' times, in [`STEPS`] order.
fn one_run(original: &Path, area: &Path, settled: bool) -> Vec<Duration> {
    let mut took = Vec::new();
    let (place, d) = timed(|| CopyOnWrite.create(original, area).expect("create"));
    took.push(d);
    if settled {
        std::thread::sleep(Duration::from_millis(2100));
    }
    let (first, d) = timed(|| CopyOnWrite.checkpoint(&place, "first").expect("checkpoint"));
    took.push(d);
    fixture::small_change(&place.workdir);
    let (second, d) = timed(|| {
        CopyOnWrite
            .checkpoint(&place, "second")
            .expect("checkpoint")
    });
    took.push(d);
    let ((), d) = timed(|| CopyOnWrite.rollback(&place, &first).expect("rollback"));
    took.push(d);
    fixture::assert_undone(&place.workdir, original);
    let ((), d) = timed(|| CopyOnWrite.rollback(&place, &second).expect("rollback"));
    took.push(d);
    CopyOnWrite.destroy(&place).expect("destroy");
    took
}
