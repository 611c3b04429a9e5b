use super::*;
use std::os::unix::fs::symlink;

/// A parent directory (canonical) and a directory outside it.
fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    let parent = root.join("parent");
    let outside = root.join("outside");
    std::fs::create_dir_all(parent.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    (tmp, parent, outside)
}

#[test]
fn a_missing_tail_below_a_symlink_is_refused_in_every_form() {
    let (_tmp, parent, outside) = dirs();
    symlink(&outside, parent.join("abs")).unwrap();
    symlink("..", parent.join("up")).unwrap();
    let abs_form = parent.join("abs/later");
    for loc in ["abs/later", "up/later", abs_form.to_str().unwrap()] {
        let err = contained("child 0", loc, &parent).unwrap_err().to_string();
        assert!(err.contains("passes through the symlink"), "{loc}: {err}");
    }
}

#[test]
fn an_existing_path_through_a_symlink_is_refused_even_when_it_points_inside() {
    let (_tmp, parent, _outside) = dirs();
    symlink(parent.join("sub"), parent.join("inside")).unwrap();
    std::fs::create_dir(parent.join("sub/deeper")).unwrap();
    let err = contained("child 0", "inside/deeper", &parent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("passes through the symlink"), "{err}");
}

#[test]
fn a_final_symlink_names_the_link_itself_and_is_not_followed() {
    let (_tmp, parent, outside) = dirs();
    symlink(&outside, parent.join("link")).unwrap();
    let loc = contained("child 0", "link", &parent).unwrap();
    assert_eq!(loc, parent.join("link").to_str().unwrap());
}

#[test]
fn a_final_symlink_that_dangles_or_loops_is_told_apart() {
    let (_tmp, parent, outside) = dirs();
    symlink(outside.join("later"), parent.join("dangling")).unwrap();
    let loc = contained("child 0", "dangling", &parent).unwrap();
    assert!(super::dangling_symlink(&loc).is_some());
    symlink("loop", parent.join("loop")).unwrap();
    assert!(super::dangling_symlink(parent.join("loop").to_str().unwrap()).is_some());
    symlink(&outside, parent.join("link")).unwrap();
    assert_eq!(
        super::dangling_symlink(parent.join("link").to_str().unwrap()),
        None
    );
    assert_eq!(
        super::dangling_symlink(parent.join("sub").to_str().unwrap()),
        None
    );
}

#[test]
fn plain_and_missing_locations_inside_are_accepted_and_outside_ones_refused() {
    let (_tmp, parent, outside) = dirs();
    let sub = contained("c", "sub", &parent).unwrap();
    assert_eq!(sub, parent.join("sub").to_str().unwrap());
    assert!(contained("c", "sub/not/yet", &parent).is_ok());
    assert!(
        contained("c", "", &parent).is_ok(),
        "the parent's own location"
    );
    let err = contained("c", outside.to_str().unwrap(), &parent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("lies outside"), "{err}");
    assert!(contained("c", "sub/../../outside", &parent).is_err());
}

#[test]
fn a_directory_is_viewed_through_its_own_descriptor() {
    let (_tmp, parent, _outside) = dirs();
    let views = parent.join("../views");
    let views = Some(views.as_path());
    let view = view(&parent.join("sub"), views).unwrap();
    assert_eq!(view.guest, parent.join("sub").to_str().unwrap());
    assert!(view.host.starts_with("/proc/self/fd/"), "{:?}", view.host);
    assert_eq!(
        std::fs::canonicalize(&view.host).unwrap(),
        parent.join("sub")
    );
}

#[test]
fn a_directory_that_became_a_symlink_is_refused_at_use() {
    let (_tmp, parent, outside) = dirs();
    let views = parent.join("../views");
    let views = Some(views.as_path());
    std::fs::create_dir(parent.join("moved")).unwrap();
    std::fs::remove_dir(parent.join("moved")).unwrap();
    symlink(&outside, parent.join("moved")).unwrap();
    // A directory below it: the path now leads outside.
    std::fs::create_dir(outside.join("later")).unwrap();
    let err = view(&parent.join("moved/later"), views)
        .unwrap_err()
        .to_string();
    assert!(err.contains("now resolves to"), "{err}");
    // The location itself a symlink: a one-entry view of the link only.
    let linked = view(&parent.join("moved"), views).unwrap();
    assert_eq!(linked.guest, parent.to_str().unwrap());
    let entries: Vec<_> = std::fs::read_dir(&linked.host)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["moved"]);
}

#[test]
fn a_file_is_viewed_alone() {
    let (_tmp, parent, _outside) = dirs();
    let views = parent.join("../views");
    let views = Some(views.as_path());
    std::fs::write(parent.join("notes.txt"), "mine").unwrap();
    std::fs::write(parent.join("secret.txt"), "not yours").unwrap();
    let view = view(&parent.join("notes.txt"), views).unwrap();
    assert_eq!(view.guest, parent.to_str().unwrap());
    let entries: Vec<_> = std::fs::read_dir(&view.host)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(view.host.join("notes.txt")).unwrap(),
        "mine"
    );
    let host = view.host.clone();
    drop(view);
    assert!(!host.exists(), "the view goes with the call");
}

#[test]
fn a_vanished_location_is_said_so() {
    let (_tmp, parent, _outside) = dirs();
    let err = view(&parent.join("gone"), None).unwrap_err().to_string();
    assert!(err.contains("no longer exists"), "{err}");
}

#[test]
fn a_listing_gives_each_entry_its_lstat_in_name_order_following_nothing() {
    let (_tmp, parent, outside) = dirs();
    std::fs::write(parent.join("b.txt"), "bee").unwrap();
    std::fs::write(parent.join("a.txt"), "a").unwrap();
    std::fs::hard_link(parent.join("a.txt"), parent.join("a-too.txt")).unwrap();
    symlink(&outside, parent.join("out")).unwrap();
    let view = view(&parent, None).unwrap();
    let listing = view.dir_entries(".", 100).unwrap();
    let names: Vec<&str> = listing.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a-too.txt", "a.txt", "b.txt", "out", "sub"]);
    let stat = |name: &str| listing.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(stat("a.txt").links, 2);
    assert_eq!(stat("a.txt").inode, stat("a-too.txt").inode);
    assert_eq!(stat("b.txt").size, 3);
    assert_eq!(stat("out").mode & 0o170_000, 0o120_000, "the link itself");
    assert_eq!(stat("sub").mode & 0o170_000, 0o040_000);
    assert!(stat("b.txt").modified_ns > 0);
    // The same answers as lstat, entry by entry.
    for (name, listed) in &listing {
        assert_eq!(view.entry_stat(name).as_ref(), Some(listed), "{name}");
    }
    // Below, by absolute or relative path; not through the symlink, not
    // outside, not past a limit.
    let abs = parent.join("sub");
    assert!(
        view.dir_entries(abs.to_str().unwrap(), 100)
            .unwrap()
            .is_empty()
    );
    assert!(
        view.dir_entries("out", 100).is_err(),
        "a symlink is not followed"
    );
    assert!(view.dir_entries(outside.to_str().unwrap(), 100).is_err());
    assert!(view.dir_entries("sub/..", 100).is_err());
    let err = view.dir_entries(".", 2).unwrap_err().to_string();
    assert!(err.contains("more than 2 entries"), "{err}");
}

#[test]
fn the_host_hashes_regular_files_inside_only() {
    let (_tmp, parent, outside) = dirs();
    std::fs::write(parent.join("sub/data.bin"), b"abc").unwrap();
    std::fs::write(outside.join("secret"), b"secret").unwrap();
    symlink(outside.join("secret"), parent.join("link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        parent.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let view = view(&parent, None).unwrap();
    let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(view.sha256_file("sub/data.bin", 1024).unwrap(), abc);
    let abs = parent.join("sub/data.bin");
    assert_eq!(view.sha256_file(abs.to_str().unwrap(), 1024).unwrap(), abc);
    let err = view.sha256_file("sub/data.bin", 2).unwrap_err().to_string();
    assert!(err.contains("more than the 2 hashed"), "{err}");
    assert!(
        view.sha256_file("link", 1024).is_err(),
        "a symlink is not followed"
    );
    let err = view.sha256_file("fifo", 1024).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    assert!(view.sha256_file("sub", 1024).is_err());
    assert!(
        view.sha256_file(outside.join("secret").to_str().unwrap(), 1024)
            .is_err()
    );
    assert!(view.sha256_file("missing", 1024).is_err());
}
