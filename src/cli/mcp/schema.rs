//! The tools' JSON Schemas: what each takes and what its structured
//! result holds. Inputs are strict (`additionalProperties: false`, so a
//! misspelt argument is refused, not ignored); outputs name the fields a
//! program relies on and allow more, as the JSON views may grow fields.
//! `register_resource`'s arguments come from each type's `cli_args`, as
//! `agents resource add TYPE`'s flags do.

use resource_host::model::{ArgType, TypeArgument};
use resource_host::registry::RegistrationForm;
use serde_json::{Map, Value, json};

/// An input schema: `properties` (name → schema) and the required names.
pub fn object(properties: &[(&str, Value)], required: &[&str]) -> Value {
    let props: Map<String, Value> = properties
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

pub fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub fn integer(description: &str, minimum: u64) -> Value {
    json!({"type": "integer", "minimum": minimum, "description": description})
}

pub fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

pub fn name_or_id() -> Value {
    string("A resource's name (local/api-repo) or its id (a ULID).")
}

pub fn sandbox_id() -> Value {
    string("A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.")
}

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

/// `register_resource`'s input: the common fields, and `args` whose
/// flags depend on `type` — one `anyOf` branch per addable type, so a
/// client (or a model) sees exactly which flags each type takes.
pub fn registration(forms: &[RegistrationForm]) -> Value {
    let types: Vec<&str> = forms.iter().map(|f| f.type_name.as_str()).collect();
    let branches: Vec<Value> = forms
        .iter()
        .map(|form| {
            let required: Vec<&str> = form
                .args
                .iter()
                .filter(|a| a.required && a.default.is_none())
                .map(|a| a.name.as_str())
                .collect();
            let flags: Map<String, Value> = form
                .args
                .iter()
                .map(|a| (a.name.clone(), flag(a)))
                .collect();
            let mut branch = json!({
                "properties": {
                    "type": {"const": form.type_name.as_str()},
                    "args": {
                        "type": "object",
                        "properties": flags,
                        "required": required,
                        "additionalProperties": false,
                    },
                },
            });
            if !required.is_empty() {
                branch["required"] = json!(["type", "args"]);
            }
            branch
        })
        .collect();
    let mut schema = object(
        &[
            (
                "type",
                json!({"type": "string", "enum": types,
                       "description": "The resource type (list_types shows each one's arguments)."}),
            ),
            (
                "name",
                string("A namespaced name, e.g. local/api-repo (optional)."),
            ),
            (
                "args",
                json!({"type": "object",
                       "description": "The type's arguments by flag name, as `agents resource add TYPE --flag value` takes them: strings, numbers and booleans. Paths must be absolute."}),
            ),
            ("description", string("What the resource is, for people.")),
            (
                "sandbox_strategy",
                string("A sandbox strategy for this resource instead of its type's."),
            ),
        ],
        &["type"],
    );
    if !branches.is_empty() {
        schema["anyOf"] = Value::Array(branches);
    }
    schema
}

/// One `cli_args` entry as a JSON Schema property.
fn flag(a: &TypeArgument) -> Value {
    let mut schema = match a.arg_type {
        ArgType::Boolean => json!({"type": "boolean"}),
        ArgType::Integer => json!({"type": "integer"}),
        ArgType::Choice => json!({"type": "string", "enum": a.choices}),
        ArgType::Path => json!({"type": "string", "description": "an absolute path"}),
        ArgType::String => json!({"type": "string"}),
    };
    if !a.description.is_empty() {
        schema["description"] = json!(a.description);
    }
    if let Some(default) = &a.default {
        schema["default"] = default.clone();
    }
    schema
}
