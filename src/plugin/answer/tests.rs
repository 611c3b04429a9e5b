use super::*;

const V: ContractVersion = ContractVersion::V0_1_0;

fn raw(type_name: &str, location: Option<&str>) -> RawChild {
    RawChild {
        type_name: type_name.into(),
        name: Some("x".into()),
        location: location.map(Into::into),
        ..RawChild::default()
    }
}

fn info(module: &str, classes: &[&str]) -> RawInfo {
    RawInfo {
        module: module.into(),
        version: "1.0.0".into(),
        classes: classes
            .iter()
            .map(|c| (c.to_string(), String::new()))
            .collect(),
    }
}

#[test]
fn a_child_with_an_invalid_type_name_is_refused() {
    let err = children(
        vec![raw("Not A Type!", None)],
        None,
        &AnswerBounds::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("child 0: type name \"Not A Type!\""),
        "{err}"
    );
}

#[test]
fn a_relative_child_location_is_resolved_inside_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    let parent = dir.path().to_str().unwrap();
    let kids = children(
        vec![raw("fs-directory", Some("pkg"))],
        Some(parent),
        &AnswerBounds::default(),
    )
    .unwrap();
    let expected = std::fs::canonicalize(dir.path().join("pkg")).unwrap();
    assert_eq!(kids[0].location.as_deref(), expected.to_str());
}

#[test]
fn a_child_location_outside_the_parent_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().to_str().unwrap();
    let err = children(
        vec![raw("fs-directory", Some("/etc"))],
        Some(parent),
        &AnswerBounds::default(),
    )
    .unwrap_err();
    // A value a caller can match, with the parts its message names.
    let AnswerRefusal::Placement(crate::plugin::PlacementRefusal::Outside {
        what,
        location,
        parent: held_by,
    }) = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((what.as_str(), location.as_str()), ("child 0", "/etc"));
    assert_eq!(held_by, dir.path());
    assert_eq!(
        err.to_string(),
        format!("child 0's location \"/etc\" lies outside the resource's location {parent}")
    );
}

#[test]
fn a_child_location_climbing_with_dotdot_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().to_str().unwrap();
    let err = children(
        vec![raw("fs-directory", Some("a/../../b"))],
        Some(parent),
        &AnswerBounds::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("contains `..`"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_child_location_through_an_outward_symlink_is_refused_and_the_link_itself_is_kept_as_is() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    let parent = std::fs::canonicalize(dir.path()).unwrap();
    let parent = parent.to_str().unwrap();
    let err = children(
        vec![raw("fs-directory", Some("link/inner"))],
        Some(parent),
        &AnswerBounds::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("passes through the symlink"), "{err}");
    // The link itself is a location (the link, never where it points).
    let kept = children(
        vec![raw("fs-symlink", Some("link"))],
        Some(parent),
        &AnswerBounds::default(),
    )
    .unwrap();
    assert_eq!(
        kept[0].location.as_deref(),
        Some(&*format!("{parent}/link"))
    );
}

#[test]
fn a_child_location_without_a_parent_location_is_refused() {
    let err = children(
        vec![raw("fs-directory", Some("/tmp"))],
        None,
        &AnswerBounds::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("the resource has none"), "{err}");
}

#[test]
fn more_children_than_the_bound_are_refused_before_any_is_checked() {
    let bounds = AnswerBounds {
        max_children: 2,
        ..AnswerBounds::default()
    };
    let err = children(vec![RawChild::default(); 3], None, &bounds)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("3 children, more than the 2 allowed"),
        "{err}"
    );
    assert!(err.contains("--handler-max-children"), "{err}");
}

#[test]
fn describe_must_name_a_usable_module_and_distinct_classes() {
    let b = AnswerBounds::default();
    assert!(plugin_info(info("myteam.python", &["A", "B"]), V, &b).is_ok());
    assert!(
        plugin_info(info("my team", &["A"]), V, &b)
            .unwrap_err()
            .to_string()
            .contains("module")
    );
    assert!(
        plugin_info(info("m", &[]), V, &b)
            .unwrap_err()
            .to_string()
            .contains("no classes")
    );
    assert!(
        plugin_info(info("m", &["A", "A"]), V, &b)
            .unwrap_err()
            .to_string()
            .contains("twice")
    );
    assert!(plugin_info(info("m", &["not-ident"]), V, &b).is_err());
}

#[test]
fn a_content_hash_longer_than_the_column_is_refused() {
    let b = AnswerBounds::default();
    assert!(content_hash("sha256:ab".into(), &b).is_ok());
    let err = content_hash("h".repeat(20 << 20), &b)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than the 128 allowed"), "{err}");
    assert!(content_hash(String::new(), &b).is_err());
}

#[test]
fn inspection_fields_are_bounded_like_properties() {
    let b = AnswerBounds::default();
    let pair = |k: &str| (k.to_owned(), "v".to_owned());
    let ok = inspection("text".into(), vec![pair("a"), pair("b")], &b).unwrap();
    assert_eq!(ok.fields.len(), 2);
    let twice = inspection("text".into(), vec![pair("a"), pair("a")], &b)
        .unwrap_err()
        .to_string();
    assert!(twice.contains("inspection fields"), "{twice}");
    let long = inspection("x".repeat(b.max_text_bytes + 1), Vec::new(), &b)
        .unwrap_err()
        .to_string();
    assert!(long.contains("inspection text"), "{long}");
}

#[test]
fn no_answer_carries_a_url_credential_into_the_host() {
    let b = AnswerBounds::default();
    let url = "https://alice:TOKEN@git.example.com/team/repo.git";
    let props = properties(vec![("url".into(), url.into())], &b).unwrap();
    assert_eq!(props[0].1, "https://git.example.com/team/repo.git");
    let mut child = raw("git-remote", None);
    child.properties = vec![("push-url".into(), "ssh://git:pw@host/x.git".into())];
    let found = children(vec![child], None, &b).unwrap();
    assert_eq!(found[0].properties[0].1, "ssh://git@host/x.git");
    let seen = inspection(
        format!("remote origin\nurl {url}\n"),
        vec![("url".into(), url.into())],
        &b,
    )
    .unwrap();
    assert!(!seen.text.contains("TOKEN") && !seen.fields[0].1.contains("TOKEN"));
    let err = handler_error(HandlerError::Failed(format!("cannot reach {url}")), &b).unwrap();
    assert_eq!(
        err,
        HandlerError::Failed("cannot reach https://git.example.com/team/repo.git".into())
    );
}

#[test]
fn a_broken_bound_is_a_refusal_a_caller_can_match() {
    let bounds = AnswerBounds {
        max_children: 2,
        ..AnswerBounds::default()
    };
    assert_eq!(
        children(vec![RawChild::default(); 3], None, &bounds).unwrap_err(),
        AnswerRefusal::TooManyChildren { count: 3, max: 2 }
    );
    assert_eq!(
        content_hash(String::new(), &bounds).unwrap_err(),
        AnswerRefusal::EmptyHash
    );
}
