//! Types, resources and links as rows, on both backends: what is written
//! reads back as it was, a failed write or a rehearsal leaves nothing,
//! the constraints refuse what the registry would, reachability and
//! reads by many ids.

use super::*;

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
