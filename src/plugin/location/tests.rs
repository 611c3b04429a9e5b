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
        let err = contained("child 0", loc, &parent).unwrap_err();
        assert!(err.contains("passes through the symlink"), "{loc}: {err}");
    }
}

#[test]
fn an_existing_path_through_a_symlink_is_refused_even_when_it_points_inside() {
    let (_tmp, parent, _outside) = dirs();
    symlink(parent.join("sub"), parent.join("inside")).unwrap();
    std::fs::create_dir(parent.join("sub/deeper")).unwrap();
    let err = contained("child 0", "inside/deeper", &parent).unwrap_err();
    assert!(err.contains("passes through the symlink"), "{err}");
}

#[test]
fn a_final_symlink_names_the_link_itself_and_is_not_followed() {
    let (_tmp, parent, outside) = dirs();
    symlink(outside.join("later"), parent.join("dangling")).unwrap();
    let loc = contained("child 0", "dangling", &parent).unwrap();
    assert_eq!(loc, parent.join("dangling").to_str().unwrap());
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
    let err = contained("c", outside.to_str().unwrap(), &parent).unwrap_err();
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
    let err = view(&parent.join("moved/later"), views).unwrap_err();
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
    let err = view(&parent.join("gone"), None).unwrap_err();
    assert!(err.contains("no longer exists"), "{err}");
}
