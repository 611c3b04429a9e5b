mod interrupted;
mod races;
mod rollback;
mod stat_record;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use super::CopyOnWrite;
use crate::sandbox::fs_at::{DirFd, Mounts};
use crate::sandbox::{Applied, CheckpointRef, SandboxError, SandboxPlace, Strategy};

/// Everything a tree holds, read independently of the strategy's own walk:
/// path → (kind, mode, contents or symlink target).
pub(in crate::sandbox) type State = BTreeMap<String, (char, u32, Vec<u8>)>;

pub(in crate::sandbox) fn state(root: &Path) -> State {
    fn walk(root: &Path, rel: &Path, out: &mut State) {
        for item in fs::read_dir(root.join(rel)).unwrap() {
            let item = item.unwrap();
            let rel = rel.join(item.file_name());
            let path = root.join(&rel);
            let meta = fs::symlink_metadata(&path).unwrap();
            let key = rel.to_str().unwrap().to_owned();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.insert(key, ('l', 0, target.to_str().unwrap().as_bytes().to_vec()));
            } else if meta.is_dir() {
                out.insert(key, ('d', mode, Vec::new()));
                walk(root, &rel, out);
            } else {
                out.insert(key, ('f', mode, fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = State::new();
    walk(root, Path::new(""), &mut out);
    out
}

pub(in crate::sandbox) fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

pub(in crate::sandbox) fn chmod(root: &Path, rel: &str, mode: u32) {
    fs::set_permissions(root.join(rel), fs::Permissions::from_mode(mode)).unwrap();
}

struct Fixture {
    _tmp: tempfile::TempDir,
    original: PathBuf,
    outside: PathBuf,
    place: SandboxPlace,
}

/// An original with a text file, a script, a nested file, a binary file,
/// a file to delete, a symlink inside and one pointing outside the tree.
fn fixture() -> Fixture {
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
    let place = CopyOnWrite.create(&original, &area).unwrap();
    Fixture {
        _tmp: tmp,
        original,
        outside,
        place,
    }
}

/// The first round of changes every test below starts from.
fn change_everything(work: &Path) {
    write(work, "README", b"hello, changed\n");
    write(work, "src/lib/new/nested.txt", b"new and nested");
    write(work, "blob.bin", &(0..=255u8).collect::<Vec<_>>());
    fs::remove_file(work.join("gone.txt")).unwrap();
    chmod(work, "run.sh", 0o755);
    symlink("src/lib/deep.rs", work.join("new-link")).unwrap();
    fs::remove_file(work.join("link")).unwrap();
    symlink("run.sh", work.join("link")).unwrap();
}

#[test]
fn rollback_restores_the_checkpointed_tree_exactly_and_never_touches_the_original() {
    let f = fixture();
    let original_before = state(&f.original);
    let work = &f.place.workdir;
    assert_eq!(
        state(work),
        original_before,
        "the working copy starts as the original"
    );

    change_everything(work);
    let first = CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    let at_first = state(work);

    write(work, "README", b"changed again");
    write(work, "later/new.txt", b"after the checkpoint");
    fs::remove_file(work.join("src/lib/new/nested.txt")).unwrap();
    chmod(work, "run.sh", 0o600);
    fs::remove_file(work.join("new-link")).unwrap();
    symlink("README", work.join("new-link")).unwrap();
    assert_ne!(state(work), at_first);
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    assert_eq!(state(work), at_first);

    fs::remove_file(work.join("data.bin")).unwrap();
    write(work, "second.txt", b"second");
    let second = CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    assert_ne!(first, second);
    let at_second = state(work);
    assert_ne!(at_second, at_first);
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    assert_eq!(state(work), at_first);
    CopyOnWrite.rollback(&f.place, &second).unwrap();
    assert_eq!(state(work), at_second);

    assert_eq!(
        state(&f.original),
        original_before,
        "the original is untouched"
    );
}

#[test]
fn rollback_to_an_unknown_checkpoint_is_refused() {
    let f = fixture();
    for name in ["7", "../work", ""] {
        let err = CopyOnWrite
            .rollback(&f.place, &CheckpointRef(name.into()))
            .unwrap_err();
        assert!(
            matches!(err, SandboxError::NoCheckpoint(ref n) if n == name),
            "{err}"
        );
    }
}

#[test]
fn a_symlink_pointing_outside_is_copied_as_a_link_never_followed() {
    let f = fixture();
    let escape = f.place.workdir.join("escape");
    assert!(
        fs::symlink_metadata(&escape)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&escape).unwrap(), f.outside);
    let cp = CopyOnWrite.checkpoint(&f.place, "").unwrap();
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(fs::read_link(&escape).unwrap(), f.outside);
    assert_eq!(
        fs::read(&f.outside).unwrap(),
        b"outside, must never be copied or touched"
    );
}

#[test]
fn diff_lists_exactly_what_changed_against_the_original() {
    let f = fixture();
    assert_eq!(CopyOnWrite.diff(&f.place).unwrap(), Default::default());
    change_everything(&f.place.workdir);
    let diff = CopyOnWrite.diff(&f.place).unwrap();
    assert_eq!(
        diff.added,
        [
            "blob.bin",
            "new-link",
            "src/lib/new",
            "src/lib/new/nested.txt"
        ]
    );
    assert_eq!(diff.modified, ["README", "link", "run.sh"]);
    assert_eq!(diff.deleted, ["gone.txt"]);
    assert!(diff.commits.is_empty());
}

#[test]
fn apply_copies_back_and_the_original_then_equals_the_working_copy() {
    let f = fixture();
    change_everything(&f.place.workdir);
    fs::remove_dir_all(f.place.workdir.join("src/lib")).unwrap();
    let expected = CopyOnWrite.diff(&f.place).unwrap();
    let applied = CopyOnWrite.apply(&f.place).unwrap();
    assert_eq!(applied, Applied::CopiedBack(expected));
    assert_eq!(state(&f.original), state(&f.place.workdir));
    assert_eq!(CopyOnWrite.diff(&f.place).unwrap(), Default::default());
    // A second apply with nothing new changes nothing and is not a conflict.
    let again = CopyOnWrite.apply(&f.place).unwrap();
    assert_eq!(again, Applied::CopiedBack(Default::default()));
}

#[test]
fn apply_after_the_original_changed_is_refused_naming_the_path_and_writes_nothing() {
    let f = fixture();
    change_everything(&f.place.workdir);
    write(&f.original, "src/lib/deep.rs", b"someone else edited this");
    let before = state(&f.original);
    let err = CopyOnWrite.apply(&f.place).unwrap_err();
    assert!(
        matches!(err, SandboxError::Conflict(ref p) if p == &["src/lib/deep.rs"]),
        "{err}"
    );
    assert!(err.to_string().contains("src/lib/deep.rs"), "{err}");
    assert_eq!(state(&f.original), before);
}

#[test]
fn a_fifo_in_the_original_is_refused_at_create_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    write(&original, "a.txt", b"a");
    let status = std::process::Command::new("mkfifo")
        .arg(original.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let err = CopyOnWrite.create(&original, &area).unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    assert!(
        err.to_string()
            .contains(&original.join("pipe").display().to_string()),
        "{err}"
    );
    assert_eq!(
        fs::read_dir(&area).unwrap().count(),
        0,
        "nothing written in the area"
    );
}

#[test]
fn create_refuses_an_original_that_is_not_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    fs::write(&file, b"x").unwrap();
    let err = CopyOnWrite.create(&file, tmp.path()).unwrap_err();
    assert!(err.to_string().contains("is not a directory"), "{err}");
}

#[test]
fn destroy_removes_the_area_even_with_a_read_only_directory_inside() {
    let f = fixture();
    fs::create_dir(f.place.workdir.join("locked")).unwrap();
    write(&f.place.workdir, "locked/file", b"x");
    chmod(&f.place.workdir, "locked", 0o555);
    CopyOnWrite
        .checkpoint(&f.place, "with a locked dir")
        .unwrap();
    CopyOnWrite.destroy(&f.place).unwrap();
    assert!(!f.place.area.exists());
    assert!(f.original.join("README").exists());
}

#[test]
fn apply_handles_new_nested_directories_and_entries_that_changed_kind() {
    let f = fixture();
    let work = &f.place.workdir;
    // A directory becomes a file, a file becomes a directory, a new tree
    // three levels deep, a symlink becomes a file.
    fs::remove_dir_all(work.join("src")).unwrap();
    write(work, "src", b"now a file");
    fs::remove_file(work.join("README")).unwrap();
    write(work, "README/inside", b"now a directory");
    write(work, "a/b/c/d.txt", b"deep");
    chmod(work, "a/b", 0o750);
    fs::remove_file(work.join("link")).unwrap();
    write(work, "link", b"no longer a link");
    let diff = CopyOnWrite.diff(&f.place).unwrap();
    assert_eq!(diff.modified, ["README", "link", "src"]);
    assert_eq!(diff.deleted, ["src/lib", "src/lib/deep.rs"]);
    CopyOnWrite.apply(&f.place).unwrap();
    assert_eq!(state(&f.original), state(work));
    let leftovers: Vec<_> = fs::read_dir(&f.original)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".agents-apply-")
        })
        .collect();
    assert!(leftovers.is_empty(), "the staging directory is removed");
}

#[test]
fn a_checkpoint_left_half_written_by_a_crash_is_discarded_by_the_next() {
    let f = fixture();
    let first = CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    let half = f.place.area.join("checkpoints/2.tmp/tree");
    write(&half, "partial", b"half a checkpoint");
    let err = CopyOnWrite
        .rollback(&f.place, &CheckpointRef("2".into()))
        .unwrap_err();
    assert!(matches!(err, SandboxError::NoCheckpoint(_)), "{err}");
    write(&f.place.workdir, "README", b"second state");
    let second = CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    assert_eq!(second, CheckpointRef("2".into()));
    assert!(!f.place.area.join("checkpoints/2.tmp").exists());
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    CopyOnWrite.rollback(&f.place, &second).unwrap();
    assert_eq!(state(&f.place.workdir).get("partial"), None);
    assert_eq!(
        fs::read(f.place.workdir.join("README")).unwrap(),
        b"second state"
    );
    let label = fs::read_to_string(f.place.area.join("checkpoints/2/label")).unwrap();
    assert_eq!(label, "second");
}

#[test]
fn create_refuses_an_area_inside_the_original() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    write(&original, "a.txt", b"a");
    let area = original.join("area");
    fs::create_dir(&area).unwrap();
    let err = CopyOnWrite.create(&original, &area).unwrap_err();
    assert!(err.to_string().contains("is inside the original"), "{err}");
    assert_eq!(fs::read_dir(&area).unwrap().count(), 0);
}

#[test]
fn copy_back_never_writes_through_a_directory_swapped_for_a_symlink() {
    let f = fixture();
    write(&f.place.workdir, "src/lib/planted.txt", b"must stay inside");
    let (base, _) = super::read_manifest(&f.place.area).unwrap();
    let work = DirFd::open(&f.place.workdir).unwrap();
    let now = super::tree::scan(&work, Mounts::Stay, true).unwrap();
    let diff = super::compare(&base, &now);
    // The race apply's conflict check cannot close: after it, someone
    // replaces a directory of the original with a link leading outside.
    let elsewhere = f._tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::rename(f.original.join("src/lib"), f._tmp.path().join("moved")).unwrap();
    symlink(&elsewhere, f.original.join("src/lib")).unwrap();
    let original = DirFd::open(&f.original).unwrap();
    let err = super::copy_back(
        &f.place.area,
        &original,
        &work,
        (&base, &now, &diff),
        &|_| Ok(()),
    )
    .unwrap_err();
    assert!(err.to_string().contains("src/lib"), "{err}");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}
