//! An apply interrupted at every moment of its work — while it stages,
//! at its commit point, before each rename into the original — as a kill
//! would (a panic through the test-only seam stops it right there; apply
//! has no cleanup that a panic would run and a kill would not). The next
//! apply finishes or undoes it: the original is then exactly as before
//! or exactly the working copy, nothing of ours is left inside it, and
//! the warning says which happened.

use std::fs;

use super::{CopyOnWrite, change_everything, fixture, state};
use crate::sandbox::copy_on_write::apply::{Interrupted, finish_interrupted, interrupted_in};
use crate::sandbox::copy_on_write::{tree, write_manifest};
use crate::sandbox::fs_at::{DirFd, Mounts};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::{Applied, Strategy};

/// Names at the original's root that are ours.
fn ours(root: &std::path::Path) -> Vec<String> {
    fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".agents-apply-"))
        .collect()
}

#[test]
fn an_apply_stopped_at_any_moment_is_finished_or_undone_never_half() {
    // Count the moments of one whole apply first.
    let moments = {
        let f = fixture();
        change_everything(&f.place.workdir);
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let record = seen.clone();
        let _armed = seam::arm(move |m, rel| record.borrow_mut().push((m, rel.to_owned())));
        CopyOnWrite.apply(&f.place).unwrap();
        seen.borrow().clone()
    };
    assert!(moments.iter().any(|(m, _)| *m == Moment::Commit));
    assert!(moments.iter().filter(|(m, _)| *m == Moment::Rename).count() >= 3);
    let (mut undone, mut finished) = (0, 0);
    for (n, (moment, rel)) in moments.iter().enumerate() {
        let f = fixture();
        let before = state(&f.original);
        change_everything(&f.place.workdir);
        let after = state(&f.place.workdir);
        let mut count = 0;
        let stop_at = n;
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _armed = seam::arm(move |_, _| {
                if count == stop_at {
                    panic!("killed");
                }
                count += 1;
            });
            CopyOnWrite.apply(&f.place)
        }));
        assert!(
            stopped.is_err(),
            "moment {n} ({moment:?} {rel}) was reached"
        );
        assert!(
            interrupted_in(&f.place.area),
            "moment {n}: nothing says it was interrupted"
        );
        // A diff does not finish it (it writes nothing): it refuses.
        let refused = CopyOnWrite.diff(&f.place).unwrap_err();
        assert!(refused.to_string().contains("was interrupted"), "{refused}");
        let area = f.place.area.clone();
        let after_apply = move |original: &DirFd| {
            write_manifest(&area, &tree::scan(original, Mounts::Cross, true)?).map(drop)
        };
        let what = finish_interrupted(&f.place.area, &f.original, &after_apply).unwrap();
        match what {
            Some(Interrupted::Undone) => {
                undone += 1;
                assert_eq!(
                    state(&f.original),
                    before,
                    "moment {n} ({moment:?} {rel}): undone"
                );
            }
            Some(Interrupted::Finished) => {
                finished += 1;
                assert_eq!(
                    state(&f.original),
                    after,
                    "moment {n} ({moment:?} {rel}): finished"
                );
            }
            None => panic!("moment {n}: no interrupted apply found"),
        }
        assert!(
            ours(&f.original).is_empty(),
            "moment {n}: {:?}",
            ours(&f.original)
        );
        assert!(!interrupted_in(&f.place.area));
        // Nothing more to do: the next apply finds the manifest of before
        // (an undone apply) and applies again, or is told nothing changed.
        let again = CopyOnWrite.apply(&f.place).unwrap();
        assert_eq!(state(&f.original), after, "moment {n}: the next apply");
        if what == Some(Interrupted::Undone) {
            assert!(matches!(again, Applied::CopiedBack(d) if !d.added.is_empty()));
        }
    }
    assert!(
        undone > 0 && finished > 0,
        "undone {undone}, finished {finished}"
    );
}

#[test]
fn the_next_apply_finishes_an_interrupted_one_and_destroy_does_too() {
    for destroy in [false, true] {
        let f = fixture();
        change_everything(&f.place.workdir);
        let after = state(&f.place.workdir);
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _armed = seam::arm(|m, _| {
                if m == Moment::Rename {
                    panic!("killed");
                }
            });
            CopyOnWrite.apply(&f.place)
        }));
        assert!(stopped.is_err());
        assert_ne!(
            state(&f.original),
            after,
            "it stopped before its first rename"
        );
        if destroy {
            CopyOnWrite.destroy(&f.place).unwrap();
        } else {
            let applied = CopyOnWrite.apply(&f.place).unwrap();
            // The interrupted apply was finished; this one found nothing new.
            assert_eq!(applied, Applied::CopiedBack(Default::default()));
        }
        assert_eq!(state(&f.original), after);
        assert!(ours(&f.original).is_empty());
    }
}
