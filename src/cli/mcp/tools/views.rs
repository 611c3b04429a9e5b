//! The schemas of the tools' answers: each names the fields a program
//! relies on and allows more, as the JSON views may grow fields.

use serde_json::{Map, Value, json};

/// An output schema: an object with at least `required`, whose named
/// fields have these types.
pub fn output(properties: &[(&str, Value)], required: &[&str]) -> Value {
    let props: Map<String, Value> = properties
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    json!({"type": "object", "properties": props, "required": required})
}

/// A list wrapped in an object (`{"resources": [...]}`).
pub fn list_of(field: &str, item: Value) -> Value {
    output(
        &[(field, json!({"type": "array", "items": item}))],
        &[field],
    )
}

fn nullable(kind: &str) -> Value {
    json!({"type": [kind, "null"]})
}

/// The resource view (`resource show -o json`).
pub fn resource() -> Value {
    output(
        &[
            ("resource_id", json!({"type": "string"})),
            ("name", nullable("string")),
            ("resource_type_name", json!({"type": "string"})),
            ("classification", json!({"type": "string"})),
            ("location", nullable("string")),
            ("content_hash", nullable("string")),
            (
                "parents",
                json!({"type": "array", "items": {"type": "string"}}),
            ),
            (
                "children",
                json!({"type": "array", "items": {"type": "string"}}),
            ),
            ("properties", json!({"type": "object"})),
            ("created_at", json!({"type": "string"})),
            ("updated_at", json!({"type": "string"})),
        ],
        &[
            "resource_id",
            "resource_type_name",
            "classification",
            "parents",
            "children",
            "properties",
        ],
    )
}

/// The type view (`resource type show -o json`).
pub fn resource_type() -> Value {
    output(
        &[
            ("name", json!({"type": "string"})),
            ("description", json!({"type": "string"})),
            ("resource_kind", json!({"type": "string"})),
            ("user_addable", json!({"type": "boolean"})),
            ("cli_args", json!({"type": "array"})),
        ],
        &["name", "resource_kind", "cli_args"],
    )
}

/// The sandbox view (`sandbox show -o json`).
pub fn sandbox() -> Value {
    output(
        &[
            ("sandbox_id", json!({"type": "string"})),
            ("resource", json!({"type": "string"})),
            ("strategy", json!({"type": "string"})),
            ("state", json!({"type": "string"})),
        ],
        &["sandbox_id", "strategy"],
    )
}

/// Any object (views whose shape is the CLI's and documented there).
pub fn any_object() -> Value {
    json!({"type": "object"})
}
