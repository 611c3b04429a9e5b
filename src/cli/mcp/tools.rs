//! The one home of the tools: each is one item of a `tools!` list,
//! which defines its arguments' type and its [`Tool`] impl. The item's
//! doc comment is the tool's description, its fields (with their doc
//! comments) are the input schema `tools/list` shows (derived by
//! schemars), its head names the tool, who may call it and its answer's
//! type (whose schema is the output schema), and its body calls the one
//! library operation its CLI verb calls, answering the same JSON view.
//! [`catalogue`] lists the files' lists in the order `tools/list` gives
//! them.
//!
//! Inputs are strict (`deny_unknown_fields`: a misspelt argument is
//! refused, not ignored) and an optional argument is absent, never `null`
//! ([`input_schema`] says so in the schema; [`super::arguments`] reads
//! every call into the tool's type and words the refusals).
//! `register_resource`'s arguments come from each type's `cli_args`, as
//! `agents resource add TYPE`'s flags do: the one schema built by hand
//! ([`register::registration`]).

/// Tools, one item each, in the order `tools/list` gives them:
///
/// ```text
/// /// The description.
/// tool_name: ArgsType(Write, DESTRUCTIVE = true, IDEMPOTENT = false) -> View {
///     /// An argument's description.
///     field: Type,
/// } |registry, args, progress| { /* the library call, answering Done */ }
/// ```
///
/// `Read`, `Write` or `Admin` is its [`Access`]; `; listed path` names a
/// `fn(&Registry) -> Result<Value, Refusal>` giving the input schema when
/// it depends on the registry. Defines each arguments type and its
/// [`Tool`] impl, and `entries()`: the list's [`Entry`]s.
macro_rules! tools {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ident($access:ident $(, $flag:ident = $value:literal)* $(; listed $listed:path)?)
            -> $view:ty { $($(#[$field_attr:meta])* $field:ident: $field_ty:ty),* $(,)? }
            |$registry:ident, $args:ident, $progress:tt| $body:block
    )*) => {
        use crate::cli::mcp::tools::{Access, Done, Entry, Progress, Tool, entry};
        use resource_host::registry::Registry;
        $(
            $(#[$attr])*
            #[derive(serde::Deserialize, schemars::JsonSchema)]
            #[serde(deny_unknown_fields)]
            pub struct $ty { $($(#[$field_attr])* $field: $field_ty),* }

            impl Tool for $ty {
                type View = $view;
                const NAME: &'static str = stringify!($name);
                const ACCESS: Access = Access::$access;
                $(const $flag: bool = $value;)*
                $(fn listed_input(r: &Registry) -> Result<Option<serde_json::Value>, Refusal> {
                    $listed(r).map(Some)
                })?
                fn call(self, $registry: &mut Registry, $progress: &mut Progress) -> Result<Done, Refusal> {
                    let $args = self;
                    $body
                }
            }
        )*

        /// This file's tools, in the order `tools/list` gives them.
        pub fn entries() -> Vec<Entry> {
            vec![$(entry::<$ty>()),*]
        }
    };
}

mod admin;
mod answer;
mod events;
mod register;
mod resources;
mod sandboxes;

pub use answer::{Done, Progress};
pub use resources::shown;

use super::Mode;
use super::arguments;
use super::kinds::Refusal;
use resource_host::registry::Registry;
use resource_host::text::escape_line;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Who may call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Changes nothing.
    Read,
    /// Changes the registry or a sandbox.
    Write,
    /// What people do: types, plugins, import (`--allow-admin`).
    Admin,
}

/// A tool: its arguments' type, which is deserialised from the call's
/// arguments ([`arguments::read`]). Implemented by `tools!`.
pub trait Tool: DeserializeOwned + JsonSchema + 'static {
    /// What it answers (the structured content): its output schema is
    /// this type's ([`output_schema`]).
    type View: JsonSchema;
    const NAME: &'static str;
    const ACCESS: Access;
    /// Annotations of a tool that is not [`Access::Read`].
    const DESTRUCTIVE: bool = false;
    const IDEMPOTENT: bool = true;

    /// Call the library operation.
    fn call(self, registry: &mut Registry, progress: &mut Progress) -> Result<Done, Refusal>;

    /// The input schema as listed now, when it depends on the registry
    /// (`register_resource`'s, from the types); `None`: the derived one.
    fn listed_input(_registry: &Registry) -> Result<Option<Value>, Refusal> {
        Ok(None)
    }
}

type Run = fn(&Entry, &mut Registry, Map<String, Value>, &mut Progress) -> Result<Done, Refusal>;

/// One tool as the server keeps it: what `tools/list` shows, who may
/// call it, and its call with the types erased.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: &'static str,
    pub access: Access,
    description: String,
    input: Value,
    output: Value,
    destructive: bool,
    idempotent: bool,
    listed_input: fn(&Registry) -> Result<Option<Value>, Refusal>,
    run: Run,
    #[cfg(test)]
    check: fn(&Entry, Map<String, Value>) -> Result<(), Refusal>,
}

fn entry<T: Tool>() -> Entry {
    let (description, input) = input_schema::<T>();
    Entry {
        name: T::NAME,
        access: T::ACCESS,
        description,
        input,
        output: output_schema::<T::View>(),
        destructive: T::DESTRUCTIVE,
        idempotent: T::IDEMPOTENT,
        listed_input: T::listed_input,
        run: |entry, registry, args, progress| entry.read::<T>(args)?.call(registry, progress),
        #[cfg(test)]
        check: |entry, args| entry.read::<T>(args).map(drop),
    }
}

/// Every tool, in the order `tools/list` gives them.
pub fn catalogue() -> Vec<Entry> {
    [
        resources::entries(),
        events::entries(),
        sandboxes::entries(),
        admin::entries(),
    ]
    .concat()
}

impl Entry {
    pub fn served_in(&self, mode: Mode) -> bool {
        match self.access {
            Access::Read => true,
            Access::Write => mode != Mode::ReadOnly,
            Access::Admin => mode == Mode::Admin,
        }
    }

    /// The input schema as `tools/list` shows it now.
    pub fn input(&self, registry: &Registry) -> Result<Value, Refusal> {
        Ok((self.listed_input)(registry)?.unwrap_or_else(|| self.input.clone()))
    }

    /// `args` read as the tool's arguments `T`.
    fn read<T: Tool>(&self, args: Map<String, Value>) -> Result<T, Refusal> {
        arguments::read(self.name, &self.input, args)
    }

    /// Only check `args` against the tool's arguments' type.
    #[cfg(test)]
    pub fn check(&self, args: Map<String, Value>) -> Result<(), Refusal> {
        (self.check)(self, args)
    }

    /// Read the arguments and run the tool.
    pub fn call(
        &self,
        registry: &mut Registry,
        args: Map<String, Value>,
        progress: &mut Progress,
    ) -> Result<Done, Refusal> {
        (self.run)(self, registry, args, progress)
    }

    pub fn to_tool(&self, input: Value) -> rmcp::model::Tool {
        // A read tool changes nothing: idempotent, and never destructive.
        let read = self.access == Access::Read;
        let mut annotations = rmcp::model::ToolAnnotations::new()
            .read_only(read)
            .idempotent(read || self.idempotent)
            .open_world(false);
        if !read {
            annotations = annotations.destructive(self.destructive);
        }
        let as_object = |v: Value| std::sync::Arc::new(v.as_object().cloned().unwrap_or_default());
        rmcp::model::Tool::new(self.name, self.description.clone(), as_object(input))
            .with_raw_output_schema(as_object(self.output.clone()))
            .with_annotations(annotations)
    }
}

/// `T`'s root schema as `settings` derive it (draft 2020-12, what MCP
/// names), without the `$schema` and `title` a listing has no use for.
fn root_schema<T: JsonSchema>(settings: SchemaSettings) -> schemars::Schema {
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.remove("$schema");
    schema.remove("title");
    schema
}

/// `T`'s description (its doc comment) and input schema, spelt the way
/// the argument check reads it: an `Option` is an argument that may be
/// absent, not one that may be `null` (`["string", "null"]` becomes
/// `"string"`), integer formats go (the `minimum` says what is allowed),
/// and the root always names its `required` arguments.
fn input_schema<T: JsonSchema>() -> (String, Value) {
    let mut schema = root_schema::<T>(SchemaSettings::draft2020_12());
    let root = schema.ensure_object();
    root.entry("required").or_insert_with(|| json!([]));
    let description = match root.remove("description") {
        Some(Value::String(text)) => text,
        _ => String::new(),
    };
    let mut schema = schema.to_value();
    not_null(&mut schema);
    (description, schema)
}

/// The schema of what `V` serialises to (schemars' serialisation
/// contract: a field serde skips when empty is not required; nested
/// types in `$defs`), an object at the top as MCP wants (an enum of
/// objects, `sandbox_apply`'s, is one too). The doc comments stay out:
/// they are written for Rust readers, and every listing would carry them.
fn output_schema<V: JsonSchema>() -> Value {
    let mut schema = root_schema::<V>(SchemaSettings::draft2020_12().for_serialize());
    schema.insert("type".to_owned(), json!("object"));
    let mut schema = schema.to_value();
    undocumented(&mut schema);
    schema
}

/// `schema` without its `description`s (the keyword's, not a property
/// of that name's).
fn undocumented(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            object.remove("description");
            for (keyword, value) in object.iter_mut() {
                match keyword.as_str() {
                    "properties" | "$defs" => value
                        .as_object_mut()
                        .into_iter()
                        .flat_map(|m| m.values_mut())
                        .for_each(undocumented),
                    _ => undocumented(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(undocumented),
        _ => {}
    }
}

fn not_null(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    object.remove("format");
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.values_mut().for_each(not_null);
    }
    if let Some(items) = object.get_mut("items") {
        not_null(items);
    }
}

/// A count of one or more (`depth`, `limit`).
#[derive(Debug, Clone, Copy)]
pub struct Count(pub u32);

impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number of at least 1")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Count, E> {
                match u32::try_from(n) {
                    Ok(n) if n >= 1 => Ok(Count(n)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Unsigned(n), &self)),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Count, E> {
                let unexpected = serde::de::Unexpected::Signed(n);
                let n = u64::try_from(n).map_err(|_| E::invalid_value(unexpected, &self))?;
                self.visit_u64(n)
            }
        }
        d.deserialize_u64(Visitor)
    }
}

impl JsonSchema for Count {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Count".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 1})
    }
}

/// An argument read as the name or id it stands for (a resource's
/// `name_or_id`, `parent`, …; a sandbox's `id`; a plugin's `module`),
/// refused with the argument's name and why.
fn parsed<T: std::str::FromStr>(field: &str, text: &str) -> Result<T, Refusal>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>()
        .map_err(|e| Refusal::invalid(format!("{field}: {e}")))
}

/// A path argument: absolute (the server's working directory is not the
/// agent's).
fn absolute(text: &str) -> Result<std::path::PathBuf, Refusal> {
    let path = std::path::PathBuf::from(text);
    path.is_absolute().then_some(path).ok_or_else(|| {
        Refusal::invalid(format!(
            "{text:?} is a relative path; give an absolute one (the server's working \
             directory is not yours)"
        ))
    })
}

/// A discovery's progress, reported as a tool's.
fn discovery(
    progress: &mut Progress,
) -> impl FnMut(resource_host::registry::DiscoveryProgress) -> std::ops::ControlFlow<()> + '_ {
    |p| {
        let message = format!("{} visited, {} found", p.visited, p.found);
        progress(p.visited as u64, None, message)
    }
}

/// One resource in a line: name (type) at location.
fn summary(r: &resource_host::model::Resource) -> String {
    let label = r.label();
    let (name, type_name) = (escape_line(&label), r.resource_type_name.as_str());
    let at = r
        .location
        .as_ref()
        .map(|l| format!(" at {}", escape_line(l)));
    format!("{name} ({type_name}){}", at.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_is_listed_once_with_a_description_and_strict_arguments() {
        let tools = catalogue();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len(), "a tool name is listed twice");
        for tool in &tools {
            assert!(
                !tool.description.is_empty(),
                "{} has no description",
                tool.name
            );
            assert_eq!(tool.input["type"], "object", "{}", tool.name);
            assert_eq!(tool.input["additionalProperties"], false, "{}", tool.name);
        }
    }

    #[test]
    fn every_answer_s_schema_is_its_view_s_and_an_object() {
        for tool in catalogue() {
            assert_eq!(tool.output["type"], "object", "{}", tool.name);
        }
        let show = catalogue().into_iter().find(|t| t.name == "show_resource");
        let output = show.unwrap().output;
        assert_eq!(
            output["properties"]["classification"]["$ref"],
            "#/$defs/ResourceKind"
        );
        assert!(output["properties"]["container"].is_object());
        assert!(output["properties"]["stale"].get("description").is_none());
    }

    #[test]
    fn an_optional_argument_is_absent_not_null() {
        let (_, input) = input_schema::<resources::ListResources>();
        assert_eq!(input["properties"]["type"]["type"], "string");
        assert_eq!(input["properties"]["limit"]["type"], "integer");
        assert_eq!(input["properties"]["limit"]["minimum"], 1);
        assert_eq!(input["required"], serde_json::json!([]));
    }
}
