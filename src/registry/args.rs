//! Registration arguments checked against a resolved type's `cli_args`:
//! the one place that decides whether `--path /x --branch main` is a valid
//! way to register a resource of a type, for the CLI and for embedders
//! alike.
//!
//! A `path` argument must name something that exists and is stored
//! canonicalized; a relative path is resolved against the caller's base
//! directory (the CLI hands in its working directory; an embedder that
//! hands none must give absolute paths). The argument named `path`
//! becomes the resource's `location`; every other argument becomes a
//! typed property.

use crate::model::{ArgType, PropertyMap, ResolvedType, TypeArgument, TypeName};
use serde_json::Value;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The argument whose value is the resource's location.
pub const LOCATION_ARG: &str = "path";

#[derive(Debug, Error)]
pub enum ArgError {
    #[error("unknown flag --{flag} for type {type_name}; valid flags: {valid}")]
    Unknown {
        flag: String,
        type_name: TypeName,
        valid: String,
    },
    #[error("flag --{flag} was given more than once")]
    Repeated { flag: String },
    #[error("type {type_name} requires {flags}")]
    Missing { type_name: TypeName, flags: String },
    #[error("--{flag} {value:?} is not a valid {expected}")]
    BadValue {
        flag: String,
        value: String,
        expected: String,
    },
    #[error("--{flag} {path}: no such file or directory ({source})")]
    PathMissing {
        flag: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--{flag} {path}: a relative path needs a base directory; give an absolute path")]
    RelativePath { flag: String, path: PathBuf },
}

/// Arguments that passed the type's schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CheckedArgs {
    /// The canonical value of the `path` argument, if the type has one.
    pub location: Option<String>,
    /// Every other argument, typed, defaults filled in.
    pub properties: PropertyMap,
}

impl CheckedArgs {
    /// The arguments as text, as a handler's `validate` receives them.
    pub fn rendered(&self) -> Vec<(String, String)> {
        let location = self
            .location
            .iter()
            .map(|l| (LOCATION_ARG.to_owned(), l.clone()));
        let rest = self.properties.iter().map(|(k, v)| (k.clone(), render(v)));
        location.chain(rest).collect()
    }
}

/// A property value as text: strings bare, everything else as JSON.
pub fn render(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Check `given` (flag name without `--`, raw text) against `ty`.
pub fn check(
    ty: &ResolvedType,
    given: &[(String, String)],
    base_dir: Option<&Path>,
) -> Result<CheckedArgs, ArgError> {
    let mut out = CheckedArgs::default();
    let mut seen: Vec<&str> = Vec::new();
    for (flag, raw) in given {
        let Some(arg) = ty.arg(flag) else {
            return Err(ArgError::Unknown {
                flag: flag.clone(),
                type_name: ty.name.clone(),
                valid: valid_flags(ty),
            });
        };
        if seen.contains(&flag.as_str()) {
            return Err(ArgError::Repeated { flag: flag.clone() });
        }
        seen.push(flag);
        let value = convert(arg, raw, base_dir)?;
        store(&mut out, arg, value);
    }
    let mut missing = Vec::new();
    for arg in ty.cli_args.iter().map(|a| &a.value) {
        if seen.contains(&arg.name.as_str()) {
            continue;
        }
        match (&arg.default, arg.required) {
            (Some(default), _) => store(&mut out, arg, default.clone()),
            (None, true) => missing.push(format!("--{}", arg.name)),
            (None, false) => {}
        }
    }
    if !missing.is_empty() {
        return Err(ArgError::Missing {
            type_name: ty.name.clone(),
            flags: missing.join(", "),
        });
    }
    Ok(out)
}

fn store(out: &mut CheckedArgs, arg: &TypeArgument, value: Value) {
    if arg.name == LOCATION_ARG && arg.arg_type == ArgType::Path {
        out.location = Some(render(&value));
    } else {
        out.properties.insert(arg.name.clone(), value);
    }
}

fn valid_flags(ty: &ResolvedType) -> String {
    if ty.cli_args.is_empty() {
        return "none (this type takes no arguments)".to_owned();
    }
    ty.cli_args
        .iter()
        .map(|a| format!("--{}", a.value.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn convert(arg: &TypeArgument, raw: &str, base_dir: Option<&Path>) -> Result<Value, ArgError> {
    let bad = |expected: String| ArgError::BadValue {
        flag: arg.name.clone(),
        value: raw.to_owned(),
        expected,
    };
    match arg.arg_type {
        ArgType::String => Ok(Value::String(raw.to_owned())),
        ArgType::Integer => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad("integer".to_owned())),
        ArgType::Boolean => match raw {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad("boolean (true or false)".to_owned())),
        },
        ArgType::Choice if arg.choices.iter().any(|c| c == raw) => {
            Ok(Value::String(raw.to_owned()))
        }
        ArgType::Choice => Err(bad(format!("choice: one of {}", arg.choices.join(", ")))),
        ArgType::Path => canonical(&arg.name, raw, base_dir).map(Value::String),
    }
}

fn canonical(flag: &str, raw: &str, base_dir: Option<&Path>) -> Result<String, ArgError> {
    let given = Path::new(raw);
    let full = match (given.is_absolute(), base_dir) {
        (true, _) => given.to_owned(),
        (false, Some(base)) => base.join(given),
        (false, None) => {
            return Err(ArgError::RelativePath {
                flag: flag.to_owned(),
                path: given.to_owned(),
            });
        }
    };
    let canonical = std::fs::canonicalize(&full).map_err(|source| ArgError::PathMissing {
        flag: flag.to_owned(),
        path: given.to_owned(),
        source,
    })?;
    canonical
        .into_os_string()
        .into_string()
        .map_err(|os| ArgError::BadValue {
            flag: flag.to_owned(),
            value: os.to_string_lossy().into_owned(),
            expected: "UTF-8 path (the registry stores locations as text)".to_owned(),
        })
}
