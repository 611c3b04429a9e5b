//! `cli_args` value conversion: registration arguments (flag, raw text)
//! checked against a type's argument schema by `registry::args::check`,
//! the one place that decides whether `--path /x --count 3` registers a
//! resource of a type.
//!
//! The schema is either a built-in type's or one the input declares (as a
//! type file, read by the real reader: only schemas it accepts are used);
//! the flags mix declared names with any text. Relative paths resolve
//! against a small directory tree made once.
//!
//! Beyond "no panic", an accepted set of arguments keeps the module's
//! promises: a location is an absolute, canonical path that exists; a
//! property holds a value of its argument's type (a choice one of its
//! choices); every required argument is there.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use resource_host::builtin;
use resource_host::model::{ArgType, ResolvedType, TypeName, TypeSpec};
use resource_host::registry::args::{self, LOCATION_ARG};
use resource_host::typespec;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::OnceLock;

#[derive(Debug, Arbitrary)]
struct Input {
    schema: Schema,
    given: Vec<(Flag, String)>,
    with_base_dir: bool,
}

#[derive(Debug, Arbitrary)]
enum Schema {
    /// The built-in type with this index (modulo their number).
    Builtin(u8),
    /// A custom type declaring these arguments.
    Declared { virtual_kind: bool, args: Vec<Arg> },
}

#[derive(Debug, Arbitrary)]
struct Arg {
    name: Flag,
    arg_type: u8,
    required: Option<bool>,
    default: Option<DefaultValue>,
    choices: Option<Vec<String>>,
}

#[derive(Debug, Arbitrary)]
enum DefaultValue {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
    Null,
}

/// A flag: one a schema is likely to declare, or any text.
#[derive(Debug, Arbitrary)]
enum Flag {
    Common(u8),
    Text(String),
}

const COMMON: [&str; 8] = [
    "path", "branch", "count", "force", "mode", "x", "name", "a-b",
];
const ARG_TYPES: [&str; 5] = ["string", "path", "integer", "boolean", "choice"];

impl Flag {
    fn text(&self) -> String {
        match self {
            Self::Common(i) => COMMON[usize::from(*i) % COMMON.len()].to_owned(),
            Self::Text(t) => t.clone(),
        }
    }
}

/// A directory with a file, a subdirectory and a symlink in it: what
/// relative paths resolve against.
fn base_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::create_dir_all(dir.path().join("pkg/src")).expect("mkdir");
        std::fs::write(dir.path().join("pkg/setup.py"), "").expect("write");
        std::os::unix::fs::symlink("pkg", dir.path().join("link")).expect("symlink");
        dir
    })
    .path()
}

fn builtin_types() -> &'static [TypeSpec] {
    static SPECS: OnceLock<Vec<TypeSpec>> = OnceLock::new();
    SPECS.get_or_init(builtin::specs)
}

fn resolve(spec: &TypeSpec) -> Option<ResolvedType> {
    let lookup = |n: &TypeName| {
        if *n == spec.name {
            Some(spec.clone())
        } else {
            builtin::get(n)
        }
    };
    typespec::resolve(&spec.name, &lookup).ok()
}

/// The schema as a type file, through the real reader.
fn declared(virtual_kind: bool, args: &[Arg]) -> Option<ResolvedType> {
    let cli_args: Vec<Value> = args
        .iter()
        .map(|a| {
            let mut arg = json!({
                "name": a.name.text(),
                "type": ARG_TYPES[usize::from(a.arg_type) % ARG_TYPES.len()],
            });
            if let Some(required) = a.required {
                arg["required"] = required.into();
            }
            if let Some(default) = &a.default {
                arg["default"] = match default {
                    DefaultValue::Text(t) => t.clone().into(),
                    DefaultValue::Integer(i) => (*i).into(),
                    DefaultValue::Float(f) => (*f).into(),
                    DefaultValue::Bool(b) => (*b).into(),
                    DefaultValue::Null => Value::Null,
                };
            }
            if let Some(choices) = &a.choices {
                arg["choices"] = choices.clone().into();
            }
            arg
        })
        .collect();
    let file = json!({
        "name": "fuzz/args",
        "resource_kind": if virtual_kind { "virtual" } else { "physical" },
        "user_addable": !virtual_kind,
        "cli_args": cli_args,
    });
    let text = serde_yaml::to_string(&file).ok()?;
    let spec = typespec::parse_type_file(&text, "fuzz.yaml").ok()?;
    resolve(&spec)
}

/// A path argument's value: absolute, existing, canonical.
fn assert_canonical(flag: &str, value: &str) {
    let path = Path::new(value);
    assert!(path.is_absolute(), "--{flag} {value:?} is not absolute");
    let real = std::fs::canonicalize(path)
        .unwrap_or_else(|e| panic!("--{flag} {value:?} does not exist: {e}"));
    assert_eq!(real, path, "--{flag} {value:?} is not canonical");
}

fuzz_target!(|input: Input| {
    let ty = match &input.schema {
        Schema::Builtin(i) => {
            let specs = builtin_types();
            resolve(&specs[usize::from(*i) % specs.len()])
        }
        Schema::Declared { virtual_kind, args } => declared(*virtual_kind, args),
    };
    let Some(ty) = ty else {
        return;
    };
    let given: Vec<(String, String)> = input
        .given
        .iter()
        .map(|(flag, raw)| (flag.text(), raw.clone()))
        .collect();
    let base = input.with_base_dir.then(base_dir);
    let checked = match args::check(&ty, &given, base) {
        Ok(checked) => checked,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    for arg in ty.args() {
        let value = if arg.name == LOCATION_ARG && arg.arg_type == ArgType::Path {
            checked.location.clone().map(Value::String)
        } else {
            checked.properties.get(&arg.name).cloned()
        };
        let Some(value) = value else {
            assert!(
                !arg.required,
                "required --{} missing from {checked:?}",
                arg.name
            );
            continue;
        };
        if arg.arg_type == ArgType::Path {
            let shown = value
                .as_str()
                .unwrap_or_else(|| panic!("--{} holds {value}", arg.name));
            assert_canonical(&arg.name, shown);
        }
        let fits = match arg.arg_type {
            ArgType::String | ArgType::Path => value.is_string(),
            ArgType::Integer => value.is_i64(),
            ArgType::Boolean => value.is_boolean(),
            ArgType::Choice => value
                .as_str()
                .is_some_and(|v| arg.choices.iter().any(|c| c == v)),
        };
        assert!(
            fits,
            "--{} holds {value} for a {:?} argument",
            arg.name, arg.arg_type
        );
    }
    assert_eq!(
        checked.rendered().len(),
        checked.properties.len() + usize::from(checked.location.is_some())
    );
});
