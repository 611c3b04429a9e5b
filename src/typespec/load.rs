//! YAML text → raw specs: the one place `serde_yaml` is called, and the
//! one place its errors become [`SpecError`]s.
//!
//! A text is read twice on purpose. First as a plain `serde_yaml::Value`,
//! which separates "this is not YAML" (a syntax error, with line and
//! column) and "this is YAML of the wrong overall shape" (empty, a list
//! where a mapping belongs) from everything else; then into the raw
//! structs, where serde_yaml knows the path (`cli_args[1].type`) and the
//! line of any mistake. Both reads are cheap next to the file I/O that
//! produced the text.
//!
//! serde_yaml has no accessor for the path it tracked: it only prints it,
//! as `cli_args[1].type: unknown variant ...`. [`from_serde`] takes that
//! prefix back apart so the path lands in [`SpecError::Yaml::path`] and
//! the message reads `<source>: <path>: <reason>` like every other
//! refusal.

use super::SpecError;
use super::raw::RawTypeSpec;
use serde_yaml::Value;

/// Where a whole-document problem is reported: it has no field.
pub(super) const DOCUMENT: &str = "(document)";

/// One type file: a YAML mapping.
pub(super) fn one_spec(text: &str, source_name: &str) -> Result<RawTypeSpec, SpecError> {
    match document(text, source_name)? {
        Value::Mapping(_) => {}
        other => {
            return Err(shape(
                source_name,
                format!(
                    "expected a mapping of type fields (name: …, resource_kind: …), found {}",
                    kind_of(&other)
                ),
            ));
        }
    }
    serde_yaml::from_str(text).map_err(|e| from_serde(&e, source_name))
}

/// The built-in catalogue: a YAML list of mappings.
pub(super) fn spec_list(text: &str, source_name: &str) -> Result<Vec<RawTypeSpec>, SpecError> {
    match document(text, source_name)? {
        Value::Sequence(_) => {}
        other => {
            return Err(shape(
                source_name,
                format!(
                    "expected a list of type specs (- name: …), found {}",
                    kind_of(&other)
                ),
            ));
        }
    }
    serde_yaml::from_str(text).map_err(|e| from_serde(&e, source_name))
}

/// Parse `text` as one YAML document and refuse an empty one (and, before
/// serde_yaml reads it, one nested too deep or whose aliases expand too
/// far: see `yaml_bounds`).
fn document(text: &str, source_name: &str) -> Result<Value, SpecError> {
    crate::yaml_bounds::check_yaml(text)
        .map_err(|reason| shape(source_name, format!("the YAML is refused: {reason}")))?;
    let value: Value = serde_yaml::from_str(text).map_err(|e| {
        let mut err = from_serde(&e, source_name);
        if let SpecError::Yaml { reason, .. } = &mut err {
            *reason = format!("invalid YAML: {reason}");
        }
        err
    })?;
    if value.is_null() {
        return Err(shape(
            source_name,
            "the document is empty; a type spec needs at least `name` and, for a type \
             that does not inherit, `resource_kind`"
                .to_owned(),
        ));
    }
    Ok(value)
}

fn shape(source_name: &str, reason: String) -> SpecError {
    SpecError::Yaml {
        source_name: source_name.to_owned(),
        path: DOCUMENT.to_owned(),
        reason,
        line: None,
        column: None,
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// Turn a serde_yaml error into a [`SpecError::Yaml`], moving its path
/// prefix into `path`. For an unknown or missing field the key itself is
/// appended, so the path names the offending key (`cli_args[0].colour`),
/// not only the mapping that holds it.
pub(super) fn from_serde(err: &serde_yaml::Error, source_name: &str) -> SpecError {
    let text = err.to_string();
    let (path, reason) = match text.split_once(": ") {
        // A list at the root prints as `.[3].name`; the catalogue's own
        // refusals say `[3].name`, so drop the dot.
        Some((head, rest)) if looks_like_path(head) => (
            Some(head.strip_prefix('.').unwrap_or(head).to_owned()),
            rest.to_owned(),
        ),
        _ => (None, text.clone()),
    };
    let key = ["unknown field `", "missing field `"]
        .iter()
        .find_map(|prefix| reason.strip_prefix(prefix))
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key.to_owned());
    let path = match (path, key) {
        (Some(p), Some(k)) => format!("{p}.{k}"),
        (Some(p), None) => p,
        (None, Some(k)) => k,
        (None, None) => DOCUMENT.to_owned(),
    };
    let location = err.location();
    SpecError::Yaml {
        source_name: source_name.to_owned(),
        path,
        reason,
        line: location.as_ref().map(|l| l.line()),
        column: location.as_ref().map(|l| l.column()),
    }
}

/// Is `head` a serde_yaml path such as `cli_args[1].type` or `[3].name`?
/// Messages never start that way: theirs have spaces or backticks before
/// the first `": "` (`invalid type: …`, `unknown variant `x`, …`).
fn looks_like_path(head: &str) -> bool {
    !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']' | '?'))
}
