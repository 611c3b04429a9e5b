//! `register_resource`'s arguments: the one input schema built by hand,
//! because a registration's arguments are the type's `cli_args`, known
//! only from the types registered now ([`registration`]), and the check
//! of a call's `args` against its type's ([`flags`]), in the words
//! [`super::super::arguments`] uses for every tool.

use super::absolute;
use crate::cli::add::addable_forms;
use crate::cli::mcp::arguments::{known, must_be, words};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::{ArgType, TypeArgument};
use resource_host::registry::{RegistrationForm, Registry};
use serde_json::{Map, Value, json};

const TOOL: &str = "register_resource";

/// The input schema as listed now: one branch per type a person can add.
pub fn listed(registry: &Registry) -> Result<Value, Refusal> {
    Ok(registration(&addable_forms(registry)?))
}

/// A call's `args` as the flags `agents resource add TYPE` would take,
/// checked against the type's arguments.
pub fn flags(
    registry: &Registry,
    type_name: &str,
    args: Map<String, Value>,
) -> Result<Vec<(String, String)>, Refusal> {
    match registry.registration_form(type_name) {
        Ok(form) => check(&form, args),
        Err(_) => Err(unknown_type(&addable_forms(registry)?, type_name)),
    }
}

/// The refusal of a `type` no person can add.
fn unknown_type(forms: &[RegistrationForm], given: &str) -> Refusal {
    let types: Vec<String> = forms
        .iter()
        .map(|f| format!("{:?}", f.type_name.as_str()))
        .collect();
    let wanted = format!("one of {}", types.join(", "));
    Refusal::invalid(must_be(TOOL, "type", "", &wanted, &format!("{given:?}")))
}

/// `args` against `form`: every flag known and of its type, every
/// required one given; answers each as text.
fn check(
    form: &RegistrationForm,
    args: Map<String, Value>,
) -> Result<Vec<(String, String)>, Refusal> {
    let context = format!(" for type {}", form.type_name.as_str());
    let mut names: Vec<&str> = form.args.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    let known = known(names.iter().copied());
    let refused = |what: &str, flag: &str| {
        Refusal::invalid(format!(
            "{TOOL} {what} \"args.{flag}\"{context}; the arguments it takes there are: {known}"
        ))
    };
    if let Some(flag) = args.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(refused("takes no argument", flag));
    }
    let given =
        |a: &&TypeArgument| a.required && a.default.is_none() && !args.contains_key(&a.name);
    if let Some(missing) = form.args.iter().find(given) {
        return Err(refused("needs the argument", &missing.name));
    }
    let mut flags = Vec::new();
    for (flag, value) in args {
        let arg = form.args.iter().find(|a| a.name == flag).expect("known");
        let text = match (arg.arg_type, value) {
            (ArgType::Boolean, Value::Bool(b)) => b.to_string(),
            (ArgType::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            (ArgType::Choice, Value::String(s)) if arg.choices.contains(&s) => s,
            (ArgType::Path, Value::String(s)) => absolute(&s).map(|_| s)?,
            (ArgType::String, Value::String(s)) => s,
            (arg_type, value) => {
                let (wanted, given) = match arg_type {
                    ArgType::Choice if value.is_string() => {
                        let choices: Vec<String> =
                            arg.choices.iter().map(|c| format!("{c:?}")).collect();
                        (format!("one of {}", choices.join(", ")), value.to_string())
                    }
                    ArgType::Boolean => (words("boolean"), words(json_type(&value))),
                    ArgType::Integer => (words("integer"), words(json_type(&value))),
                    _ => (words("string"), words(json_type(&value))),
                };
                let path = format!("args.{flag}");
                return Err(Refusal::invalid(must_be(
                    TOOL, &path, &context, &wanted, &given,
                )));
            }
        };
        flags.push((flag, text));
    }
    Ok(flags)
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
    let mut schema = json!({
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": types,
                     "description": "The resource type (list_types shows each one's arguments)."},
            "name": {"type": "string",
                     "description": "A namespaced name, e.g. local/api-repo (optional)."},
            "args": {"type": "object",
                     "description": "The type's arguments by flag name, as `agents resource add TYPE --flag value` takes them: strings, numbers and booleans. Paths must be absolute."},
            "description": {"type": "string", "description": "What the resource is, for people."},
            "sandbox_strategy": {"type": "string",
                                 "description": "A sandbox strategy for this resource instead of its type's."},
        },
        "required": ["type"],
        "additionalProperties": false,
    });
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

#[cfg(test)]
mod tests {
    use super::*;
    use resource_host::model::{SandboxStrategy, TypeName};

    /// A form of `type_name` whose arguments are `args`' (as a type file
    /// declares them).
    fn form(type_name: &str, args: Value) -> RegistrationForm {
        RegistrationForm {
            type_name: TypeName::parse(type_name).unwrap(),
            description: String::new(),
            args: serde_json::from_value(args).unwrap(),
            sandbox_strategy: SandboxStrategy::None,
        }
    }

    fn forms() -> [RegistrationForm; 2] {
        let path = json!({"name": "path", "type": "path", "required": true});
        [
            form("fs-directory", json!([path])),
            form(
                "git-checkout",
                json!([path, {"name": "depth", "type": "integer"}, {"name": "bare", "type": "boolean"}]),
            ),
        ]
    }

    fn checked(form: usize, args: Value) -> Result<Vec<(String, String)>, Refusal> {
        check(&forms()[form], args.as_object().unwrap().clone())
    }

    #[test]
    fn registration_checks_each_type_s_own_arguments() {
        // (form, args, what the refusal says)
        let refused: [(usize, Value, &[&str]); 4] = [
            (
                0,
                json!({"path": "/a", "branch": "main"}),
                &["\"args.branch\" for type fs-directory", "are: path"],
            ),
            (
                1,
                json!({"path": "/a", "depth": "deep"}),
                &["\"args.depth\"", "whole number"],
            ),
            (0, json!({}), &["\"args.path\" for type fs-directory"]),
            (0, json!({"path": 7}), &["must be a string"]),
        ];
        for (form, args, says) in refused {
            let refusal = checked(form, args).unwrap_err();
            assert_eq!(refusal.kind, "invalid_arguments", "{}", refusal.message);
            for words in says {
                assert!(refusal.message.contains(words), "{}", refusal.message);
            }
        }
        let message = unknown_type(&forms(), "nope").message;
        assert!(message.contains("\"fs-directory\""), "{message}");
        let flags = checked(1, json!({"path": "/src/a", "depth": 2, "bare": false})).unwrap();
        assert!(
            flags.contains(&("depth".to_owned(), "2".to_owned())),
            "{flags:?}"
        );
    }

    #[test]
    fn the_schema_has_one_branch_per_type() {
        let schema = registration(&forms());
        assert_eq!(
            schema["properties"]["type"]["enum"],
            json!(["fs-directory", "git-checkout"])
        );
        assert_eq!(
            schema["anyOf"][1]["properties"]["args"]["required"],
            json!(["path"])
        );
    }
}
