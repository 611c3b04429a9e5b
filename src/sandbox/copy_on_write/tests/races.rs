//! An agent racing the host: at the dangerous moment of each operation
//! (through the test-only seam) a directory or file of the working copy
//! is exchanged with a symlink to outside, as `renameat2(RENAME_EXCHANGE)`
//! lets any process do at any time. Whatever the operation answers,
//! nothing outside is read, written, or even opened.

use std::fs;

use super::{CopyOnWrite, fixture, state, write};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::test_support::{Outside, SECRET, swap_for_link};
use crate::sandbox::{SandboxError, Strategy};

/// Does any file below `root` hold the outside's secret?
fn holds_the_secret(root: &std::path::Path) -> Vec<String> {
    state(root)
        .into_iter()
        .filter(|(_, (kind, _, bytes))| *kind == 'f' && bytes.as_slice() == SECRET)
        .map(|(path, _)| path)
        .collect()
}

/// Arm the seam to swap `entry` for a link to `target` once, when
/// `moment` is reached for `rel`.
fn swap_at(
    moment: Moment,
    rel: &'static str,
    entry: std::path::PathBuf,
    target: std::path::PathBuf,
) -> impl Drop {
    let mut done = false;
    seam::arm(move |now, at| {
        if now == moment && at == rel && !done {
            done = true;
            swap_for_link(&entry, &target);
        }
    })
}

#[test]
fn rollback_never_writes_through_a_directory_swapped_for_a_symlink_to_outside() {
    let f = fixture();
    let outside = Outside::new(f._tmp.path(), "lib");
    let work = f.place.workdir.clone();
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(&work);
    write(&work, "src/lib/deep.rs", b"changed since the checkpoint");
    let armed = swap_at(
        Moment::Restore,
        "src/lib/deep.rs",
        work.join("src/lib"),
        outside.dir.join("lib"),
    );
    let raced = CopyOnWrite.rollback(&f.place, &cp);
    drop(armed);
    outside.assert_untouched();
    let err = raced.unwrap_err();
    assert!(matches!(err, SandboxError::Changed { .. }), "{err}");
    // Left alone, a rollback undoes the agent's swap too.
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(&work), at_cp);
    outside.assert_untouched();
}

#[test]
fn apply_never_copies_in_a_file_swapped_for_a_symlink_to_a_secret() {
    let f = fixture();
    let outside = Outside::new(f._tmp.path(), "lib");
    let work = f.place.workdir.clone();
    write(&work, "README", b"changed in the sandbox");
    let before = state(&f.original);
    let armed = swap_at(
        Moment::Copy,
        "README",
        work.join("README"),
        outside.secret.clone(),
    );
    let raced = CopyOnWrite.apply(&f.place);
    drop(armed);
    let err = raced.unwrap_err();
    assert!(matches!(err, SandboxError::Changed { .. }), "{err}");
    assert_eq!(state(&f.original), before, "nothing was applied");
    assert!(holds_the_secret(&f.original).is_empty());
    outside.assert_untouched();
}

#[test]
fn apply_never_copies_in_a_directory_swapped_for_a_symlink_to_outside() {
    let f = fixture();
    let outside = Outside::new(f._tmp.path(), "lib");
    let work = f.place.workdir.clone();
    write(&work, "src/lib/nested.txt", b"new in the sandbox");
    let before = state(&f.original);
    let armed = swap_at(
        Moment::Copy,
        "src/lib/nested.txt",
        work.join("src/lib"),
        outside.dir.join("lib"),
    );
    let raced = CopyOnWrite.apply(&f.place);
    drop(armed);
    assert!(raced.is_err(), "{raced:?}");
    assert_eq!(state(&f.original), before, "nothing was applied");
    assert!(holds_the_secret(&f.original).is_empty());
    outside.assert_untouched();
}

#[test]
fn a_checkpoint_never_copies_a_directory_swapped_for_a_symlink_to_outside() {
    let f = fixture();
    let outside = Outside::new(f._tmp.path(), "lib");
    let work = f.place.workdir.clone();
    let armed = swap_at(
        Moment::Copy,
        "src/lib/deep.rs",
        work.join("src/lib"),
        outside.dir.join("lib"),
    );
    let raced = CopyOnWrite.checkpoint(&f.place, "raced");
    drop(armed);
    let err = raced.unwrap_err();
    assert!(matches!(err, SandboxError::Changed { .. }), "{err}");
    assert!(
        holds_the_secret(&f.place.area).is_empty(),
        "no snapshot holds the outside"
    );
    assert!(!f.place.area.join("checkpoints/1").exists());
    outside.assert_untouched();
}

#[test]
fn a_working_copy_replaced_by_a_symlink_is_refused_and_rollback_makes_it_a_directory_again() {
    let f = fixture();
    let outside = Outside::new(f._tmp.path(), "lib");
    let work = f.place.workdir.clone();
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(&work);
    let before = state(&f.original);
    swap_for_link(&work, &outside.dir);
    let refusals = [
        CopyOnWrite.diff(&f.place).map(|_| ()).unwrap_err(),
        CopyOnWrite
            .checkpoint(&f.place, "x")
            .map(|_| ())
            .unwrap_err(),
        CopyOnWrite.apply(&f.place).map(|_| ()).unwrap_err(),
    ];
    for err in refusals {
        assert!(err.to_string().contains("is not a directory"), "{err}");
        assert!(err.to_string().contains("roll back"), "{err}");
    }
    assert_eq!(state(&f.original), before);
    outside.assert_untouched();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert!(fs::symlink_metadata(&work).unwrap().is_dir());
    assert_eq!(state(&work), at_cp);
    outside.assert_untouched();
}
