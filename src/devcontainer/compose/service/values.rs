//! Reading a compose value as the host needs it: lists, text, paths, and
//! the refusal of compose's `${…}` interpolation where the host would have
//! to guess what a value names.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::text::quote;

/// `env_file`: a path, or a list of paths or `{path, required}`.
pub(super) fn env_files(value: &Value, key: &str) -> Result<Vec<(String, bool)>, String> {
    let one = |v: &Value| -> Result<(String, bool), String> {
        match v {
            Value::String(s) => Ok((s.clone(), true)),
            Value::Object(m) => Ok((
                plain(m.get("path").unwrap_or(&Value::Null), key)?,
                m.get("required") != Some(&Value::Bool(false)),
            )),
            _ => Err(format!("{key}: an entry must be a path or a mapping")),
        }
    };
    match value {
        Value::Array(items) => items.iter().map(one).collect(),
        other => Ok(vec![one(other)?]),
    }
}

pub(super) fn list(value: &Value, key: &str) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::Null => Ok(Vec::new()),
        _ => Err(format!("{key} must be a list")),
    }
}

/// A list of strings, or one string.
pub(in crate::devcontainer::compose) fn strings(
    value: Option<&Value>,
    key: &str,
) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items.iter().map(|v| scalar(v, key)).collect(),
        Some(_) => Err(format!("{key} must be text or a list of text")),
    }
}

/// A scalar as text.
pub(super) fn scalar(value: &Value, key: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(format!("{key} must be text")),
    }
}

/// A text value with no interpolation.
pub(in crate::devcontainer::compose) fn plain(value: &Value, key: &str) -> Result<String, String> {
    let text = scalar(value, key)?;
    literal(&text, key)?;
    Ok(text)
}

/// Refuses an interpolation in `text`.
pub(in crate::devcontainer::compose) fn literal(text: &str, key: &str) -> Result<(), String> {
    if text.replace("$$", "").contains('$') {
        return Err(format!(
            "{key} {} is interpolated by compose from the environment and .env: the host does \
             not resolve compose variables, so it cannot be certain what it names; write the \
             value itself",
            quote(text)
        ));
    }
    Ok(())
}

/// Refuses an interpolation anywhere in `value`.
pub(super) fn no_interpolation(value: &Value, key: &str) -> Result<(), String> {
    match value {
        Value::String(s) => literal(s, key),
        Value::Array(items) => items.iter().try_for_each(|v| no_interpolation(v, key)),
        Value::Object(map) => map.iter().try_for_each(|(k, v)| {
            literal(k, key)?;
            no_interpolation(v, key)
        }),
        _ => Ok(()),
    }
}

/// A value on one line, cut.
pub(super) fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    crate::text::escape_line(&crate::text::excerpt(&text, 200)).into_owned()
}

/// `path` with `.` and `..` resolved lexically.
pub(super) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}
