//! Python arguments into the library's values: names and ids parsed as
//! the CLI parses them, paths as UTF-8 text, and a registration's type
//! arguments (`register_resource(…, branch="main")`) as the text
//! `agents resource add --branch main` would pass. Whatever does not fit
//! is refused here, before a registry is touched: a value of the wrong
//! Python type with `TypeError`, the rest with `InvalidArgumentsError`.

use crate::errors::invalid;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use resource_host::model::{ResourceKey, SandboxId, SandboxStrategy};
use resource_host::registry::{RegistrationForm, RegistryError};
use std::path::PathBuf;

pub fn key(text: &str) -> Result<ResourceKey, RegistryError> {
    text.parse::<ResourceKey>().map_err(RegistryError::from)
}

pub fn sandbox_id(text: &str) -> Result<SandboxId, RegistryError> {
    SandboxId::parse(text).map_err(RegistryError::from)
}

/// A path as the UTF-8 text the library's arguments are.
pub fn path_text(what: &str, path: PathBuf) -> PyResult<String> {
    path.into_os_string()
        .into_string()
        .map_err(|p| invalid(format!("{what} {p:?} is not UTF-8 text")))
}

pub fn strategy(text: &str) -> PyResult<SandboxStrategy> {
    SandboxStrategy::parse(text).ok_or_else(|| {
        let all = SandboxStrategy::ALL.map(|s| s.as_str()).join(", ");
        invalid(format!(
            "{text:?} is not a sandbox strategy; use one of {all}"
        ))
    })
}

/// The type arguments given as keywords, each as its flag's text.
pub fn type_args(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let Some(kwargs) = kwargs else {
        return Ok(Vec::new());
    };
    kwargs
        .iter()
        .map(|(name, value)| {
            let name: String = name.extract()?;
            let text = arg_text(&name, &value)?;
            Ok((name, text))
        })
        .collect()
}

/// `str`, `int`, `bool` (`true`/`false`) or a path, as text; anything
/// else is a `TypeError` (a list would otherwise pass as its `repr`).
fn arg_text(name: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(if flag.is_true() { "true" } else { "false" }.to_owned());
    }
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyString>() {
        return Ok(value.str()?.to_string());
    }
    if value.hasattr("__fspath__")? {
        return path_text(&format!("argument {name}="), value.extract()?);
    }
    Err(PyTypeError::new_err(format!(
        "argument {name}={}: give a str, an int, a bool or a path, not {}",
        value.repr()?,
        value.get_type().name()?
    )))
}

/// A keyword spelled with `_` names the argument spelled with `-` when
/// the type has no argument of the first spelling (`dry_run` → `dry-run`).
pub fn dashed(args: &mut [(String, String)], form: &RegistrationForm) {
    let known = |name: &str| form.args.iter().any(|a| a.name == name);
    for (name, _) in args.iter_mut() {
        if name.contains('_') && !known(name) {
            let with_dashes = name.replace('_', "-");
            if known(&with_dashes) {
                *name = with_dashes;
            }
        }
    }
}
