//! The user-space overlay's working copy is the agent's, like a
//! `copy_on_write` one: an entry of it (or all of it) replaced by a
//! symlink to outside is never followed — not even opened — by rollback,
//! diff, checkpoint or apply.

use std::fs;

use super::{OverlayMode, fixture};
use crate::sandbox::Strategy;
use crate::sandbox::copy_on_write::tests::{state, write};
use crate::sandbox::test_support::{Outside, swap_for_link};

#[test]
fn user_space_rollback_never_opens_the_working_copy_through_a_symlink() {
    let f = fixture(OverlayMode::UserSpace).unwrap();
    let outside = Outside::new(f._tmp.path(), "lib");
    let merged = &f.place.workdir;
    write(merged, "README", b"changed before the checkpoint");
    let cp = f.strategy.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(merged);
    // `src/lib/deep.rs` is as in the lower: rollback takes it from the
    // working copy when it still holds it there — not through this.
    swap_for_link(&merged.join("src"), &outside.dir);
    f.strategy.rollback(&f.place, &cp).unwrap();
    outside.assert_untouched();
    assert_eq!(state(merged), at_cp, "taken from the original instead");
}

#[test]
fn a_user_space_working_copy_replaced_by_a_symlink_is_refused_and_rollback_rebuilds_it() {
    let f = fixture(OverlayMode::UserSpace).unwrap();
    let outside = Outside::new(f._tmp.path(), "lib");
    let merged = f.place.workdir.clone();
    let cp = f.strategy.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(&merged);
    let before = state(&f.original);
    swap_for_link(&merged, &outside.dir);
    let refusals = [
        f.strategy.diff(&f.place).map(|_| ()).unwrap_err(),
        f.strategy
            .checkpoint(&f.place, "x")
            .map(|_| ())
            .unwrap_err(),
        f.strategy.apply(&f.place).map(|_| ()).unwrap_err(),
    ];
    for err in refusals {
        assert!(err.to_string().contains("is not a directory"), "{err}");
    }
    assert_eq!(state(&f.original), before);
    outside.assert_untouched();
    f.strategy.rollback(&f.place, &cp).unwrap();
    assert!(fs::symlink_metadata(&merged).unwrap().is_dir());
    assert_eq!(state(&merged), at_cp);
    outside.assert_untouched();
}
