//! The descriptor walkers' own rules, each checked against a swap made
//! the way a hostile agent would make it (`renameat2(RENAME_EXCHANGE)`).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::Path;

use super::{Cursor, DirFd, Mounts, contents};
use crate::sandbox::SandboxError;
use crate::sandbox::copy_on_write::tree::{self, Entry, Kind};
use crate::sandbox::seam::{self, Moment};
use crate::sandbox::test_support::{Outside, bind, exchange, swap_for_link};

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

#[test]
fn a_cursor_refuses_a_component_swapped_for_a_symlink_to_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "b");
    let root = tmp.path().join("root");
    write(&root.join("a/b/inside"), b"inside");
    let dir = DirFd::open(&root).unwrap();
    let mut at = Cursor::new(&dir, Mounts::Stay);
    assert_eq!(at.parent("a/b/inside").unwrap().1, "inside");
    // Swapped after the first look: a fresh path to it must not follow.
    swap_for_link(&root.join("a"), &outside.dir);
    let mut again = Cursor::new(&dir, Mounts::Stay);
    let err = again.parent("a/b/inside").unwrap_err();
    assert!(matches!(err, SandboxError::Changed { .. }), "{err}");
    assert!(err.to_string().contains("root/a"), "{err}");
    outside.assert_untouched();
}

#[test]
fn a_file_swapped_for_a_link_or_a_fifo_is_refused_when_opened_without_blocking() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "sub");
    let root = tmp.path().join("root");
    write(&root.join("f"), b"mine");
    write(&root.join("g"), b"mine too");
    let dir = DirFd::open(&root).unwrap();
    swap_for_link(&root.join("f"), &outside.secret);
    let err = dir.open_file(OsStr::new("f")).unwrap_err();
    assert!(err.to_string().contains("became a symlink"), "{err}");
    fs::remove_file(root.join("g")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("g"))
        .status()
        .unwrap();
    assert!(made.success());
    let err = dir.open_file(OsStr::new("g")).unwrap_err();
    assert!(
        err.to_string().contains("stopped being a regular file"),
        "{err}"
    );
    outside.assert_untouched();
}

#[test]
fn a_walk_never_follows_a_directory_swapped_between_its_look_and_its_descent() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "sub");
    let root = tmp.path().join("root");
    write(&root.join("sub/inside"), b"inside");
    let dir = DirFd::open(&root).unwrap();
    let how = tree::Walk {
        mounts: Mounts::Stay,
        to_owner: false,
    };
    let link = outside.dir.join("sub");
    let mut seen = Vec::new();
    let walked = tree::walk(&dir, how, &mut |found| {
        if let tree::Found::Entry { rel, .. } = found {
            seen.push(rel.to_owned());
            if rel == "sub" {
                // Looked at as a directory; replaced before it is entered.
                swap_for_link(&root.join("sub"), &link);
            }
        }
        Ok(true)
    });
    let err = walked.unwrap_err();
    assert!(matches!(err, SandboxError::Changed { .. }), "{err}");
    assert_eq!(seen, ["sub"], "nothing of the outside was listed");
    outside.assert_untouched();
}

#[test]
fn removal_removes_a_symlink_swapped_in_and_never_what_it_points_at() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "sub");
    let root = tmp.path().join("root");
    write(&root.join("sub/inside"), b"inside");
    write(&root.join("sub/deeper/more"), b"more");
    fs::set_permissions(root.join("sub/deeper"), fs::Permissions::from_mode(0o500)).unwrap();
    let (sub, link) = (root.join("sub"), outside.dir.join("sub"));
    let mut swapped = false;
    let _armed = seam::arm(move |moment, name| {
        if moment == Moment::Remove && name == "sub" && !swapped {
            swapped = true;
            swap_for_link(&sub, &link);
        }
    });
    tree::remove_tree(&root).unwrap();
    assert!(!root.exists(), "the tree is gone, links and all");
    outside.assert_untouched();
}

#[test]
fn removal_refuses_a_mount_inside_naming_it_and_leaves_what_is_mounted_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "sub");
    let root = tmp.path().join("root");
    write(&root.join("a/file"), b"a");
    let Some(_bound) = bind(
        &outside.dir,
        &root.join("a/mounted"),
        "removal_refuses_a_mount_inside_naming_it_and_leaves_what_is_mounted_alone",
    ) else {
        return;
    };
    let err = tree::remove_tree(&root).unwrap_err();
    match &err {
        SandboxError::Mounted { points } => assert_eq!(points, &[root.join("a/mounted")]),
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("umount"), "{err}");
    outside.assert_untouched();
}

#[test]
fn a_walk_of_a_sandbox_tree_refuses_a_mount_and_one_of_an_original_crosses_it() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = Outside::new(tmp.path(), "sub");
    let root = tmp.path().join("root");
    write(&root.join("file"), b"f");
    let Some(_bound) = bind(
        &outside.dir,
        &root.join("mounted"),
        "a_walk_of_a_sandbox_tree_refuses_a_mount_and_one_of_an_original_crosses_it",
    ) else {
        return;
    };
    let dir = DirFd::open(&root).unwrap();
    let err = tree::scan(&dir, Mounts::Stay, false).unwrap_err();
    assert!(matches!(err, SandboxError::Mounted { .. }), "{err}");
    let crossed = tree::scan(&dir, Mounts::Cross, false).unwrap();
    assert!(crossed.contains_key("mounted/secret.txt"), "{crossed:?}");
}

#[test]
fn a_copy_keeps_the_holes_of_a_sparse_file_and_its_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir(&src).unwrap();
    let file = fs::File::create(src.join("sparse")).unwrap();
    let size = 4u64 << 30;
    file.set_len(size).unwrap();
    use std::os::unix::fs::FileExt;
    file.write_all_at(b"head", 0).unwrap();
    file.write_all_at(b"middle", 1 << 31).unwrap();
    file.write_all_at(b"tail", size - 4).unwrap();
    drop(file);
    let from = DirFd::open(&src).unwrap();
    let to = DirFd::open(tmp.path()).unwrap();
    let entry = Entry {
        kind: Kind::File,
        mode: 0o644,
        size,
        digest: "-".into(),
    };
    tree::copy_entry(
        (&from, OsStr::new("sparse")),
        (&to, OsStr::new("copy")),
        &entry,
    )
    .unwrap();
    let copy = fs::metadata(tmp.path().join("copy")).unwrap();
    assert_eq!(copy.len(), size);
    assert!(
        copy.blocks() * 512 < 1 << 20,
        "a 4 GiB file with three short runs of data takes {} blocks",
        copy.blocks()
    );
    let copied = fs::File::open(tmp.path().join("copy")).unwrap();
    let mut buf = [0u8; 6];
    copied.read_exact_at(&mut buf, 1 << 31).unwrap();
    assert_eq!(&buf, b"middle");
    copied.read_exact_at(&mut buf[..4], size - 4).unwrap();
    assert_eq!(&buf[..4], b"tail");
}

#[test]
fn the_format_2_digest_of_a_sparse_file_is_the_digest_of_its_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("sparse");
    let file = fs::File::create(&path).unwrap();
    file.set_len(3 << 20).unwrap();
    use std::os::unix::fs::FileExt;
    file.write_all_at(b"data in the middle", 1 << 20).unwrap();
    drop(file);
    let bytes = fs::read(&path).unwrap();
    let opened = fs::File::open(&path).unwrap();
    let digest = contents::digest_v2(&opened, bytes.len() as u64).unwrap();
    assert_eq!(digest, blake3::hash(&bytes).to_hex().to_string());
    let segments = contents::data_segments(&opened, bytes.len() as u64).unwrap();
    assert!(
        segments.iter().all(|(s, e)| *s >= 1 << 19 && *e <= 2 << 20),
        "only the middle is data: {segments:?}"
    );
}

#[test]
fn a_copy_carries_permission_bits_not_setuid_setgid_or_a_files_sticky_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    write(&src.join("tool"), b"#!/bin/sh\n");
    write(&src.join("shared/file"), b"f");
    write(&src.join("tmp/file"), b"f");
    fs::set_permissions(src.join("tool"), fs::Permissions::from_mode(0o7755)).unwrap();
    fs::set_permissions(src.join("shared"), fs::Permissions::from_mode(0o2775)).unwrap();
    fs::set_permissions(src.join("tmp"), fs::Permissions::from_mode(0o1777)).unwrap();
    let from = DirFd::open(&src).unwrap();
    let listed = tree::scan(&from, Mounts::Stay, false).unwrap();
    let to = DirFd::open(tmp.path()).unwrap();
    tree::copy_tree((&from, Mounts::Stay), (&to, OsStr::new("copy")), &listed).unwrap();
    let mode = |rel: &str| {
        fs::metadata(tmp.path().join("copy").join(rel))
            .unwrap()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("tool"), 0o755);
    assert_eq!(mode("shared"), 0o775);
    assert_eq!(mode("tmp"), 0o1777, "a directory keeps its sticky bit");
}

#[test]
fn exchange_swaps_two_entries_of_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("a/x"), b"a");
    write(&tmp.path().join("b/y"), b"b");
    let dir = DirFd::open(tmp.path()).unwrap();
    dir.exchange(OsStr::new("a"), OsStr::new("b")).unwrap();
    assert!(tmp.path().join("a/y").exists() && tmp.path().join("b/x").exists());
    exchange(&tmp.path().join("a"), &tmp.path().join("b"));
    assert_eq!(fs::read(tmp.path().join("a/x")).unwrap(), b"a");
    symlink("a", tmp.path().join("l")).unwrap();
    assert_eq!(dir.read_link(OsStr::new("l")).unwrap(), "a");
}

#[test]
fn the_stat_of_an_entry_is_what_std_reports_so_older_stat_records_still_match() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("f");
    write(&path, b"bytes");
    let ours = super::lstat(&path).unwrap();
    let std = fs::symlink_metadata(&path).unwrap();
    assert_eq!(
        (ours.dev, ours.ino, ours.mode, ours.size),
        (std.dev(), std.ino(), std.mode() & 0o7777, std.len())
    );
    assert_eq!(
        ours.mtime_ns,
        i128::from(std.mtime()) * 1_000_000_000 + i128::from(std.mtime_nsec())
    );
    assert_eq!(
        ours.ctime_ns,
        i128::from(std.ctime()) * 1_000_000_000 + i128::from(std.ctime_nsec())
    );
}
