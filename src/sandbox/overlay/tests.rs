//! Every behaviour in both modes (`<test>::kernel`, `<test>::user_space`);
//! kernel-mode tests say so and pass where this process may not mount an
//! overlay.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rustix::mount::{MountFlags, UnmountFlags, mount, unmount};

use super::{Overlay, OverlayMode};
use crate::sandbox::copy_on_write::tests::{State, chmod, state, write};
use crate::sandbox::{Applied, CheckpointRef, SandboxError, SandboxPlace, Strategy};

/// May this process mount an overlay? Probed once with a bare mount,
/// independently of the code under test.
fn kernel_overlay_mountable() -> bool {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let dirs = ["lower", "upper", "work", "merged"].map(|d| tmp.path().join(d));
        for dir in &dirs {
            fs::create_dir(dir).map_err(|e| e.to_string())?;
        }
        let data = format!(
            "lowerdir={},upperdir={},workdir={}",
            dirs[0].display(),
            dirs[1].display(),
            dirs[2].display()
        );
        let data = std::ffi::CString::new(data).map_err(|e| e.to_string())?;
        mount(
            "overlay",
            &dirs[3],
            "overlay",
            MountFlags::empty(),
            data.as_c_str(),
        )
        .map_err(|e| e.to_string())?;
        unmount(&dirs[3], UnmountFlags::DETACH).map_err(|e| e.to_string())
    });
    if let Err(why) = probe {
        eprintln!(
            "skipping a kernel-mode overlay test: this process may not mount an overlay ({why})"
        );
    }
    probe.is_ok()
}

/// Is anything mounted on `dir`? Read from the mount table directly.
fn is_mounted(dir: &Path) -> bool {
    let table = fs::read_to_string("/proc/self/mountinfo").unwrap();
    let needle = format!(" {} ", dir.display());
    table.lines().any(|l| l.contains(&needle))
}

/// Lazily unmounts a sandbox's merged directory when a test ends, passed
/// or failed, before its temporary directory is removed.
struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        while is_mounted(&self.0) && unmount(&self.0, UnmountFlags::DETACH).is_ok() {}
    }
}

struct Fixture {
    _unmount: Unmount,
    _tmp: tempfile::TempDir,
    original: PathBuf,
    strategy: Overlay,
    place: SandboxPlace,
}

/// A sandbox (in `mode`, or `None` where that mode cannot be had) of an
/// original with a text file, a script, a nested file, a binary file, a
/// file to delete, a symlink inside and one pointing outside the tree.
fn fixture(mode: OverlayMode) -> Option<Fixture> {
    let strategy = match mode {
        OverlayMode::Kernel if !kernel_overlay_mountable() => return None,
        OverlayMode::Kernel => Overlay::kernel(),
        OverlayMode::UserSpace => Overlay::user_space(),
    };
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    let outside = tmp.path().join("outside.txt");
    fs::write(&outside, b"outside, must never be copied or touched").unwrap();
    write(&original, "README", b"hello\n");
    write(&original, "run.sh", b"#!/bin/sh\necho hi\n");
    write(&original, "src/lib/deep.rs", b"fn main() {}\n");
    write(&original, "data.bin", &[0, 159, 146, 150, 255, 0, 1]);
    write(&original, "gone.txt", b"to be deleted");
    symlink("README", original.join("link")).unwrap();
    symlink(&outside, original.join("escape")).unwrap();
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let unmount = Unmount(area.join(super::MERGED));
    let place = strategy.create(&original, &area).unwrap();
    assert_eq!(Overlay::mode_of(&place).unwrap(), mode);
    Some(Fixture {
        _unmount: unmount,
        _tmp: tmp,
        original,
        strategy,
        place,
    })
}

/// The first round of changes: nested, binary, deleted, new, a mode
/// change, a retargeted and a new symlink, a new empty directory.
fn change_everything(work: &Path) {
    write(work, "README", b"hello, changed\n");
    write(work, "src/lib/new/nested.txt", b"new and nested");
    write(work, "blob.bin", &(0..=255u8).collect::<Vec<_>>());
    fs::remove_file(work.join("gone.txt")).unwrap();
    chmod(work, "run.sh", 0o755);
    symlink("src/lib/deep.rs", work.join("new-link")).unwrap();
    fs::remove_file(work.join("link")).unwrap();
    symlink("run.sh", work.join("link")).unwrap();
    fs::create_dir(work.join("empty")).unwrap();
}

/// Every test runs once per mode, as `<name>::kernel` and
/// `<name>::user_space`.
macro_rules! in_both_modes {
    ($(fn $name:ident($f:ident: Fixture) $body:block)*) => {$(
        mod $name {
            use super::*;

            fn run($f: Fixture) $body

            #[test]
            fn kernel() {
                if let Some(f) = fixture(OverlayMode::Kernel) {
                    run(f);
                }
            }

            #[test]
            fn user_space() {
                run(fixture(OverlayMode::UserSpace).unwrap());
            }
        }
    )*};
}

in_both_modes! {
    fn rollback_restores_the_checkpointed_tree_exactly_and_never_touches_the_original(f: Fixture) {
        let o = &f.strategy;
        let original_before = state(&f.original);
        let work = &f.place.workdir;
        assert_eq!(state(work), original_before, "the working copy starts as the original");

        change_everything(work);
        let first = o.checkpoint(&f.place, "first").unwrap();
        let at_first = state(work);

        write(work, "README", b"changed again");
        write(work, "src/lib/deep.rs", b"unchanged at the checkpoint, changed after");
        write(work, "later/new.txt", b"after the checkpoint");
        fs::remove_file(work.join("src/lib/new/nested.txt")).unwrap();
        fs::remove_file(work.join("data.bin")).unwrap();
        chmod(work, "run.sh", 0o600);
        fs::remove_file(work.join("new-link")).unwrap();
        symlink("README", work.join("new-link")).unwrap();
        fs::remove_dir(work.join("empty")).unwrap();
        assert_ne!(state(work), at_first);
        o.rollback(&f.place, &first).unwrap();
        assert_eq!(state(work), at_first);

        fs::remove_file(work.join("data.bin")).unwrap();
        fs::remove_dir_all(work.join("src")).unwrap();
        write(work, "src/other.txt", b"a directory replaced");
        write(work, "second.txt", b"second");
        let second = o.checkpoint(&f.place, "second").unwrap();
        assert_ne!(first, second);
        let at_second = state(work);
        assert_ne!(at_second, at_first);
        o.rollback(&f.place, &first).unwrap();
        assert_eq!(state(work), at_first);
        o.rollback(&f.place, &second).unwrap();
        assert_eq!(state(work), at_second);

        assert_eq!(state(&f.original), original_before, "the original is untouched");
        assert!(!f.place.area.join(super::super::RESTORE).exists());
    }

    fn a_checkpoint_keeps_only_what_changed(f: Fixture) {
        let work = &f.place.workdir;
        write(work, "src/lib/deep.rs", b"changed");
        write(work, "new.txt", b"new");
        let cp = f.strategy.checkpoint(&f.place, "small").unwrap();
        let kept = state(&f.place.area.join("checkpoints").join(&cp.0).join("upper"));
        let files: Vec<&String> = kept.iter().filter(|(_, e)| e.0 != 'd').map(|(p, _)| p).collect();
        assert_eq!(files, ["new.txt", "src/lib/deep.rs"]);
        assert_eq!(kept["src/lib/deep.rs"].2, b"changed");
    }

    fn diff_lists_exactly_what_changed_against_the_original(f: Fixture) {
        let o = &f.strategy;
        assert_eq!(o.diff(&f.place).unwrap(), Default::default());
        change_everything(&f.place.workdir);
        let diff = o.diff(&f.place).unwrap();
        assert_eq!(
            diff.added,
            ["blob.bin", "empty", "new-link", "src/lib/new", "src/lib/new/nested.txt"]
        );
        assert_eq!(diff.modified, ["README", "link", "run.sh"]);
        assert_eq!(diff.deleted, ["gone.txt"]);
        assert!(diff.commits.is_empty());
    }

    fn diff_sees_replaced_directories_and_entries_that_changed_kind(f: Fixture) {
        let work = &f.place.workdir;
        // A directory removed and made again (an opaque one in the kernel's
        // upper layer), a file become a directory, a symlink become a file.
        fs::remove_dir_all(work.join("src")).unwrap();
        write(work, "src/fresh.txt", b"in a new src");
        fs::remove_file(work.join("README")).unwrap();
        write(work, "README/inside", b"now a directory");
        fs::remove_file(work.join("link")).unwrap();
        write(work, "link", b"no longer a link");
        let diff = f.strategy.diff(&f.place).unwrap();
        assert_eq!(diff.added, ["README/inside", "src/fresh.txt"]);
        assert_eq!(diff.modified, ["README", "link"]);
        assert_eq!(diff.deleted, ["src/lib", "src/lib/deep.rs"]);
    }

    fn apply_copies_back_and_the_original_then_equals_the_working_copy(f: Fixture) {
        let o = &f.strategy;
        change_everything(&f.place.workdir);
        fs::remove_dir_all(f.place.workdir.join("src/lib")).unwrap();
        let expected = o.diff(&f.place).unwrap();
        let applied = o.apply(&f.place).unwrap();
        assert_eq!(applied, Applied::CopiedBack(expected));
        assert_eq!(state(&f.original), state(&f.place.workdir));
        assert_eq!(o.diff(&f.place).unwrap(), Default::default());
        let again = o.apply(&f.place).unwrap();
        assert_eq!(again, Applied::CopiedBack(Default::default()));
        // The sandbox goes on working over the new original.
        write(&f.place.workdir, "after.txt", b"after the apply");
        assert_eq!(o.diff(&f.place).unwrap().added, ["after.txt"]);
    }

    fn apply_handles_new_nested_directories_and_entries_that_changed_kind(f: Fixture) {
        let work = &f.place.workdir;
        fs::remove_dir_all(work.join("src")).unwrap();
        write(work, "src", b"now a file");
        fs::remove_file(work.join("README")).unwrap();
        write(work, "README/inside", b"now a directory");
        write(work, "a/b/c/d.txt", b"deep");
        chmod(work, "a/b", 0o750);
        f.strategy.apply(&f.place).unwrap();
        assert_eq!(state(&f.original), state(work));
        let leftovers = fs::read_dir(&f.original)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".agents-apply-"))
            .count();
        assert_eq!(leftovers, 0, "the staging directory is removed");
    }

    fn apply_after_the_original_changed_is_refused_naming_the_path_and_writes_nothing(f: Fixture) {
        change_everything(&f.place.workdir);
        write(&f.original, "src/lib/deep.rs", b"someone else edited this");
        let before = state(&f.original);
        let err = f.strategy.apply(&f.place).unwrap_err();
        assert!(
            matches!(err, SandboxError::Conflict(ref p) if p == &["src/lib/deep.rs"]),
            "{err}"
        );
        assert!(err.to_string().contains("src/lib/deep.rs"), "{err}");
        assert_eq!(state(&f.original), before);
    }

    fn rollback_to_a_checkpoint_from_before_an_apply_is_refused(f: Fixture) {
        let o = &f.strategy;
        write(&f.place.workdir, "README", b"first");
        let before = o.checkpoint(&f.place, "before").unwrap();
        write(&f.place.workdir, "README", b"second");
        o.apply(&f.place).unwrap();
        let err = o.rollback(&f.place, &before).unwrap_err();
        assert!(err.to_string().contains("before the sandbox's changes were last applied"), "{err}");
        assert_eq!(fs::read(f.place.workdir.join("README")).unwrap(), b"second");
        let after = o.checkpoint(&f.place, "after").unwrap();
        write(&f.place.workdir, "README", b"third");
        o.rollback(&f.place, &after).unwrap();
        assert_eq!(fs::read(f.place.workdir.join("README")).unwrap(), b"second");
    }

    fn rollback_to_an_unknown_checkpoint_is_refused(f: Fixture) {
        for name in ["7", "../merged", ""] {
            let err = f.strategy.rollback(&f.place, &CheckpointRef(name.into())).unwrap_err();
            assert!(matches!(err, SandboxError::NoCheckpoint(ref n) if n == name), "{err}");
        }
    }

    fn destroy_unmounts_and_removes_everything(f: Fixture) {
        let o = &f.strategy;
        let original_before = state(&f.original);
        change_everything(&f.place.workdir);
        o.checkpoint(&f.place, "one").unwrap();
        fs::create_dir(f.place.workdir.join("locked")).unwrap();
        chmod(&f.place.workdir, "locked", 0o555);
        o.destroy(&f.place).unwrap();
        assert!(!is_mounted(&f.place.workdir));
        assert!(!f.place.area.exists());
        assert_eq!(state(&f.original), original_before);
    }
}

#[test]
fn a_kernel_sandbox_whose_mount_disappeared_is_mounted_again_by_the_next_operation() {
    let Some(f) = fixture(OverlayMode::Kernel) else {
        return;
    };
    let merged = &f.place.workdir;
    write(merged, "README", b"changed before the unmount");
    assert!(is_mounted(merged));
    // Detached, not plainly unmounted: a child another test thread forks
    // while `write` holds its file open keeps that descriptor until it
    // execs, and a plain unmount meanwhile fails with EBUSY.
    unmount(merged, UnmountFlags::DETACH).unwrap();
    assert!(!is_mounted(merged));
    assert_eq!(fs::read_dir(merged).unwrap().count(), 0);
    let diff = f.strategy.diff(&f.place).unwrap();
    assert_eq!(diff.modified, ["README"]);
    assert!(is_mounted(merged));
    assert_eq!(
        fs::read(merged.join("README")).unwrap(),
        b"changed before the unmount"
    );
    unmount(merged, UnmountFlags::DETACH).unwrap();
    let cp = f.strategy.checkpoint(&f.place, "after a remount").unwrap();
    assert!(is_mounted(merged));
    write(merged, "README", b"later");
    f.strategy.rollback(&f.place, &cp).unwrap();
    assert_eq!(
        fs::read(merged.join("README")).unwrap(),
        b"changed before the unmount"
    );
}

#[test]
fn a_kernel_rollback_while_a_file_is_open_in_the_sandbox_detaches_the_busy_mount() {
    let Some(f) = fixture(OverlayMode::Kernel) else {
        return;
    };
    let merged = &f.place.workdir;
    let cp = f.strategy.checkpoint(&f.place, "clean").unwrap();
    write(merged, "README", b"changed");
    let held = fs::File::open(merged.join("README")).unwrap();
    f.strategy.rollback(&f.place, &cp).unwrap();
    assert_eq!(fs::read(merged.join("README")).unwrap(), b"hello\n");
    assert!(is_mounted(merged));
    drop(held);
    assert_eq!(state(merged), state(&f.original));
}

#[test]
fn a_mount_of_something_else_on_the_working_copy_is_refused() {
    let Some(f) = fixture(OverlayMode::Kernel) else {
        return;
    };
    let merged = &f.place.workdir;
    unmount(merged, UnmountFlags::empty()).unwrap();
    mount(
        "tmpfs",
        merged,
        "tmpfs",
        MountFlags::empty(),
        None::<&std::ffi::CStr>,
    )
    .unwrap();
    let err = f.strategy.diff(&f.place).unwrap_err();
    assert!(
        err.to_string().contains("not this sandbox's overlay"),
        "{err}"
    );
    f.strategy.destroy(&f.place).unwrap();
    assert!(!f.place.area.exists());
}

#[test]
fn user_space_rollback_refuses_when_neither_the_copy_nor_the_original_holds_a_lower_file() {
    let f = fixture(OverlayMode::UserSpace).unwrap();
    let merged = &f.place.workdir;
    let cp = f
        .strategy
        .checkpoint(&f.place, "README as created")
        .unwrap();
    write(merged, "README", b"changed in the sandbox");
    write(&f.original, "README", b"changed in the original");
    let before: State = state(merged);
    let err = f.strategy.rollback(&f.place, &cp).unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    assert!(
        err.to_string()
            .contains(": README; nothing was rolled back"),
        "{err}"
    );
    assert_eq!(state(merged), before, "nothing was rolled back");
}

mod modes;
mod races;
