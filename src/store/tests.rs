use super::db::Tx;
use super::schema::{Migrations, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
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
        kind: Some(ResourceKind::Physical),
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
    ResourceRow::new(
        id(n),
        Some(ResourceName::parse(&format!("local/r{n}")).unwrap()),
        TypeName::parse(type_name).unwrap(),
        ResourceKind::Physical,
        "2026-01-01T00:00:00.000Z",
    )
}

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

#[test]
fn a_new_file_is_migrated_to_the_current_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = Store::open(&path).unwrap();
    let Backend::Sqlite { conn, .. } = &store.backend else {
        unreachable!()
    };
    assert_eq!(user_version(conn).unwrap(), SCHEMA_VERSION);
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // A page cache that holds a big registration's transaction (SQLite's
    // default, 2 MiB, spills a git/git-sized checkout's rows mid-way).
    let cache: i64 = conn
        .pragma_query_value(None, "cache_size", |r| r.get(0))
        .unwrap();
    assert_eq!(cache, -(64 << 10));
    drop(store);
    // Opening again is a no-op migration.
    Store::open(&path).unwrap();
}

#[test]
fn the_log_and_its_index_outlive_the_connection_so_a_full_disk_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registry.db");
    let store = Store::open(&path).unwrap();
    drop(store);
    // Emptied, not deleted; the index kept (opening needs no new space).
    let wal = std::fs::metadata(dir.path().join("registry.db-wal")).unwrap();
    assert_eq!(wal.len(), 0);
    assert!(dir.path().join("registry.db-shm").exists());
    Store::open(&path).unwrap();
}

#[test]
fn a_full_disk_is_said_plainly() {
    use rusqlite::ffi;
    let failure = |code| rusqlite::Error::SqliteFailure(ffi::Error::new(code), None);
    for code in [ffi::SQLITE_FULL, ffi::SQLITE_IOERR_SHMSIZE] {
        let text = StoreError::from(failure(code)).to_string();
        assert!(
            text.starts_with("the disk holding the registry is full: SQLite could not")
                && text.ends_with("free some space and run the command again"),
            "{text}"
        );
    }
    let other = StoreError::from(failure(ffi::SQLITE_CORRUPT));
    assert!(matches!(other, StoreError::Sqlite(_)), "{other}");
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

/// Each body runs twice: on SQLite in memory and on a fresh PostgreSQL
/// schema (skipped, loudly, without a server).
macro_rules! on_both_backends {
    ($(fn $name:ident(mut $store:ident: Store) $body:block)*) => {$(
        mod $name {
            use super::*;

            fn body(mut $store: Store) $body

            #[test]
            fn sqlite() {
                body(Store::open_in_memory().unwrap());
            }

            #[test]
            fn postgres() {
                if let Some(schema) = testing::postgres() {
                    body(Store::open_postgres(&schema.url).unwrap());
                }
            }
        }
    )*};
}

on_both_backends! {
fn type_rows_round_trip_the_declared_spec(mut store: Store) {
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
    assert_eq!(got.origin.source, "file.yaml");
}

fn a_failed_write_leaves_nothing_behind(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    let result: Result<(), StoreError> = store.write(|w| {
        w.upsert_type(&base, "builtin", "t0")?;
        w.insert_resource(&row(1, "no-such-type"))
    });
    assert!(result.is_err());
    assert!(store.read(|r| r.types()).unwrap().is_empty());
}

fn reachability_follows_links_and_ignores_other_branches(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            for n in 1..=5 {
                w.insert_resource(&row(n, "fs-directory"))?;
            }
            // 1 → 2 → 3, 1 → 4; 5 alone
            w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(1), id(2)), false, "t", None)?;
            w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(2), id(3)), false, "t", None)?;
            w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(1), id(4)), false, "t", None)
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

fn the_link_table_refuses_self_links_even_without_the_registry(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    let result = store.write(|w| {
        w.upsert_type(&base, "builtin", "t0")?;
        w.insert_resource(&row(1, "fs-directory"))?;
        w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(1), id(1)), false, "t", None)
    });
    assert!(result.is_err());
}

fn a_taken_name_is_refused_by_the_constraint_as_name_taken(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    let result = store.write(|w| {
        w.upsert_type(&base, "builtin", "t0")?;
        w.insert_resource(&row(1, "fs-directory"))?;
        let mut twin = row(2, "fs-directory");
        twin.name = row(1, "fs-directory").name;
        w.insert_resource(&twin)
    });
    match result {
        Err(StoreError::NameTaken { name }) => assert_eq!(name.as_str(), "local/r1"),
        other => panic!("expected NameTaken, got {other:?}"),
    }
}

fn the_types_generation_moves_on_every_type_write_and_only_then(mut store: Store) {
    let generation = |s: &Store| s.read(|r| r.types_generation()).unwrap();
    let start = generation(&store);
    let mut base = spec("fs-directory");
    base.built_in = true;
    store
        .write(|w| w.upsert_type(&base, "builtin", "t0"))
        .unwrap();
    let inserted = generation(&store);
    assert!(inserted > start);
    store
        .write(|w| w.upsert_type(&base, "builtin", "t1"))
        .unwrap();
    let updated = generation(&store);
    assert!(updated > inserted);
    store
        .write(|w| w.insert_resource(&row(1, "fs-directory")))
        .unwrap();
    assert_eq!(
        generation(&store),
        updated,
        "a resource write is not a type write"
    );
    store
        .write(|w| {
            w.delete_resources(&[id(1)])?;
            w.delete_type(&base.name)
        })
        .unwrap();
    assert!(generation(&store) > updated);
}

fn a_row_holding_invalid_data_is_reported_by_table_and_key(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            w.insert_resource(&row(1, "fs-directory"))
        })
        .unwrap();
    store.execute_raw("UPDATE resources SET properties_json = 'nope'");
    let err = store.read(|r| r.resource_by_id(id(1))).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&format!("resources[{}]", id(1))), "{text}");
}

fn reads_by_many_ids_take_one_statement_past_sqlites_parameter_limit(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    // 1 → 2 → 3, and 40,000 ids that name nothing (past the 32,766
    // parameters one statement may bind).
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            for n in 1..=3 {
                w.insert_resource(&row(n, "fs-directory"))?;
            }
            w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(1), id(2)), true, "t", None)?;
            w.insert_link(crate::dag::AdmittedLink::unchecked_for_test(id(2), id(3)), true, "t", None)
        })
        .unwrap();
    let mut ids: Vec<ResourceId> = (100..40_100).map(id).collect();
    ids.push(id(2));
    store
        .read(|r| {
            let below = r.subgraph_below(&ids)?;
            // Every link into the subgraph, those into the roots included.
            assert_eq!(below.edges, vec![(id(1), id(2)), (id(2), id(3))]);
            let rows = r.resources_by_ids(&ids)?;
            assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [id(2)]);
            let (children, parents) = r.links_of(&ids)?;
            assert_eq!(children.get(&id(2)), Some(&vec![id(3)]));
            assert_eq!(parents.get(&id(2)), Some(&vec![id(1)]));
            assert_eq!(r.children_rows(id(1))?.len(), 1);
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn inserted_types_are_recorded_as_written_and_a_rollback_forgets_them(mut store: Store) {
    let mut dir = spec("fs-directory");
    dir.built_in = true;
    let file = spec("fs-file");
    store
        .write(|w| {
            w.upsert_type(&dir, "builtin", "t0")?;
            w.upsert_type(&file, "builtin", "t0")?;
            w.forget_written_types()
        })
        .unwrap();
    // A failed write notes nothing.
    let failed: Result<(), StoreError> = store.write(|w| {
        w.insert_resource(&row(1, "fs-file"))?;
        w.insert_resource(&row(2, "no-such-type"))
    });
    assert!(failed.is_err());
    assert!(store.read(|r| r.written_types()).unwrap().is_empty());
    // Several rows of one type through one inserter, and one of another.
    let written = store
        .write(|w| {
            let mut inserter = w.resource_inserter()?;
            for n in 3..6 {
                inserter.insert(&row(n, "fs-directory"))?;
            }
            w.insert_resource(&row(6, "fs-file"))?;
            w.written_types()
        })
        .unwrap();
    let want: std::collections::BTreeSet<String> =
        ["fs-directory", "fs-file"].map(String::from).into();
    assert_eq!(written, want);
}

fn a_rehearsal_sees_its_own_writes_and_then_leaves_nothing(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    let seen = store
        .rehearse(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            w.insert_resource(&row(1, "fs-directory"))?;
            Ok::<_, StoreError>(w.resources(None)?.len())
        })
        .unwrap();
    assert_eq!(seen, 1);
    assert!(store.read(|r| r.types()).unwrap().is_empty());
    assert_eq!(store.read(|r| r.counts()).unwrap(), Counts::default());
}

fn rows_written_verbatim_read_back_with_their_flags_and_timestamps(mut store: Store) {
    let mut base = spec("fs-directory");
    base.built_in = true;
    base.handler = None;
    let custom = TypeRow {
        spec: spec("myteam/python-package"),
        origin: TypeOrigin {
            source: "pkg.yaml".into(),
            created_at: "2020-01-01T00:00:00.000Z".into(),
            updated_at: "2021-01-01T00:00:00.000Z".into(),
        },
    };
    let link = LinkRow {
        parent: id(1),
        child: id(2),
        auto_discovered: true,
        derived: true,
        created_at: "2022-01-01T00:00:00.000Z".into(),
        linked_by: Some(crate::model::Actor::new(crate::model::Face::Mcp, "client/1")),
    };
    store
        .write(|w| {
            w.upsert_type(&base, "builtin", "t0")?;
            w.insert_type_row(&custom)?;
            w.insert_resource(&row(1, "fs-directory"))?;
            w.insert_resource(&row(2, "fs-directory"))?;
            w.insert_link_row(&link)
        })
        .unwrap();
    store
        .read(|r| {
            assert_eq!(r.type_row(&custom.spec.name)?.as_ref(), Some(&custom));
            assert_eq!(r.link_rows()?, std::slice::from_ref(&link));
            assert_eq!(r.link_row(id(1), id(2))?, Some(link.clone()));
            assert_eq!(r.link_row(id(2), id(1))?, None);
            assert_eq!(r.schema_version()?, SCHEMA_VERSION);
            let counts = r.counts()?;
            assert_eq!((counts.builtin_types, counts.custom_types), (1, 1));
            assert_eq!((counts.resources, counts.links), (2, 1));
            Ok::<_, StoreError>(())
        })
        .unwrap();
}
}

#[test]
fn both_backends_have_the_same_migrations_by_number_and_name() {
    let names = |list: Migrations| list.iter().map(|(name, _)| *name).collect::<Vec<_>>();
    assert_eq!(names(SQLITE_MIGRATIONS), names(POSTGRES_MIGRATIONS));
}

/// Several processes meeting an empty PostgreSQL schema at once migrate it
/// once (the advisory lock), and all of them work.
#[test]
fn concurrent_first_opens_of_a_postgres_schema_migrate_it_once() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    let opened: Vec<_> = (0..6)
        .map(|_| {
            let url = schema.url.clone();
            std::thread::spawn(move || Store::open_postgres(&url).map(|_| ()))
        })
        .collect();
    for handle in opened {
        handle.join().unwrap().unwrap();
    }
    let store = Store::open_postgres(&schema.url).unwrap();
    let Backend::Postgres { conn, .. } = &store.backend else {
        unreachable!()
    };
    let rows: i64 = Tx::Postgres(conn)
        .value("SELECT count(*) FROM agents_schema_migrations", args![])
        .unwrap();
    assert_eq!(rows, SCHEMA_VERSION);
    assert_eq!(store.read(|r| r.schema_version()).unwrap(), SCHEMA_VERSION);
}

/// The race behind "relation … already exists" when processes meet a
/// fresh schema: one looked while another was migrating (nothing
/// committed yet), then waited for the migration lock. Under the lock it
/// must see what the other made, not its connection's cached "no such
/// table".
#[test]
fn a_migration_that_waited_for_another_applies_nothing_again() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    let connect = || PgConn::new(location::connect(&schema.url).unwrap());
    let (first, second, watcher) = (connect(), connect(), connect());
    first.batch("BEGIN").unwrap();
    pg::apply_migrations(&first, "first").unwrap();
    assert_eq!(pg::version(&second, false).unwrap(), 0);
    let waiting = std::thread::spawn(move || pg::migrate(&second, "second"));
    let blocked = format!(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
         AND classid = {}",
        pg::MIGRATION_LOCK
    );
    while Tx::Postgres(&watcher)
        .value::<i64>(&blocked, args![])
        .unwrap()
        == 0
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    first.batch("COMMIT").unwrap();
    waiting.join().unwrap().unwrap();
    assert_eq!(pg::version(&watcher, true).unwrap(), SCHEMA_VERSION);
}

#[test]
fn a_newer_postgres_schema_is_refused_and_left_untouched() {
    let Some(schema) = testing::postgres() else {
        return;
    };
    drop(Store::open_postgres(&schema.url).unwrap());
    let mut admin = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "INSERT INTO agents_schema_migrations (version, name) VALUES ({}, 'future')",
            SCHEMA_VERSION + 3
        ))
        .unwrap();
    let tables = |admin: &mut postgres::Client| -> i64 {
        admin
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let before = tables(&mut admin);
    let err = Store::open_postgres(&schema.url).unwrap_err().to_string();
    assert!(err.contains("newer than this agents binary"), "{err}");
    assert!(err.contains(&(SCHEMA_VERSION + 3).to_string()), "{err}");
    assert_eq!(tables(&mut admin), before);
}

#[test]
fn a_server_that_does_not_answer_is_named_without_its_password() {
    let err = Store::open_postgres("postgres://me:hunter2@127.0.0.1:1/db?connect_timeout=2")
        .unwrap_err()
        .to_string();
    assert!(err.contains("postgres://me:***@127.0.0.1:1/db"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

// ---- the event log (store::events) ----

fn event<'a>(at: &'a str, name: &'a str, actor: &'a crate::model::Actor) -> NewEvent<'a> {
    NewEvent {
        at,
        op: "resource.registered",
        kind: "resource",
        subject_id: Some(name),
        subject_name: Some(name),
        related_id: None,
        changes: None,
        actor,
    }
}

on_both_backends! {
fn events_are_numbered_gap_free_and_share_their_writes_first_number(mut store: Store) {
    let alice = crate::model::Actor::new(crate::model::Face::Cli, "alice");
    let t = "2026-01-01T00:00:00.000Z";
    let seqs = store
        .write(|w| {
            let a = w.record(&event(t, "local/a", &alice))?;
            let b = w.record(&event(t, "local/b", &alice))?;
            Ok::<_, StoreError>((a, b))
        })
        .unwrap();
    assert_eq!(seqs, (1, 2));
    // A rolled-back write and a rehearsal take no number.
    let failed: Result<(), StoreError> = store.write(|w| {
        w.record(&event(t, "local/c", &alice))?;
        Err(StoreError::Corrupt { what: "test".into(), reason: "roll back".into() })
    });
    assert!(failed.is_err());
    store.rehearse(|w| w.record(&event(t, "local/d", &alice))).unwrap();
    let third = store.write(|w| w.record(&event(t, "local/e", &alice))).unwrap();
    assert_eq!(third, 3);
    let rows = store
        .read(|r| r.events(&EventSelect { limit: 10, ..EventSelect::default() }))
        .unwrap();
    let got: Vec<(i64, i64, Option<&str>)> = rows
        .iter()
        .map(|e| (e.seq, e.txn, e.subject_name.as_deref()))
        .collect();
    assert_eq!(got, [(1, 1, Some("local/a")), (2, 1, Some("local/b")), (3, 3, Some("local/e"))]);
    assert_eq!(rows[0].actor, alice);
    assert_eq!(store.read(|r| r.last_event_seq()).unwrap(), 3);
}

fn pruning_keeps_the_high_water_mark(mut store: Store) {
    let bob = crate::model::Actor::new(crate::model::Face::Mcp, "bob/1");
    for at in ["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"] {
        store.write(|w| w.record(&event(at, "local/x", &bob))).unwrap();
    }
    let removed = store
        .write(|w| w.prune_events(None, Some("2026-02-01T00:00:00.000Z")))
        .unwrap();
    assert_eq!(removed, 1);
    let removed = store.write(|w| w.prune_events(Some(10), None)).unwrap();
    assert_eq!(removed, 2);
    assert_eq!(store.read(|r| r.last_event_seq()).unwrap(), 3);
    let next = store
        .write(|w| w.record(&event("2026-04-01T00:00:00.000Z", "local/y", &bob)))
        .unwrap();
    assert_eq!(next, 4);
}

fn events_are_found_by_subject_name_prefix_and_time(mut store: Store) {
    let carol = crate::model::Actor::new(crate::model::Face::Python, "carol");
    store
        .write(|w| {
            w.record(&event("2026-01-01T00:00:00.000Z", "local/p", &carol))?;
            w.record(&event("2026-01-02T00:00:00.000Z", "local/p/child", &carol))?;
            w.record(&event("2026-01-03T00:00:00.000Z", "local/p0", &carol))?;
            w.record(&event("2026-01-04T00:00:00.000Z", "local/q", &carol))
        })
        .unwrap();
    let names = |select: EventSelect| -> Vec<String> {
        store
            .read(|r| r.events(&EventSelect { limit: 100, ..select }))
            .unwrap()
            .into_iter()
            .map(|e| e.subject_name.unwrap())
            .collect()
    };
    let below = names(EventSelect {
        names: vec!["local/p".into()],
        prefixes: vec!["local/p/".into()],
        ..EventSelect::default()
    });
    assert_eq!(below, ["local/p", "local/p/child"]);
    let recent = names(EventSelect {
        from_at: Some("2026-01-03T00:00:00.000Z".into()),
        newest_first: true,
        ..EventSelect::default()
    });
    assert_eq!(recent, ["local/q", "local/p0"]);
}
}
