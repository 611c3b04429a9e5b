//! The one home of "do these arguments fit the tool's input schema":
//! every `tools/call` is checked here, against the very schema
//! `tools/list` shows for the tool (derived from its arguments' type by
//! [`super::tools`]; `register_resource`'s from the types' `cli_args`),
//! before the tool does anything. A misspelt argument is refused, never
//! ignored: `remove_resource {"dryRun": true}` would otherwise remove.
//! Checking the schema rather than relying on deserialisation is what
//! lets each refusal name the argument, what was expected and the
//! arguments there are, in the same words for every tool.
//!
//! The schemas are ours, so this reads the part of JSON Schema they use:
//! `type`, `properties`, `required`, `additionalProperties: false`,
//! `items`, `enum`, `const`, `minimum`, and `anyOf` branches told apart by
//! a `const` property (registration's one branch per type). A keyword it
//! does not know is a bug in a tool's type, not a reason to let a value
//! through: the tests walk every tool's schema for such keywords
//! (`KNOWN_KEYWORDS` in the tests).
//!
//! Every refusal is of kind `invalid_arguments` and names the argument,
//! what was expected, and (for an unknown one) the arguments there are.

use super::kinds::Refusal;
use super::tools::Entry;
use resource_host::registry::Registry;
use serde_json::{Map, Value};

/// Check a call's arguments against the schema its tool lists now.
pub fn check_call(
    registry: &Registry,
    tool: &Entry,
    args: &Map<String, Value>,
) -> Result<(), Refusal> {
    check(tool.name, &tool.input(registry)?, args)
}

/// Check `args` of tool `tool` against its input `schema`.
pub fn check(tool: &str, schema: &Value, args: &Map<String, Value>) -> Result<(), Refusal> {
    Checker { tool }.object(schema, args, "", "")
}

struct Checker<'a> {
    tool: &'a str,
}

impl Checker<'_> {
    /// An object against an object schema; `path` is where it sits
    /// (`""` for the arguments themselves, `"args."` below), `context`
    /// what chose its schema (` for type fs-directory`).
    fn object(
        &self,
        schema: &Value,
        value: &Map<String, Value>,
        path: &str,
        context: &str,
    ) -> Result<(), Refusal> {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let known = || {
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        };
        if schema.get("additionalProperties") == Some(&Value::Bool(false))
            && let Some(unknown) = value.keys().find(|k| !properties.contains_key(*k))
        {
            let unknown = format!("{path}{unknown}");
            return Err(Refusal::invalid(format!(
                "{} takes no argument {unknown:?}{context}; the arguments it takes{} are: {}",
                self.tool,
                if path.is_empty() { "" } else { " there" },
                known()
            )));
        }
        for required in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !value.contains_key(required) {
                let missing = format!("{path}{required}");
                return Err(Refusal::invalid(format!(
                    "{} needs the argument {missing:?}{context}; the arguments it takes{} are: {}",
                    self.tool,
                    if path.is_empty() { "" } else { " there" },
                    known()
                )));
            }
        }
        for (name, given) in value {
            if let Some(property) = properties.get(name) {
                self.value(property, given, &format!("{path}{name}"), context)?;
            }
        }
        if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
            self.branch(branches, value, path)?;
        }
        Ok(())
    }

    /// One value against its schema.
    fn value(
        &self,
        schema: &Value,
        value: &Value,
        path: &str,
        context: &str,
    ) -> Result<(), Refusal> {
        if let Some(expected) = schema.get("type") {
            let types: Vec<&str> = match expected {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !types.iter().any(|t| is_of(value, t)) {
                let wanted: Vec<&str> = types.iter().map(|t| described(t)).collect();
                return Err(Refusal::invalid(format!(
                    "{}: the argument {path:?}{context} must be {}, not {}",
                    self.tool,
                    wanted.join(" or "),
                    described(json_type(value))
                )));
            }
        }
        if let Some(constant) = schema.get("const")
            && value != constant
        {
            return Err(Refusal::invalid(format!(
                "{}: the argument {path:?}{context} must be {constant}, not {value}",
                self.tool
            )));
        }
        if let Some(Value::Array(allowed)) = schema.get("enum")
            && !allowed.contains(value)
        {
            let allowed: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(Refusal::invalid(format!(
                "{}: the argument {path:?}{context} must be one of {}, not {value}",
                self.tool,
                allowed.join(", ")
            )));
        }
        if let (Some(minimum), Some(n)) = (
            schema.get("minimum").and_then(Value::as_f64),
            value.as_f64(),
        ) && n < minimum
        {
            return Err(Refusal::invalid(format!(
                "{}: the argument {path:?}{context} must be at least {}, not {value}",
                self.tool, schema["minimum"]
            )));
        }
        match value {
            Value::Object(fields) => self.object(schema, fields, &format!("{path}."), context),
            Value::Array(items) => match schema.get("items") {
                Some(item) => items
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, v)| self.value(item, v, &format!("{path}[{i}]"), context)),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// `anyOf` branches told apart by a property every branch fixes with
    /// `const` (registration's `type`): the one branch the value names.
    fn branch(
        &self,
        branches: &[Value],
        value: &Map<String, Value>,
        path: &str,
    ) -> Result<(), Refusal> {
        let constant = |branch: &Value, key: &str| branch["properties"][key].get("const").cloned();
        let Some(key) = branches.first().and_then(|first| {
            first["properties"]
                .as_object()?
                .keys()
                .find(|k| branches.iter().all(|b| constant(b, k).is_some()))
                .cloned()
        }) else {
            return Err(Refusal::internal(format!(
                "{}'s input schema has anyOf branches no property tells apart",
                self.tool
            )));
        };
        let given = value.get(&key).unwrap_or(&Value::Null);
        let Some(chosen) = branches
            .iter()
            .find(|b| constant(b, &key).as_ref() == Some(given))
        else {
            let allowed: Vec<String> = branches
                .iter()
                .filter_map(|b| constant(b, &key))
                .map(|v| v.to_string())
                .collect();
            let name = format!("{path}{key}");
            return Err(Refusal::invalid(format!(
                "{}: the argument {name:?} must be one of {}, not {given}",
                self.tool,
                allowed.join(", ")
            )));
        };
        let context = match given {
            Value::String(s) => format!(" for {key} {s}"),
            other => format!(" for {key} {other}"),
        };
        self.object(chosen, value, path, &context)
    }
}

/// Whether `value` is of JSON Schema type `t`.
fn is_of(value: &Value, t: &str) -> bool {
    match t {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// The JSON Schema type of `value` (`integer` for a whole number).
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A JSON Schema type in words.
fn described(t: &str) -> &'static str {
    match t {
        "string" => "a string",
        "boolean" => "a boolean (true or false)",
        "integer" => "a whole number",
        "number" => "a number",
        "object" => "an object",
        "array" => "a list",
        "null" => "null",
        _ => "of an unknown type",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resource_host::model::{ArgType, SandboxStrategy, TypeArgument, TypeName};
    use resource_host::registry::RegistrationForm;
    use serde_json::json;

    /// The schema keywords this reads (and `description`, `default`, which
    /// say nothing about validity).
    pub const KNOWN_KEYWORDS: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minimum",
        "anyOf",
        "description",
        "default",
    ];

    fn flag(name: &str, arg_type: ArgType, required: bool) -> TypeArgument {
        TypeArgument {
            name: name.to_owned(),
            arg_type,
            required,
            description: String::new(),
            default: None,
            choices: Vec::new(),
        }
    }

    fn form(type_name: &str, args: Vec<TypeArgument>) -> RegistrationForm {
        RegistrationForm {
            type_name: TypeName::parse(type_name).unwrap(),
            description: String::new(),
            args,
            sandbox_strategy: SandboxStrategy::None,
        }
    }

    /// Every tool's name and input schema, with a registration schema
    /// of two types.
    fn specs() -> Vec<(&'static str, Value)> {
        let forms = [
            form("fs-directory", vec![flag("path", ArgType::Path, true)]),
            form(
                "git-checkout",
                vec![
                    flag("path", ArgType::Path, true),
                    flag("depth", ArgType::Integer, false),
                    flag("bare", ArgType::Boolean, false),
                ],
            ),
        ];
        let registration = crate::cli::mcp::tools::registration(&forms);
        crate::cli::mcp::tools::catalogue()
            .into_iter()
            .map(|tool| match tool.name {
                "register_resource" => (tool.name, registration.clone()),
                name => (name, tool.input_of_type().clone()),
            })
            .collect()
    }

    fn spec(name: &str) -> Value {
        specs().into_iter().find(|s| s.0 == name).unwrap().1
    }

    fn refused(tool: &str, args: Value) -> String {
        let spec = spec(tool);
        let refusal = check(tool, &spec, args.as_object().unwrap()).unwrap_err();
        assert_eq!(refusal.kind, "invalid_arguments", "{}", refusal.message);
        refusal.message
    }

    fn accepted(tool: &str, args: Value) {
        let spec = spec(tool);
        if let Err(r) = check(tool, &spec, args.as_object().unwrap()) {
            panic!("{tool} {args} refused: {}", r.message);
        }
    }

    fn keywords(schema: &Value, found: &mut Vec<String>) {
        let Some(object) = schema.as_object() else {
            return;
        };
        for (key, value) in object {
            found.push(key.clone());
            match key.as_str() {
                "properties" => value
                    .as_object()
                    .unwrap()
                    .values()
                    .for_each(|v| keywords(v, found)),
                "items" => keywords(value, found),
                "anyOf" => value
                    .as_array()
                    .unwrap()
                    .iter()
                    .for_each(|v| keywords(v, found)),
                _ => {}
            }
        }
    }

    #[test]
    fn every_input_schema_uses_only_keywords_the_check_reads() {
        for (name, input) in specs() {
            let mut found = Vec::new();
            keywords(&input, &mut found);
            for keyword in found {
                assert!(
                    KNOWN_KEYWORDS.contains(&keyword.as_str()),
                    "{name}'s input schema uses {keyword}, which the argument check does not read"
                );
            }
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
        assert!(message.contains("not a string"), "{message}");
        let message = refused("refresh", json!({"names": ["local/a", 7]}));
        assert!(message.contains("names[1]"), "{message}");
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

    #[test]
    fn registration_checks_each_type_s_own_arguments() {
        let message = refused(
            "register_resource",
            json!({"type": "fs-directory", "args": {"path": "/a", "branch": "main"}}),
        );
        assert!(
            message.contains("\"args.branch\" for type fs-directory"),
            "{message}"
        );
        assert!(message.contains("are: path"), "{message}");
        let message = refused(
            "register_resource",
            json!({"type": "git-checkout", "args": {"path": "/a", "depth": "deep"}}),
        );
        assert!(message.contains("\"args.depth\""), "{message}");
        assert!(message.contains("whole number"), "{message}");
        let message = refused("register_resource", json!({"type": "fs-directory"}));
        assert!(
            message.contains("\"args\" for type fs-directory"),
            "{message}"
        );
        let message = refused(
            "register_resource",
            json!({"type": "nope", "args": {"path": "/a"}}),
        );
        assert!(message.contains("\"fs-directory\""), "{message}");
        let message = refused(
            "register_resource",
            json!({"type": "fs-directory", "args": {"path": "/a"}, "desc": "x"}),
        );
        assert!(message.contains("\"desc\""), "{message}");
    }
}
