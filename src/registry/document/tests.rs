use super::*;
use crate::digest::sha256_hex;

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

fn resource(n: u128, name: &str) -> ResourceEntry {
    ResourceEntry {
        resource_id: id(n),
        name: Some(ResourceName::parse(name).unwrap()),
        resource_type_name: TypeName::parse("fs-directory").unwrap(),
        classification: ResourceKind::Physical,
        location: Some(format!("/tmp/{n}")),
        description: None,
        read_only: false,
        auto_discovered: false,
        sandbox_strategy: Some(SandboxStrategy::CopyOnWrite),
        content_hash: Some("abc".into()),
        properties: [(
            "k".to_owned(),
            serde_json::json!({"nested": [1, "two", null]}),
        )]
        .into_iter()
        .collect(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        updated_at: "2026-01-02T00:00:00.000Z".into(),
        discovered_at: None,
        stale: Some("its location vanished".into()),
    }
}

fn sample() -> RegistryDocument {
    let component = b"\0asm not really a component";
    RegistryDocument {
        format: FORMAT.into(),
        version: VERSION,
        schema_version: 6,
        exported_at: "2026-01-03T00:00:00.000Z".into(),
        produced_by: "agents test".into(),
        builtin_catalogue: Some("f".repeat(64)),
        types: vec![TypeEntry {
            name: TypeName::parse("acme/pkg").unwrap(),
            source: "pkg.yaml".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            spec: "name: acme/pkg\nresource_kind: physical\n".into(),
        }],
        plugins: vec![PluginEntry {
            module: ModuleName::parse("acme.py").unwrap(),
            version: "1.0".into(),
            sha256: sha256_hex(component),
            classes: vec![ClassEntry {
                name: ClassName::parse("Pkg").unwrap(),
                description: "a package".into(),
            }],
            size_bytes: component.len() as i64,
            source: "x.wasm".into(),
            added_at: "a".into(),
            component_base64: Some(base64::encode(component)),
        }],
        resources: vec![resource(1, "local/a"), resource(2, "local/b")],
        links: vec![LinkEntry {
            parent_id: id(1),
            child_id: id(2),
            auto_discovered: false,
            derived: false,
            created_at: "l".into(),
        }],
        environment_settings: vec![
            SettingEntry {
                scope: SettingKind::Plan,
                plan: Some("fast".into()),
                resource_id: None,
                priority: Priority::Fallback,
                updated_at: "s".into(),
            },
            SettingEntry {
                scope: SettingKind::Project,
                plan: None,
                resource_id: Some(id(2)),
                priority: Priority::Override,
                updated_at: "s".into(),
            },
        ],
    }
}

#[track_caller]
fn refused(text: &str, fragments: &[&str]) -> DocumentError {
    let err = RegistryDocument::parse(text).expect_err("the document was accepted");
    let message = err.to_string();
    for fragment in fragments {
        assert!(message.contains(fragment), "{fragment:?} not in: {message}");
    }
    err
}

/// `sample()` as JSON with `edit` applied to its value.
fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut value = serde_json::to_value(sample()).unwrap();
    edit(&mut value);
    value.to_string()
}

#[test]
fn a_document_reads_back_equal_from_json_and_from_yaml() {
    let doc = sample();
    assert_eq!(RegistryDocument::parse(&doc.to_json()).unwrap(), doc);
    assert_eq!(RegistryDocument::parse(&doc.to_yaml()).unwrap(), doc);
    let component = doc.plugins[0].component().unwrap().unwrap();
    assert_eq!(component, b"\0asm not really a component");
}

#[test]
fn a_newer_version_is_refused_as_newer_before_its_contents_are_judged() {
    let text = r#"{"format": "agents-registry", "version": 2, "whatever": {"new": true}}"#;
    let err = refused(text, &["version 2", "newer", "up to 1"]);
    assert!(matches!(err, DocumentError::TooNew { found: 2 }));
    refused("format: agents-registry\nversion: 0\n", &["version 0"]);
}

#[test]
fn text_that_is_not_a_registry_document_is_refused_saying_so() {
    refused("", &["not a registry document"]);
    refused("[1, 2]", &["expected a mapping", "a list"]);
    refused("{\"format\": ", &["invalid JSON"]);
    refused("a: [", &["invalid YAML"]);
    let other = refused("format: acme-backup\nversion: 1\n", &["\"acme-backup\""]);
    assert!(matches!(other, DocumentError::UnknownFormat { .. }));
    refused("format: agents-registry\n", &["no `version`"]);
}

#[test]
fn a_mistake_in_an_item_names_the_item_and_unknown_keys_are_refused() {
    let text = edited(|v| v["resources"][1]["colour"] = "blue".into());
    refused(&text, &["resources[1]", "unknown field `colour`"]);
    let text = edited(|v| v["links"][0]["parent_id"] = "not-an-id".into());
    refused(&text, &["links[0]"]);
    let text = edited(|v| v["extra"] = 1.into());
    refused(&text, &["(document)", "unknown field `extra`"]);
    let text = edited(|v| {
        v.as_object_mut().unwrap().remove("links");
    });
    refused(&text, &["links: missing"]);
}

#[test]
fn a_document_that_contradicts_itself_is_refused_naming_the_item() {
    let text = edited(|v| v["resources"][1]["name"] = "local/a".into());
    refused(&text, &["resource name local/a is already at"]);
    let text = edited(|v| v["resources"][1]["resource_id"] = id(1).to_string().into());
    refused(&text, &["resources[1]", "already at resources[0]"]);
    let text = edited(|v| v["links"][0]["child_id"] = id(9).to_string().into());
    refused(&text, &["links[0]", "not in the document's resources"]);
    let text = edited(|v| v["environment_settings"][1]["plan"] = "x".into());
    refused(
        &text,
        &["environment_settings[1]", "a project setting has no plan"],
    );
    let text = edited(|v| v["resources"][0]["classification"] = "virtual".into());
    refused(
        &text,
        &["resources[0]", "a virtual resource has no location"],
    );
    let text = edited(|v| v["plugins"][0]["sha256"] = "F".repeat(64).into());
    refused(&text, &["plugins[0] (acme.py)", "64 lowercase hex"]);
}

#[test]
fn an_embedded_component_must_hash_to_its_recorded_sha256() {
    let text = edited(|v| v["plugins"][0]["component_base64"] = base64::encode(b"other").into());
    refused(
        &text,
        &["plugins[0] (acme.py)", "hashes to", "changed or damaged"],
    );
    let text = edited(|v| v["plugins"][0]["component_base64"] = "%%%%".into());
    refused(&text, &["component_base64", "not a base64 character"]);
}
