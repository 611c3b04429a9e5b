//! The one home of "do these arguments fit the tool": every `tools/call`
//! deserialises its arguments into the tool's type (whose schema is the
//! one `tools/list` shows) before the tool does anything. A misspelt
//! argument is refused, never ignored (`deny_unknown_fields`):
//! `remove_resource {"dryRun": true}` would otherwise remove. serde's
//! error, with the path `serde_path_to_error` adds, becomes a refusal
//! that names the argument, what was expected and the arguments there
//! are, in the same words for every tool; an argument given as `null` is
//! refused (the schemas say absent, not null). `register_resource`'s
//! per-type arguments are checked against the type's `cli_args`
//! (`tools::register`), in the same words.
//!
//! Every refusal is of kind `invalid_arguments`.

use super::kinds::Refusal;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// `args` as tool `tool`'s arguments `T`; `schema` is its input schema,
/// whose properties a refusal lists.
pub fn read<T: DeserializeOwned>(
    tool: &str,
    schema: &Value,
    args: Map<String, Value>,
) -> Result<T, Refusal> {
    if let Some((name, _)) = args.iter().find(|(_, v)| v.is_null()) {
        let wanted = schema["properties"][name]["type"]
            .as_str()
            .unwrap_or("absent");
        let wanted = words(wanted);
        return Err(Refusal::invalid(must_be(tool, name, "", &wanted, "null")));
    }
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|error| {
        let path = error.path().to_string();
        let serde = error.into_inner().to_string();
        let named = |prefix: &str| serde.strip_prefix(prefix)?.split('`').next();
        let properties = schema["properties"].as_object().into_iter().flatten();
        let known = known(properties.map(|(name, _)| name.as_str()));
        Refusal::invalid(if let Some(name) = named("unknown field `") {
            format!("{tool} takes no argument {name:?}; the arguments it takes are: {known}")
        } else if let Some(name) = named("missing field `") {
            format!("{tool} needs the argument {name:?}; the arguments it takes are: {known}")
        } else if let Some((given, wanted)) = serde
            .strip_prefix("invalid type: ")
            .and_then(|r| r.split_once(", expected "))
        {
            must_be(tool, &path, "", &words(wanted), &words(given))
        } else if let Some((given, wanted)) = serde
            .strip_prefix("invalid value: ")
            .and_then(|r| r.split_once(", expected "))
        {
            let given = given.split('`').nth(1).unwrap_or(given);
            must_be(tool, &path, "", &words(wanted), given)
        } else {
            format!("{tool}: the argument {path:?}: {serde}")
        })
    })
}

/// `"{tool}: the argument "{path}"{context} must be {wanted}, not {given}"`.
pub fn must_be(tool: &str, path: &str, context: &str, wanted: &str, given: &str) -> String {
    format!("{tool}: the argument {path:?}{context} must be {wanted}, not {given}")
}

/// A JSON Schema type, or serde's word for a value's type or for what it
/// expected, in the words of a refusal (`a boolean (true or false)`, `a
/// whole number`, `a list`, …); anything else as it is.
pub fn words(serde: &str) -> String {
    let kind = serde.trim_start_matches("a ").split(' ').next();
    match kind.unwrap_or_default() {
        "boolean" => "a boolean (true or false)",
        "string" => "a string",
        "integer" => "a whole number",
        "floating" | "number" => "a number",
        "map" | "object" => "an object",
        "sequence" | "array" => "a list",
        _ => serde,
    }
    .to_owned()
}

/// The arguments a refusal says there are: their names, or `none`.
pub fn known<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::mcp::tools::catalogue;
    use serde_json::{Value, json};

    /// Tool `tool`'s refusal of `args` (deserialised as its type).
    fn refused(tool: &str, args: Value) -> String {
        let entry = catalogue().into_iter().find(|t| t.name == tool).unwrap();
        let refusal = entry.check(args.as_object().unwrap().clone()).unwrap_err();
        assert_eq!(refusal.kind, "invalid_arguments", "{}", refusal.message);
        refusal.message
    }

    fn accepted(tool: &str, args: Value) {
        let entry = catalogue().into_iter().find(|t| t.name == tool).unwrap();
        if let Err(r) = entry.check(args.as_object().unwrap().clone()) {
            panic!("{tool} {args} refused: {}", r.message);
        }
    }

    #[test]
    fn a_misspelt_argument_is_refused_with_the_known_ones() {
        let message = refused(
            "remove_resource",
            json!({"name_or_id": "local/a", "dryRun": true}),
        );
        assert!(message.contains("\"dryRun\""), "{message}");
        assert!(
            message.contains("are: dry_run, force, name_or_id"),
            "{message}"
        );
    }

    #[test]
    fn a_wrong_type_is_refused_naming_the_argument_and_the_type() {
        let message = refused(
            "remove_resource",
            json!({"name_or_id": "local/a", "dry_run": "yes"}),
        );
        assert!(message.contains("\"dry_run\""), "{message}");
        assert!(message.contains("must be a boolean"), "{message}");
        assert!(
            message.contains("(true or false), not a string"),
            "{message}"
        );
        let message = refused("refresh", json!({"names": ["local/a", 7]}));
        assert!(message.contains("\"names[1]\""), "{message}");
        let message = refused("discover", json!({"name_or_id": "local/a", "depth": 0}));
        assert!(message.contains("at least 1"), "{message}");
        let message = refused("discover", json!({"name_or_id": "local/a", "depth": 1.5}));
        assert!(message.contains("whole number"), "{message}");
    }

    #[test]
    fn a_missing_required_argument_is_refused() {
        let message = refused("show_resource", json!({}));
        assert!(
            message.contains("needs the argument \"name_or_id\""),
            "{message}"
        );
        let message = refused("link_child", json!({"parent": "local/a"}));
        assert!(message.contains("\"child\""), "{message}");
    }

    #[test]
    fn null_is_not_an_absent_argument() {
        let message = refused("list_types", json!({"namespace": null}));
        assert!(message.contains("not null"), "{message}");
    }

    #[test]
    fn the_listed_arguments_are_accepted() {
        accepted("list_types", json!({}));
        accepted(
            "list_resources",
            json!({"type": "fs-directory", "limit": 3}),
        );
        accepted("refresh", json!({"names": ["local/a"]}));
        accepted(
            "remove_resource",
            json!({"name_or_id": "local/a", "dry_run": true, "force": false}),
        );
        accepted(
            "register_resource",
            json!({"type": "git-checkout", "name": "local/a",
                   "args": {"path": "/src/a", "depth": 2, "bare": false}}),
        );
    }
}
