//! `register_resource`: the one tool whose input schema is built by hand,
//! because a registration's arguments are the type's `cli_args`, known
//! only from the types registered now ([`registration`]).

use super::{Access, Done, Progress, Tool, absolute, discovery, summary};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::{ArgType, Resource, TypeArgument};
use resource_host::registry::{NewResource, RegisterOptions, RegistrationForm, Registry};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Register a resource of a type with the type's arguments (as `agents resource add TYPE --flag value`); the handler discovers its children.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterResource {
    r#type: String,
    name: Option<String>,
    args: Option<Map<String, Value>>,
    description: Option<String>,
    sandbox_strategy: Option<String>,
}

impl Tool for RegisterResource {
    type View = Resource;
    const NAME: &'static str = "register_resource";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;

    /// One branch per type a person can add, from the types registered now.
    fn listed_input(registry: &Registry) -> Result<Option<Value>, Refusal> {
        let mut forms = Vec::new();
        for ty in registry.list_types(None)? {
            if ty.is_user_addable() {
                forms.push(registry.registration_form(ty.name.as_str())?);
            }
        }
        Ok(Some(registration(&forms)))
    }

    fn call(self, registry: &mut Registry, progress: &mut Progress) -> Result<Done, Refusal> {
        let form = registry.registration_form(&self.r#type)?;
        let mut flags = Vec::new();
        for (flag, value) in self.args.unwrap_or_default() {
            let Some(arg) = form.args.iter().find(|a| a.name == flag) else {
                let known: Vec<&str> = form.args.iter().map(|a| a.name.as_str()).collect();
                return Err(Refusal::invalid(format!(
                    "type {} takes no argument {flag:?}; its arguments: {}",
                    self.r#type,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            let text = match value {
                Value::String(s) => s,
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => {
                    return Err(Refusal::invalid(format!(
                        "{flag} must be a string, number or boolean"
                    )));
                }
            };
            if arg.arg_type == ArgType::Path {
                absolute(&text)?;
            }
            flags.push((flag, text));
        }
        let request = NewResource {
            type_name: self.r#type,
            name: self.name,
            args: flags,
            description: self.description,
            sandbox_strategy: self.sandbox_strategy,
            read_only: false,
            base_dir: None,
        };
        let resource = registry.register_resource(
            request,
            RegisterOptions {
                progress: Some(&mut discovery(progress)),
            },
        )?;
        let mut done = Done::new(&resource, format!("registered {}", summary(&resource)))?;
        done.changed = vec![resource.resource_id.to_string()];
        Ok(done)
    }
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
