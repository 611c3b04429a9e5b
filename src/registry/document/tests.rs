use super::*;
use crate::digest::sha256_hex;
use crate::model::{
    ClassName, ModuleName, Priority, ResourceId, ResourceKind, ResourceName, SandboxStrategy,
    SettingScope,
};
use crate::plugin::ClassInfo;

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

fn resource(n: u128, name: &str) -> ResourceRow {
    ResourceRow {
        id: id(n),
        name: Some(ResourceName::parse(name).unwrap()),
        type_name: TypeName::parse("fs-directory").unwrap(),
        kind: ResourceKind::Physical,
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
        registered_by: Some(crate::model::Actor::new(crate::model::Face::Cli, "alice")),
    }
}

fn sample() -> RegistryDocument {
    let component = b"\0asm not really a component";
    RegistryDocument {
        header: Header {
            format: FORMAT.into(),
            version: VERSION,
            schema_version: 6,
            exported_at: "2026-01-03T00:00:00.000Z".into(),
            produced_by: "agents test".into(),
            builtin_catalogue: Some("f".repeat(64)),
        },
        types: vec![TypeEntry {
            name: TypeName::parse("acme/pkg").unwrap(),
            origin: TypeOrigin {
                source: "pkg.yaml".into(),
                created_at: "2026-01-01T00:00:00.000Z".into(),
                updated_at: "2026-01-01T00:00:00.000Z".into(),
            },
            spec: "name: acme/pkg\nresource_kind: physical\n".into(),
        }],
        plugins: vec![PluginEntry {
            row: PluginRow {
                module: ModuleName::parse("acme.py").unwrap(),
                version: "1.0".into(),
                sha256: sha256_hex(component),
                classes: vec![ClassInfo {
                    name: ClassName::parse("Pkg").unwrap(),
                    description: "a package".into(),
                }],
                size_bytes: component.len() as i64,
                source: "x.wasm".into(),
                added_at: "2026-01-01T00:00:00.000Z".into(),
            },
            provenance: None,
            component_base64: Some(base64::encode(component)),
        }],
        resources: vec![resource(1, "local/a"), resource(2, "local/b")],
        links: vec![LinkRow {
            parent: id(1),
            child: id(2),
            auto_discovered: false,
            derived: false,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            linked_by: Some(crate::model::Actor::new(
                crate::model::Face::Mcp,
                "client/1.0",
            )),
        }],
        environment_settings: vec![
            SettingRow {
                scope: SettingScope::Plan("fast".into()),
                resource: None,
                priority: Priority::Fallback,
                updated_at: "2026-01-01T00:00:00.000Z".into(),
            },
            SettingRow {
                scope: SettingScope::Project,
                resource: Some(id(2)),
                priority: Priority::Override,
                updated_at: "2026-01-01T00:00:00.000Z".into(),
            },
        ],
        events: vec![EventRow {
            seq: 7,
            txn: 7,
            at: "2026-01-01T00:00:00.000Z".into(),
            op: "link.linked".into(),
            kind: "link".into(),
            subject_id: Some(id(2).to_string()),
            subject_name: Some("local/r2".into()),
            related_id: Some(id(1).to_string()),
            changes: Some(serde_json::json!({"parent": {"name": "local/r1"}})),
            actor: crate::model::Actor::new(crate::model::Face::Cli, "alice"),
        }],
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
    let text = edited(|v| v["types"][0]["colour"] = "blue".into());
    refused(&text, &["types[0]", "unknown field `colour`"]);
    let text = edited(|v| v["events"][0]["op"] = "link.exploded".into());
    refused(
        &text,
        &["events[0] (seq 7)", "unknown variant `link.exploded`"],
    );
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
    let text = edited(|v| v["environment_settings"][0]["plan"] = Value::Null);
    refused(
        &text,
        &["environment_settings[0]", "a plan setting names its plan"],
    );
    let text = edited(|v| v["environment_settings"][0]["colour"] = "blue".into());
    refused(
        &text,
        &["environment_settings[0]", "unknown field `colour`"],
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

#[test]
fn a_location_registration_would_not_store_is_refused() {
    for (location, why) in [
        ("relative/path", "not an absolute path"),
        ("../../../etc", "not an absolute path"),
        ("/tmp/../etc", "holds `..`"),
        ("/tmp/./x", "not canonical"),
        ("/tmp//x", "not canonical"),
        ("/tmp/x/", "not canonical"),
        ("/tmp/x\0y", "NUL byte"),
    ] {
        let text = edited(|v| v["resources"][0]["location"] = location.into());
        refused(&text, &["resources[0]", "its location", why]);
    }
    let long = format!("/{}", "d/".repeat(2100));
    let text = edited(|v| v["resources"][0]["location"] = long.trim_end_matches('/').into());
    refused(&text, &["longer than 4096 bytes"]);
}

#[test]
fn timestamps_text_and_properties_are_held_to_registrations_bounds() {
    let text = edited(|v| v["resources"][1]["created_at"] = "not a time".into());
    refused(
        &text,
        &[
            "resources[1]",
            "created_at \"not a time\" is not a UTC timestamp",
        ],
    );
    let text = edited(|v| v["links"][0]["created_at"] = "yesterday".into());
    refused(&text, &["links[0]", "not a UTC timestamp"]);
    let text = edited(|v| v["types"][0]["updated_at"] = "2026-02-30T00:00:00Z".into());
    refused(&text, &["types[0]", "updated_at"]);
    let huge = "d".repeat(crate::model::DESCRIPTION_MAX + 1);
    let text = edited(|v| v["resources"][0]["description"] = huge.into());
    refused(
        &text,
        &[
            "resources[0]",
            "description is 65537 bytes, more than the 65536",
        ],
    );
    let text = edited(|v| v["resources"][0]["description"] = "a\0b".into());
    refused(&text, &["description holds a NUL byte"]);
    let text = edited(|v| v["resources"][0]["properties"]["k"] = serde_json::json!({"x": ["a\0"]}));
    refused(&text, &["the value of property \"k\" holds a NUL byte"]);
    let many: serde_json::Map<String, Value> = (0..1001)
        .map(|i| (format!("k{i}"), Value::from(i)))
        .collect();
    let text = edited(|v| v["resources"][0]["properties"] = Value::Object(many));
    refused(&text, &["1001 properties, more than the 1000 allowed"]);
    let text = edited(|v| v["plugins"][0]["classes"][0]["description"] = "c".repeat(70_000).into());
    refused(&text, &["plugins[0]", "the description of class Pkg"]);
}

#[test]
fn nesting_past_the_bound_is_refused_in_yaml_and_json_before_serde_reads_it() {
    let depth = crate::yaml_bounds::MAX_DEPTH + 1;
    let yaml = format!(
        "format: agents-registry\nversion: 1\nx: {}1{}\n",
        "{a: ".repeat(depth),
        "}".repeat(depth)
    );
    refused(&yaml, &["the YAML is refused", "deeper than 64 levels"]);
    let json = format!(
        "{{\"format\": \"agents-registry\", \"version\": 1, \"x\": {}1{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    refused(&json, &["the JSON is refused", "deeper than 64 levels"]);
    // A document far deeper than that (a 200 KB one) is refused the same
    // way — and at once: the bound is checked while the text is read.
    let deep = format!(
        "format: agents-registry\nversion: 1\nx: {}1{}\n",
        "{a: ".repeat(40_000),
        "}".repeat(40_000)
    );
    refused(&deep, &["deeper than 64 levels"]);
    let mut laughs =
        String::from("format: agents-registry\nversion: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (from, to) in ["ab", "bc", "cd", "de", "ef", "fg", "gh"]
        .iter()
        .map(|p| (&p[..1], &p[1..]))
    {
        let refs = vec![format!("*{from}"); 10].join(", ");
        laughs.push_str(&format!("{to}: &{to} [{refs}]\n"));
    }
    refused(&laughs, &["aliases expand to more than"]);
}
