use super::*;
use crate::model::{
    HandlerRef, ResourceId, ResourceKind, ResourceName, SandboxStrategy, TypeArgument, TypeName,
    TypeSpec,
};

fn spec(name: &str) -> TypeSpec {
    TypeSpec {
        name: TypeName::parse(name).unwrap(),
        inherits: None,
        description: Some("d".into()),
        resource_kind: Some(ResourceKind::Physical),
        sandbox_strategy: Some(SandboxStrategy::CopyOnWrite),
        user_addable: Some(true),
        built_in: false,
        cli_args: vec![TypeArgument {
            name: "path".into(),
            arg_type: crate::model::ArgType::Path,
            required: true,
            description: String::new(),
            default: None,
            choices: vec![],
        }],
        parent_types: vec![],
        child_types: vec![TypeName::parse("fs-directory").unwrap()],
        replace: Default::default(),
        handler: Some(HandlerRef::parse("myteam.python:PythonPackageHandler").unwrap()),
        capabilities: Default::default(),
        auto_discovery: None,
        equivalence: None,
    }
}

fn row(n: u128, type_name: &str) -> ResourceRow {
    ResourceRow {
        id: ResourceId::from_ulid(ulid::Ulid(n)),
        name: Some(ResourceName::parse(&format!("local/r{n}")).unwrap()),
        type_name: TypeName::parse(type_name).unwrap(),
        kind: ResourceKind::Physical,
        location: None,
        description: None,
        read_only: false,
        auto_discovered: false,
        sandbox_strategy: None,
        content_hash: None,
        properties: Default::default(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        updated_at: "2026-01-01T00:00:00.000Z".into(),
    }
}

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

#[test]
fn a_new_file_is_migrated_to_the_current_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = Store::open(&path).unwrap();
    assert_eq!(user_version(&store.conn).unwrap(), SCHEMA_VERSION);
    let mode: String = store
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(store);
    // Opening again is a no-op migration.
    Store::open(&path).unwrap();
}

#[test]
fn a_schema_newer_than_the_binary_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 7)
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("newer than this agents binary"), "{text}");
    assert!(text.contains(&format!("{}", SCHEMA_VERSION + 7)), "{text}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!dir.path().join("registry.db-wal").exists());
}

#[test]
fn type_rows_round_trip_the_declared_spec() {
    let mut store = Store::open_in_memory().unwrap();
    let mut base = spec("fs-directory");
    base.built_in = true;
    base.handler = None;
    let custom = spec("myteam/python-package");
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            w.upsert_type(&custom, "file.yaml", "t1")
        })
        .unwrap();
    let rows = store.read(|r| r.types()).unwrap();
    assert_eq!(rows.len(), 2);
    let got = rows.iter().find(|r| r.spec.name == custom.name).unwrap();
    assert_eq!(got.spec, custom);
    assert_eq!(got.source, "file.yaml");
}

#[test]
fn a_failed_write_leaves_nothing_behind() {
    let mut store = Store::open_in_memory().unwrap();
    let mut base = spec("fs-directory");
    base.built_in = true;
    let result: Result<(), StoreError> = store.write(|w| {
        w.upsert_type(&base, "builtin", "t0")?;
        w.insert_resource(&row(1, "no-such-type"))
    });
    assert!(result.is_err());
    assert!(store.read(|r| r.types()).unwrap().is_empty());
}

#[test]
fn reachability_follows_links_and_ignores_other_branches() {
    let mut store = Store::open_in_memory().unwrap();
    let mut base = spec("fs-directory");
    base.built_in = true;
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            for n in 1..=5 {
                w.insert_resource(&row(n, "fs-directory"))?;
            }
            // 1 → 2 → 3, 1 → 4; 5 alone
            w.insert_link(id(1), id(2), false, "t")?;
            w.insert_link(id(2), id(3), false, "t")?;
            w.insert_link(id(1), id(4), false, "t")
        })
        .unwrap();
    store
        .read(|r| {
            assert!(r.reaches(id(1), id(3))?);
            assert!(r.reaches(id(3), id(3))?);
            assert!(!r.reaches(id(3), id(1))?);
            assert!(!r.reaches(id(4), id(3))?);
            assert!(!r.reaches(id(1), id(5))?);
            assert_eq!(r.edges_below(id(1), 1)?.len(), 2);
            assert_eq!(r.edges_below(id(1), 5)?.len(), 3);
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

#[test]
fn the_link_table_refuses_self_links_even_without_the_registry() {
    let mut store = Store::open_in_memory().unwrap();
    let mut base = spec("fs-directory");
    base.built_in = true;
    let result = store.write(|w| {
        w.upsert_type(&base, "builtin", "t0")?;
        w.insert_resource(&row(1, "fs-directory"))?;
        w.insert_link(id(1), id(1), false, "t")
    });
    assert!(result.is_err());
}
