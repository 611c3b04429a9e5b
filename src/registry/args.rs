//! Registration arguments checked against a resolved type's `cli_args`:
//! the one place that decides whether `--path /x --branch main` is a valid
//! way to register a resource of a type, for the CLI and for embedders
//! alike.
//!
//! A `path` argument must name something that exists and is stored
//! canonicalized; a relative path is resolved against the caller's base
//! directory (the CLI hands in its working directory; an embedder that
//! hands none must give absolute paths). A `path` argument's `default`
//! is held to the same rule when it applies: it is text in a type file,
//! not a checked path, so it is resolved and must exist like a given one.
//! The argument named `path` becomes the resource's `location`; every
//! other argument becomes a typed property. A text argument holding a
//! URL's credentials (`https://alice:TOKEN@host/…`) is refused, naming the
//! flag with the secret masked: stored, every reader of the registry would
//! see it (see [`crate::credentials`]).

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
    #[error("--{flag} {path}: {source}")]
    PathMissing {
        flag: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--{flag} {path}: a relative path needs a base directory; give an absolute path")]
    RelativePath { flag: String, path: PathBuf },
    #[error(
        "--{flag} {shown} holds a credential (a password or token in the URL's user \
         information); the registry would keep it and show it to everyone who reads it — give \
         the URL without it"
    )]
    Credential { flag: String, shown: String },
    #[error("--description is refused: {reason}")]
    Description { reason: String },
    #[error(
        "--{flag} was not given, and its default {value:?} cannot be used ({source}); give \
         --{flag}"
    )]
    BadDefault {
        flag: String,
        value: String,
        #[source]
        source: Box<ArgError>,
    },
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
        store(&mut out, arg, convert(arg, raw, base_dir)?);
    }
    let mut missing = Vec::new();
    for arg in ty.cli_args.iter().map(|a| &a.value) {
        if seen.contains(&arg.name.as_str()) {
            continue;
        }
        match (&arg.default, arg.required) {
            (Some(default), _) => store(&mut out, arg, default_value(arg, default, base_dir)?),
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

/// The value `default` stands for: itself, except that a `path` default
/// is converted as a given path would be (resolved, checked, canonical).
fn default_value(
    arg: &TypeArgument,
    default: &Value,
    base_dir: Option<&Path>,
) -> Result<Value, ArgError> {
    if arg.arg_type != ArgType::Path {
        return Ok(default.clone());
    }
    let raw = render(default);
    convert(arg, &raw, base_dir).map_err(|source| ArgError::BadDefault {
        flag: arg.name.clone(),
        value: raw,
        source: Box::new(source),
    })
}

fn convert(arg: &TypeArgument, raw: &str, base_dir: Option<&Path>) -> Result<Value, ArgError> {
    let bad = |expected: String| ArgError::BadValue {
        flag: arg.name.clone(),
        value: raw.to_owned(),
        expected,
    };
    match arg.arg_type {
        ArgType::String if crate::credentials::holds_credentials(raw) => {
            Err(ArgError::Credential {
                flag: arg.name.clone(),
                shown: crate::credentials::masked(raw),
            })
        }
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

/// A resource's description: at most [`crate::model::DESCRIPTION_MAX`] bytes, no NUL
/// (the same rule an imported document's descriptions meet).
pub fn check_description(description: Option<&str>) -> Result<(), ArgError> {
    let Some(text) = description else {
        return Ok(());
    };
    let reason = if text.len() > crate::model::DESCRIPTION_MAX {
        format!(
            "it is {} bytes, more than the {} a description may hold",
            text.len(),
            crate::model::DESCRIPTION_MAX
        )
    } else if text.contains('\0') {
        "it holds a NUL byte".to_owned()
    } else {
        return Ok(());
    };
    Err(ArgError::Description { reason })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin, typespec};

    /// The resolved custom type `acme/t` declaring `cli_args`.
    fn type_with(cli_args: &str) -> ResolvedType {
        let text = format!("name: acme/t\nresource_kind: physical\ncli_args:\n{cli_args}");
        let spec = typespec::parse_type_file(&text, "t.yaml").unwrap();
        let lookup = |n: &TypeName| {
            (*n == spec.name)
                .then(|| spec.clone())
                .or_else(|| builtin::get(n))
        };
        typespec::resolve(&spec.name, &lookup).unwrap()
    }

    // Found by the cli_args fuzz target: a `path` default was stored as
    // written — relative, missing, even a NUL byte — as the location or a
    // property, where a given path is resolved, checked and canonical.
    #[test]
    fn a_path_default_that_does_not_exist_is_refused_naming_the_default() {
        let ty = type_with("  - {name: branch, type: path, default: \"\\0\"}\n");
        let err = check(&ty, &[], Some(Path::new("/"))).unwrap_err();
        assert!(matches!(err, ArgError::BadDefault { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.starts_with("--branch was not given, and its default \"\\0\" cannot be used"),
            "{msg}"
        );
        assert!(msg.ends_with("give --branch"), "{msg}");
    }

    #[test]
    fn a_relative_path_default_is_resolved_against_the_base_dir_and_made_canonical() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data/db")).unwrap();
        let ty = type_with(
            "  - {name: path, type: path, default: ./data}\n  - {name: store, type: path, default: data/./db}\n",
        );
        let checked = check(&ty, &[], Some(dir.path())).unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            checked.location.as_deref(),
            real.join("data").to_str(),
            "the location"
        );
        assert_eq!(
            checked.properties["store"],
            Value::from(real.join("data/db").to_str().unwrap())
        );
        let err = check(&ty, &[], None).unwrap_err();
        assert!(
            err.to_string()
                .contains("a relative path needs a base directory"),
            "{err}"
        );
    }

    #[test]
    fn a_given_path_is_used_instead_of_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let ty = type_with("  - {name: path, type: path, default: /no/such/dir}\n");
        let given = [("path".to_owned(), dir.path().display().to_string())];
        let checked = check(&ty, &given, None).unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(checked.location.as_deref(), real.to_str());
    }
}
