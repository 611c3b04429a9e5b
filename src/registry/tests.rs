use super::*;
use crate::model::{ResourceId, ResourceKind, ResourceName, TypeName};
use crate::store::ResourceRow;

/// The spec's custom-type example, verbatim.
const PKG: &str = include_str!("../../tests/data/python-package.yaml");

fn registry() -> Registry {
    Registry::open_in_memory().unwrap()
}

fn dir_request(name: &str, dir: &std::path::Path) -> NewResource {
    NewResource {
        type_name: "fs-directory".into(),
        name: Some(name.into()),
        args: vec![("path".into(), dir.to_str().unwrap().into())],
        ..NewResource::default()
    }
}

#[test]
fn bootstrap_is_idempotent() {
    let mut r = registry();
    let before = r.list_types(None).unwrap();
    r.bootstrap_builtin_types().unwrap();
    assert_eq!(r.list_types(None).unwrap(), before);
    assert!(before.iter().any(|t| t.name.as_str() == "git-checkout"));
    assert!(before.iter().all(|t| t.built_in));
}

#[test]
fn a_registered_type_resolves_with_its_declared_fields() {
    let mut r = registry();
    let view = r.register_type_text(PKG, "pkg.yaml", false).unwrap();
    assert_eq!(view.name.as_str(), "myteam/python-package");
    assert_eq!(view.source, "pkg.yaml");
    let resolved = r.resolved_type("myteam/python-package").unwrap();
    assert!(resolved.is_a(&TypeName::parse("myteam/python-package").unwrap()));
    assert_eq!(r.list_types(Some("myteam")).unwrap().len(), 1);
}

#[test]
fn replacing_a_type_may_not_change_the_kind_of_registered_resources() {
    let mut r = registry();
    r.register_type_text(PKG, "pkg.yaml", false).unwrap();
    let dir = tempfile::tempdir().unwrap();
    r.register_resource(NewResource {
        type_name: "myteam/python-package".into(),
        name: Some("local/pkg".into()),
        args: vec![("path".into(), dir.path().to_str().unwrap().into())],
        ..NewResource::default()
    })
    .unwrap();
    let virtual_pkg = "name: myteam/python-package\nresource_kind: virtual\n";
    let err = r
        .register_type_text(virtual_pkg, "v.yaml", true)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot replace type myteam/python-package"),
        "{err}"
    );
    assert!(err.contains("from physical to virtual"), "{err}");
    let required = PKG.replace(
        "parent_types:",
        "  - {name: extra, type: string, required: true}\nparent_types:",
    );
    let err = r
        .register_type_text(&required, "r.yaml", true)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--extra required"), "{err}");
    assert_eq!(
        r.show_type("myteam/python-package").unwrap().source,
        "pkg.yaml"
    );
}

#[test]
fn a_type_with_resources_cannot_be_removed() {
    let mut r = registry();
    r.register_type_text(PKG, "pkg.yaml", false).unwrap();
    let dir = tempfile::tempdir().unwrap();
    r.register_resource(NewResource {
        type_name: "myteam/python-package".into(),
        args: vec![("path".into(), dir.path().to_str().unwrap().into())],
        ..NewResource::default()
    })
    .unwrap();
    let err = r
        .remove_type("myteam/python-package")
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 resource(s) of this type"), "{err}");
}

#[test]
fn link_refuses_a_cycle_through_three_resources() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    for n in ["local/a", "local/b", "local/c"] {
        r.register_resource(dir_request(n, dir.path())).unwrap();
    }
    r.link_child("local/a", "local/b").unwrap();
    r.link_child("local/b", "local/c").unwrap();
    let err = r.link_child("local/c", "local/a").unwrap_err();
    assert!(matches!(err, RegistryError::Cycle { .. }), "{err}");
    assert_eq!(r.get_children("local/c").unwrap().len(), 0);
}

#[test]
fn a_relative_path_without_a_base_directory_is_refused() {
    let mut r = registry();
    let err = r
        .register_resource(NewResource {
            type_name: "fs-directory".into(),
            args: vec![("path".into(), "some/dir".into())],
            ..NewResource::default()
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("relative path"), "{err}");
}

#[test]
fn batch_registration_is_all_or_nothing() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    let batch = vec![
        dir_request("local/one", dir.path()),
        dir_request("local/two", dir.path()),
        dir_request("local/one", dir.path()),
    ];
    assert!(r.register_resources(batch).is_err());
    assert!(r.list_resources(&ResourceFilter::All).unwrap().is_empty());
}

/// Insert an auto-discovered child below `parent` (as discovery would).
fn discovered_child(r: &mut Registry, parent: &str, n: u128) -> ResourceId {
    let parent = r.show_resource(parent).unwrap().resource_id;
    let id = ResourceId::from_ulid(ulid::Ulid(n));
    r.store
        .write(|w| {
            w.insert_resource(&ResourceRow {
                id,
                name: Some(ResourceName::parse(&format!("local/auto{n}")).unwrap()),
                type_name: TypeName::parse("fs-directory").unwrap(),
                kind: ResourceKind::Physical,
                location: None,
                description: None,
                read_only: false,
                auto_discovered: true,
                sandbox_strategy: None,
                content_hash: None,
                properties: Default::default(),
                created_at: "t".into(),
                updated_at: "t".into(),
            })?;
            w.insert_link(parent, id, true, "t")
        })
        .unwrap();
    id
}

#[test]
fn removal_takes_discovered_descendants_unless_another_parent_keeps_them() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    r.register_resource(dir_request("local/top", dir.path()))
        .unwrap();
    r.register_resource(dir_request("local/other", dir.path()))
        .unwrap();
    let only_mine = discovered_child(&mut r, "local/top", 1);
    let shared = discovered_child(&mut r, "local/top", 2);
    r.link_child("local/other", &shared.to_string()).unwrap();
    let dry = r.remove_resource("local/top", true).unwrap();
    assert_eq!(dry.removed.len(), 2);
    assert_eq!(r.list_resources(&ResourceFilter::All).unwrap().len(), 4);
    let report = r.remove_resource("local/top", false).unwrap();
    let gone: Vec<_> = report.removed.iter().map(|x| x.resource_id).collect();
    assert!(gone.contains(&only_mine) && !gone.contains(&shared));
    assert!(r.show_resource(&shared.to_string()).is_ok());
}

#[test]
fn replacing_a_parent_type_may_not_break_its_subtypes() {
    let mut r = registry();
    r.register_type_text("name: t/base\nresource_kind: physical\n", "b.yaml", false)
        .unwrap();
    let sub = "name: t/sub\ninherits: t/base\ncli_args:\n  - {name: path, type: path}\n";
    r.register_type_text(sub, "s.yaml", false).unwrap();
    // A virtual parent would give its subtype a path argument it cannot have.
    let err = r
        .register_type_text("name: t/base\nresource_kind: virtual\n", "b2.yaml", true)
        .unwrap_err()
        .to_string();
    assert!(err.contains("t/sub"), "{err}");
    assert_eq!(r.show_type("t/base").unwrap().source, "b.yaml");
}
