use super::*;
use crate::effects::FixedClock;
use crate::model::{ResourceId, ResourceKey, TypeName};
use crate::registry::{LinksError, ResourcesError};
use crate::store::ResourceRow;
use std::ops::ControlFlow;
use std::time::{Duration, UNIX_EPOCH};

/// The spec's custom-type example, verbatim.
const PKG: &str = include_str!("../../tests/data/python-package.yaml");

thread_local! {
    /// The PostgreSQL registry URL of the test running on this thread
    /// (`None`: it runs on SQLite); set by `on_both_backends!`.
    static POSTGRES: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn postgres_url() -> Option<String> {
    POSTGRES.with(|p| p.borrow().clone())
}

/// A fresh registry on the backend under test (in memory on SQLite).
fn registry() -> Registry {
    match postgres_url() {
        None => Registry::open_in_memory().unwrap(),
        Some(url) => Registry::without_home(Store::open_postgres(&url).unwrap()).unwrap(),
    }
}

pub(super) fn key(text: &str) -> ResourceKey {
    ResourceKey::parse(text).unwrap()
}

pub(super) fn dir_request(name: &str, dir: &std::path::Path) -> NewResource {
    NewResource {
        type_name: "fs-directory".into(),
        name: Some(name.into()),
        args: vec![("path".into(), dir.to_str().unwrap().into())],
        ..NewResource::default()
    }
}

/// Register the directory `dir` as `name`.
fn add_dir(r: &mut Registry, name: &str, dir: &std::path::Path) {
    r.register_resource(dir_request(name, dir), Default::default())
        .unwrap();
}

/// Register the type `yaml`, read from `source`.
fn add_type(r: &mut Registry, yaml: &str, source: &str) -> TypeView {
    r.register_type_text(yaml, source, RegisterTypeOptions::default())
        .unwrap()
}

/// Replacing a type by `yaml` (read from `source`) is refused: the refusal.
fn replace_refused(r: &mut Registry, yaml: &str, source: &str) -> String {
    r.register_type_text(yaml, source, RegisterTypeOptions::replacing())
        .unwrap_err()
        .to_string()
}

/// t/base, t/leaf inheriting it, t/holder (listing `holder_lists`, its
/// rule discovering t/leaf) and `sub_holder`: replacing t/leaf by a root
/// is refused (the refusal), leaving the four types as they were.
fn replacing_a_leaf_a_rule_names(r: &mut Registry, holder_lists: &str, sub_holder: &str) -> String {
    add_type(r, "name: t/base\nresource_kind: physical\n", "b.yaml");
    add_type(r, "name: t/leaf\ninherits: t/base\n", "l.yaml");
    let holder = format!(
        "name: t/holder\nresource_kind: physical\nchild_types: [{holder_lists}]\n\
         auto_discovery:\n  enabled: true\n  rules:\n    - {{type: t/leaf, pattern: \"*\"}}\n"
    );
    add_type(r, &holder, "h.yaml");
    add_type(r, sub_holder, "s.yaml");
    let err = replace_refused(r, "name: t/leaf\nresource_kind: physical\n", "l2.yaml");
    assert_eq!(r.show_type("t/leaf").unwrap().origin.source, "l.yaml");
    assert_eq!(r.list_types(Some("t")).unwrap().len(), 4);
    err
}

/// A registry on a home whose clock stands at `secs` past the epoch.
fn at(home: &crate::home::Home, secs: u64) -> Registry {
    let options = Options {
        clock: Box::new(FixedClock(UNIX_EPOCH + Duration::from_secs(secs))),
        registry: postgres_url().map(crate::store::RegistryLocation::Postgres),
        ..Options::default()
    };
    Registry::open_with(home, options).unwrap()
}

/// Insert an auto-discovered child below `parent` (as discovery would).
fn discovered_child(r: &mut Registry, parent: &str, n: u128) -> ResourceId {
    let parent = r.show_resource(&key(parent)).unwrap().resource_id;
    let id = ResourceId::from_ulid(ulid::Ulid(n));
    insert_discovered(r, parent, id, &format!("local/auto{n}"), "fs-directory");
    id
}

/// Write the auto-discovered `id`, `name` of `type_name`, below `parent`
/// (as discovery does).
pub(super) fn insert_discovered(
    r: &mut Registry,
    parent: ResourceId,
    id: ResourceId,
    name: &str,
    type_name: &str,
) {
    let row = ResourceRow::discovered_for_test(id, name, type_name);
    let link = crate::dag::AdmittedLink::new_child(parent, id).unwrap();
    r.store
        .write(|w| {
            w.insert_resource(&row)?;
            w.insert_link(link, true, "t", None)
        })
        .unwrap();
}

/// Each body runs twice: on SQLite and on a fresh PostgreSQL schema
/// (skipped, loudly, without a server; see `store::testing`).
macro_rules! on_both_backends {
    ($(fn $name:ident() $body:block)*) => {$(
        mod $name {
            use super::*;

            fn body() $body

            #[test]
            fn sqlite() {
                body();
            }

            #[test]
            fn postgres() {
                let Some(schema) = crate::store::testing::postgres() else {
                    return;
                };
                POSTGRES.with(|p| *p.borrow_mut() = Some(schema.url.clone()));
                body();
            }
        }
    )*};
}

on_both_backends! {
fn bootstrap_is_idempotent_and_writes_nothing_when_the_catalogue_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let home = crate::home::Home::new(dir.path());
    let first = at(&home, 1_000).list_types(Some("builtin")).unwrap();
    assert!(first.iter().any(|t| t.name.as_str() == "git-checkout"));
    assert!(first.iter().all(|t| t.built_in));
    // Opened again later: bootstrap runs and must write nothing, so no
    // row's `updated_at` moves (an upsert would stamp the later clock).
    let mut later = at(&home, 2_000);
    later.bootstrap_builtin_types().unwrap();
    assert_eq!(later.list_types(Some("builtin")).unwrap(), first);
    // The check can fail: forget the fingerprint and bootstrap writes.
    later
        .store
        .write(|w| w.set_meta("builtin_catalogue_sha256", "stale"))
        .unwrap();
    later.bootstrap_builtin_types().unwrap();
    let rewritten = later.list_types(Some("builtin")).unwrap();
    assert_ne!(rewritten, first);
    assert!(
        rewritten
            .iter()
            .all(|t| t.origin.updated_at == "1970-01-01T00:33:20.000Z")
    );
}
fn types_are_read_from_the_table_once_while_none_changes() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    let loads = r.types.loads();
    r.registration_form("fs-directory").unwrap();
    add_dir(&mut r, "local/a", dir.path());
    r.show_resource(&key("local/a")).unwrap();
    r.list_resources(&ResourceFilter::All).unwrap();
    assert!(r.types.loads() <= loads + 1, "one load for four operations");
    let before = r.types.loads();
    add_type(&mut r, PKG, "pkg.yaml");
    r.show_type("myteam/python-package").unwrap();
    assert_eq!(
        r.types.loads(),
        before + 1,
        "a type write makes the next read reload"
    );
}
fn a_registered_type_resolves_with_its_declared_fields() {
    let mut r = registry();
    let view = add_type(&mut r, PKG, "pkg.yaml");
    assert_eq!(view.name.as_str(), "myteam/python-package");
    assert_eq!(view.origin.source, "pkg.yaml");
    let resolved = r.resolved_type("myteam/python-package").unwrap();
    assert!(resolved.is_a(&TypeName::parse("myteam/python-package").unwrap()));
    assert_eq!(r.list_types(Some("myteam")).unwrap().len(), 1);
}
fn replacing_a_type_may_not_change_the_kind_of_registered_resources() {
    let mut r = registry();
    add_type(&mut r, PKG, "pkg.yaml");
    let dir = tempfile::tempdir().unwrap();
    r.register_resource(NewResource {
        type_name: "myteam/python-package".into(),
        name: Some("local/pkg".into()),
        args: vec![("path".into(), dir.path().to_str().unwrap().into())],
        ..NewResource::default()
    }, Default::default())
    .unwrap();
    let virtual_pkg = "name: myteam/python-package\nresource_kind: virtual\n";
    let err = replace_refused(&mut r, virtual_pkg, "v.yaml");
    assert!(
        err.contains("cannot replace type myteam/python-package"),
        "{err}"
    );
    assert!(err.contains("from physical to virtual"), "{err}");
    let required = PKG.replace(
        "parent_types:",
        "  - {name: extra, type: string, required: true}\nparent_types:",
    );
    let err = replace_refused(&mut r, &required, "r.yaml");
    assert!(err.contains("--extra required"), "{err}");
    assert_eq!(
        r.show_type("myteam/python-package").unwrap().origin.source,
        "pkg.yaml"
    );
}
fn a_type_with_resources_cannot_be_removed() {
    let mut r = registry();
    add_type(&mut r, PKG, "pkg.yaml");
    let dir = tempfile::tempdir().unwrap();
    r.register_resource(NewResource {
        type_name: "myteam/python-package".into(),
        args: vec![("path".into(), dir.path().to_str().unwrap().into())],
        ..NewResource::default()
    }, Default::default())
    .unwrap();
    let err = r
        .remove_type("myteam/python-package")
        .unwrap_err()
        .to_string();
    assert!(err.contains("1 resource(s) of this type"), "{err}");
}
fn link_refuses_a_cycle_through_three_resources() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    for n in ["local/a", "local/b", "local/c"] {
        add_dir(&mut r, n, dir.path());
    }
    r.link_child(&key("local/a"), &key("local/b")).unwrap();
    r.link_child(&key("local/b"), &key("local/c")).unwrap();
    let err = r.link_child(&key("local/c"), &key("local/a")).unwrap_err();
    assert!(matches!(err, RegistryError::Links(LinksError::Cycle { .. })), "{err}");
    assert_eq!(r.get_children(&key("local/c")).unwrap().len(), 0);
}
fn a_relative_path_without_a_base_directory_is_refused() {
    let mut r = registry();
    let err = r
        .register_resource(NewResource {
            type_name: "fs-directory".into(),
            args: vec![("path".into(), "some/dir".into())],
            ..NewResource::default()
        }, Default::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("relative path"), "{err}");
}
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
fn removal_takes_discovered_descendants_unless_another_parent_keeps_them() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    add_dir(&mut r, "local/top", dir.path());
    add_dir(&mut r, "local/other", dir.path());
    let only_mine = discovered_child(&mut r, "local/top", 1);
    let shared = discovered_child(&mut r, "local/top", 2);
    r.link_child(&key("local/other"), &shared.into()).unwrap();
    let dry = r.remove_resource(&key("local/top"), RemoveOptions::dry_run()).unwrap();
    assert_eq!(dry.removed.len(), 2);
    assert_eq!(r.list_resources(&ResourceFilter::All).unwrap().len(), 4);
    let report = r.remove_resource(&key("local/top"), RemoveOptions::default()).unwrap();
    let gone: Vec<_> = report.removed.iter().map(|x| x.resource_id).collect();
    assert!(gone.contains(&only_mine) && !gone.contains(&shared));
    assert!(r.show_resource(&shared.into()).is_ok());
}
fn a_cancelled_discovery_writes_nothing_and_a_later_one_finds_everything() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
    std::fs::write(dir.path().join("a/b/f"), "f\n").unwrap();
    add_dir(&mut r, "local/t", dir.path());
    let before = r.list_resources(&ResourceFilter::All).unwrap();
    std::fs::write(dir.path().join("a/b/g"), "g\n").unwrap();
    let mut heard = 0;
    let err = r
        .discover(&key("local/t"), DiscoverOptions { depth: Depth::All, progress: Some(&mut |_| {
            heard += 1;
            if heard == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        }) })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err}");
    assert_eq!(err.to_string(), "the discovery below local/t was cancelled; nothing was written");
    assert_eq!(r.list_resources(&ResourceFilter::All).unwrap(), before);
    let report = r
        .discover(&key("local/t"), DiscoverOptions { depth: Depth::All, progress: Some(&mut |_| ControlFlow::Continue(())) })
        .unwrap();
    assert!(!report.added.is_empty(), "g and what lies below a are found now");
}
fn a_cancelled_registration_registers_nothing() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), "f\n").unwrap();
    let err = r
        .register_resource(dir_request("local/t", dir.path()), RegisterOptions { progress: Some(&mut |_| ControlFlow::Break(())) })
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err}");
    assert!(r.list_resources(&ResourceFilter::All).unwrap().is_empty());
}
fn a_cancelled_refresh_keeps_what_it_refreshed_and_checks_no_further() {
    let mut r = registry();
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    add_dir(&mut r, "local/one", one.path());
    add_dir(&mut r, "local/two", two.path());
    std::fs::write(one.path().join("new"), "n\n").unwrap();
    std::fs::write(two.path().join("new"), "n\n").unwrap();
    let keys = [key("local/one"), key("local/two")];
    let err = r.refresh(&keys, RefreshOptions { progress: Some(&mut |_| ControlFlow::Break(())) }).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err}");
    assert!(err.to_string().starts_with("the refresh was cancelled after 1 resources (1 changed"), "{err}");
    // The first stays refreshed: only the second is changed now.
    let report = r.refresh(&keys, Default::default()).unwrap();
    let changed: Vec<_> = report.changed.iter().map(|c| c.resource.as_str()).collect();
    assert_eq!(changed, ["local/two"]);
}
fn a_discovery_raced_by_the_same_discovery_explores_again_and_writes_each_resource_once() {
    let dir = tempfile::tempdir().unwrap();
    let home = crate::home::Home::new(dir.path().join("home"));
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("a/b/c")).unwrap();
    std::fs::write(tree.join("a/b/c/f"), "f\n").unwrap();
    let mut first = at(&home, 1_000);
    let mut second = at(&home, 1_000);
    // Registration explores two levels: t, a, and b (not explored).
    add_dir(&mut first, "local/t", &tree);
    // Once the first has read what b holds (nothing yet), a second
    // process runs the same discovery to the end: what the first found
    // below b is then registered already.
    let mut raced = false;
    let report = first
        .discover(&key("local/t"), DiscoverOptions { depth: Depth::All, progress: Some(&mut |p| {
            if p.visited == 3 && !raced {
                raced = true;
                second
                    .discover(&key("local/t"), DiscoverOptions { depth: Depth::All, ..Default::default() })
                    .unwrap();
            }
            ControlFlow::Continue(())
        }) })
        .unwrap();
    assert!(raced);
    assert!(report.added.is_empty(), "the second added them: {:?}", report.added);
    let names: Vec<String> = first
        .list_resources(&ResourceFilter::All)
        .unwrap()
        .iter()
        .map(|r| r.name.as_ref().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 5, "t, a, b, c and f, each once: {names:?}");
}
fn replacing_a_parent_type_may_not_break_its_subtypes() {
    let mut r = registry();
    add_type(&mut r, "name: t/base\nresource_kind: physical\n", "b.yaml");
    let sub = "name: t/sub\ninherits: t/base\ncli_args:\n  - {name: path, type: path}\n";
    add_type(&mut r, sub, "s.yaml");
    // A virtual parent would give its subtype a path argument it cannot have.
    let err = replace_refused(&mut r, "name: t/base\nresource_kind: virtual\n", "b2.yaml");
    assert!(err.contains("t/sub"), "{err}");
    assert_eq!(r.show_type("t/base").unwrap().origin.source, "b.yaml");
}
fn replacing_a_type_may_not_break_a_type_whose_discovery_rule_names_it() {
    // Found by the inheritance property test: t/holder's rule discovers
    // t/leaf, allowed because t/leaf inherits t/base, a listed child type.
    // Replacing t/leaf by a root was accepted, and t/holder (and with it
    // every type listing) no longer resolved.
    let mut r = registry();
    let sub = "name: t/sub-holder\ninherits: t/holder\n";
    let err = replacing_a_leaf_a_rule_names(&mut r, "t/base", sub);
    assert!(err.contains("t/holder"), "{err}");
    assert!(err.contains("auto_discovery.rules[0].type"), "{err}");
}
fn replacing_a_type_may_not_break_a_subtype_that_inherits_a_rule_naming_it() {
    // t/holder lists t/leaf itself, so its rule holds whatever t/leaf
    // inherits; t/sub-holder inherits the rule but lists only t/base.
    let mut r = registry();
    let sub = "name: t/sub-holder\ninherits: t/holder\nchild_types: [t/base]\n\
               child_types_replace: true\n";
    let err = replacing_a_leaf_a_rule_names(&mut r, "t/leaf", sub);
    assert!(err.contains("t/sub-holder"), "{err}");
}
fn a_resource_that_is_not_a_devcontainer_has_no_container_and_is_no_refusal_for_show() {
    let mut r = registry();
    let dir = tempfile::tempdir().unwrap();
    add_dir(&mut r, "local/plain", dir.path());
    assert_eq!(r.container_of(&key("local/plain")).unwrap(), None);
    // Asked for its lifecycle directly, it is refused, saying why.
    let err = r.container_status(&key("local/plain")).unwrap_err();
    assert!(err.to_string().contains("it is a fs-directory"), "{err}");
    // A real failure is one: an unknown resource is not "no container".
    assert!(matches!(
        r.container_of(&key("local/missing")),
        Err(RegistryError::Resources(ResourcesError::ResourceNotFound { .. }))
    ));
}
}

/// The `git` a registry runs is the one its [`Options::git`] finds, never
/// the process's `PATH`: a registry handed a `PATH` without git refuses a
/// `git_worktree` sandbox, saying where it looked.
#[test]
fn a_registry_runs_only_the_git_its_options_name() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    crate::git_env::test_git(&repo, &["init", "-q"]);
    crate::git_env::test_git(&repo, &["add", "-A"]);
    crate::git_env::test_git(&repo, &["commit", "-q", "-m", "first"]);
    let home = crate::home::Home::new(tmp.path().join("home"));
    let checkout = NewResource {
        type_name: "git-checkout".into(),
        name: Some("local/repo".into()),
        args: vec![("path".into(), repo.to_str().unwrap().into())],
        ..NewResource::default()
    };
    Registry::open(&home)
        .unwrap()
        .register_resource(checkout, Default::default())
        .unwrap();
    let nowhere = tmp.path().join("no-git-here");
    std::fs::create_dir(&nowhere).unwrap();
    let options = Options {
        git: crate::git_env::GitTools::on_path(nowhere.as_os_str()),
        ..Options::default()
    };
    let mut r = Registry::open_with(&home, options).unwrap();
    let err = r
        .create_sandbox(&key("local/repo"), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!(
            "no executable git was found in PATH's absolute entries ({})",
            nowhere.display()
        )),
        "{err}"
    );
}

on_both_backends! {
fn registered_pages_follow_one_another_by_id_and_leave_out_discovered_resources() {
    let mut r = registry();
    let requests = (0..7).map(|i| NewResource {
        type_name: "container-instance".into(),
        name: Some(format!("local/c{i}")),
        args: vec![("image".into(), format!("example/app:{i}"))],
        ..NewResource::default()
    });
    let mut registered = r.register_resources(requests).unwrap();
    registered.sort();
    discovered_child(&mut r, "local/c0", u128::MAX - 1);
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = r.registered_page(after, 3).unwrap();
        assert!(page.len() <= 3);
        if page.is_empty() {
            break;
        }
        after = page.last().map(|p| p.resource_id);
        seen.extend(page.into_iter().map(|p| p.resource_id));
    }
    assert_eq!(seen, registered);
}
}
