//! Incremental rollback: exact, touching only what differs, and complete
//! again after it was interrupted.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::Path;

use super::{CopyOnWrite, change_everything, chmod, fixture, state, write};
use crate::sandbox::{SandboxError, Strategy};

fn ino(path: &Path) -> u64 {
    fs::symlink_metadata(path).unwrap().ino()
}

/// Every `.agents-rollback-*` name left anywhere below `root`.
fn leftovers(root: &Path) -> Vec<String> {
    state(root)
        .into_keys()
        .filter(|p| p.contains(".agents-rollback-"))
        .collect()
}

#[test]
fn rollback_touches_only_what_changed_and_twice_in_a_row_changes_nothing_more() {
    let f = fixture();
    let work = &f.place.workdir;
    change_everything(work);
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    let untouched = ino(&work.join("src/lib/deep.rs"));
    write(work, "README", b"changed after the checkpoint");
    write(work, "extra/new.txt", b"new");
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    assert_eq!(
        ino(&work.join("src/lib/deep.rs")),
        untouched,
        "an unchanged file is left where it is, not copied again"
    );
    let restored = ino(&work.join("README"));
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    assert_eq!(ino(&work.join("README")), restored, "nothing left to undo");
    assert!(leftovers(work).is_empty());
}

#[test]
fn rollback_to_an_older_checkpoint_undoes_changes_from_before_and_after_the_newer_one() {
    let f = fixture();
    let work = &f.place.workdir;
    let first = CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    let at_first = state(work);
    // Before the newer checkpoint.
    write(work, "README", b"changed before the second");
    fs::remove_file(work.join("gone.txt")).unwrap();
    write(work, "between.txt", b"between");
    chmod(work, "run.sh", 0o700);
    let second = CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    let at_second = state(work);
    // After it.
    write(work, "README", b"changed after the second, too");
    write(work, "src/lib/deep.rs", b"fn after() {}\n");
    fs::remove_file(work.join("between.txt")).unwrap();
    write(work, "after.txt", b"after");
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    assert_eq!(state(work), at_first);
    CopyOnWrite.rollback(&f.place, &second).unwrap();
    assert_eq!(state(work), at_second);
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    assert_eq!(state(work), at_first);
}

#[test]
fn a_file_overwritten_right_after_the_checkpoint_with_as_many_bytes_is_restored() {
    let f = fixture();
    let work = &f.place.workdir;
    write(work, "same-size.txt", b"before: 0123456789");
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    fs::write(work.join("same-size.txt"), b"after!: 9876543210").unwrap();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(
        fs::read(work.join("same-size.txt")).unwrap(),
        b"before: 0123456789"
    );
}

#[test]
fn entries_that_changed_kind_are_replaced_without_following_a_symlink() {
    let f = fixture();
    let work = &f.place.workdir;
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    // A file becomes a directory, a directory a file, another directory a
    // symlink to a directory outside (which must not be emptied), and a
    // symlink a directory.
    let outside = f._tmp.path().join("outside-dir");
    write(&outside, "keep.txt", b"not ours");
    fs::remove_file(work.join("README")).unwrap();
    write(work, "README/inside.txt", b"now a directory");
    fs::remove_dir_all(work.join("src/lib")).unwrap();
    write(work, "src/lib", b"now a file");
    write(work, "dir/sub/file.txt", b"a directory");
    let cp2 = CopyOnWrite.checkpoint(&f.place, "dir").unwrap();
    let at_cp2 = state(work);
    fs::remove_dir_all(work.join("dir")).unwrap();
    symlink(&outside, work.join("dir")).unwrap();
    fs::remove_file(work.join("link")).unwrap();
    write(work, "link/x", b"a symlink became a directory");

    CopyOnWrite.rollback(&f.place, &cp2).unwrap();
    assert_eq!(state(work), at_cp2);
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    assert_eq!(
        state(&outside).len(),
        1,
        "the outside directory is untouched"
    );
    assert_eq!(fs::read(outside.join("keep.txt")).unwrap(), b"not ours");
}

#[test]
fn modes_of_files_and_directories_are_restored_even_read_only_ones() {
    let f = fixture();
    let work = &f.place.workdir;
    write(work, "ro/file.txt", b"in a read-only directory");
    chmod(work, "ro/file.txt", 0o444);
    chmod(work, "ro", 0o555);
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    chmod(work, "ro", 0o755);
    write(work, "ro/new.txt", b"added inside");
    chmod(work, "ro", 0o500);
    write(work, "locked/deep/file", b"a new read-only tree");
    chmod(work, "locked/deep", 0o500);
    chmod(work, "locked", 0o500);
    chmod(work, "src", 0o700);
    chmod(work, "run.sh", 0o600);
    chmod(work, "", 0o750);
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    let root_mode = fs::symlink_metadata(work).unwrap().mode() & 0o7777;
    let root_was = fs::symlink_metadata(&f.original).unwrap().mode() & 0o7777;
    assert_eq!(root_mode, root_was, "the root's own mode too");
}

#[test]
fn what_no_snapshot_can_hold_is_removed_by_rollback() {
    let f = fixture();
    let work = &f.place.workdir;
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    let status = std::process::Command::new("mkfifo")
        .arg(work.join("src/pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let odd = std::ffi::OsStr::from_bytes(b"not-utf8-\xff");
    fs::create_dir(work.join(odd)).unwrap();
    fs::write(work.join(odd).join("file"), b"x").unwrap();
    fs::write(work.join("new\nline"), b"x").unwrap();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    // Checked first: reading a FIFO left behind would block `state`.
    assert!(fs::symlink_metadata(work.join("src/pipe")).is_err());
    assert_eq!(state(work), at_cp);
}

#[test]
fn a_rollback_interrupted_halfway_is_completed_by_running_it_again() {
    let f = fixture();
    let work = &f.place.workdir;
    change_everything(work);
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    write(work, "README", b"changed");
    write(work, "src/lib/extra.rs", b"added");
    // What a crash in the middle of a rollback leaves: some entries put
    // back, a temporary copy not yet renamed, a directory opened up, and
    // the rest still changed.
    fs::remove_file(work.join("src/lib/extra.rs")).unwrap();
    write(work, ".agents-rollback-0.tmp", b"hello, cha");
    write(work, "src/lib/.agents-rollback-0.tmp", b"half");
    chmod(work, "src/lib", 0o777);
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    assert!(leftovers(work).is_empty());
}

#[test]
fn a_snapshot_entry_named_like_the_temporary_copy_is_kept() {
    let f = fixture();
    let work = &f.place.workdir;
    write(
        work,
        ".agents-rollback-0.tmp",
        b"a real file of the agent's",
    );
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(work);
    write(work, "README", b"changed");
    fs::remove_file(work.join("link")).unwrap();
    symlink("elsewhere", work.join("link")).unwrap();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
}

#[test]
fn a_working_copy_removed_whole_is_rebuilt() {
    let f = fixture();
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let at_cp = state(&f.place.workdir);
    fs::remove_dir_all(&f.place.workdir).unwrap();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(&f.place.workdir), at_cp);
}

#[test]
fn a_checkpoint_whose_stat_record_was_removed_rolls_back_by_putting_back_every_file() {
    let f = fixture();
    let work = &f.place.workdir;
    change_everything(work);
    let cp = CopyOnWrite.checkpoint(&f.place, "its record goes").unwrap();
    let at_cp = state(work);
    fs::remove_file(f.place.area.join("checkpoints/1/stat")).unwrap();
    let untouched = ino(&work.join("src/lib/deep.rs"));
    write(work, "README", b"changed");
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(state(work), at_cp);
    assert_ne!(
        ino(&work.join("src/lib/deep.rs")),
        untouched,
        "every file is a fresh copy"
    );
}

#[test]
fn a_damaged_stat_record_is_refused_before_anything_changes() {
    let f = fixture();
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let record = f.place.area.join("checkpoints/1/stat");
    fs::write(&record, "agents copy_on_write stat 1\ntime soon\n").unwrap();
    write(&f.place.workdir, "README", b"changed");
    let before = state(&f.place.workdir);
    let err = CopyOnWrite.rollback(&f.place, &cp).unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    let text = err.to_string();
    assert!(text.contains(&record.display().to_string()), "{text}");
    assert!(text.contains("remove that file"), "{text}");
    assert_eq!(state(&f.place.workdir), before);
}
