//! The registry document: the one home of the format `agents registry
//! export` writes and `import` reads — a versioned, backend-neutral
//! picture of what a registry holds that is worth moving or keeping.
//!
//! ```text
//! format: agents-registry      # refused unless exactly this
//! version: 1                   # refused when newer than VERSION
//! schema_version: 6            # the store schema it came from (information)
//! exported_at / produced_by / builtin_catalogue   (information)
//! types:     custom types only: name, source, timestamps, spec (type-file text)
//! plugins:   module, version, sha256, classes, size, source, added_at,
//!            provenance (an installed plugin's: registry, repository, tag,
//!            digests, contract, signer), component_base64 (only with
//!            --with-plugins)
//! resources: every stored column, under the resource view's names
//! links:     parent_id, child_id, auto_discovered, derived, created_at
//! environment_settings: scope, plan, resource_id (null: the host), priority
//! events:    (only with --with-events) seq, txn, at, op, kind, id, name,
//!            related_id, changes, actor
//! ```
//!
//! Nothing machine-local is carried: no sandboxes (their files live under
//! one home), no container states (a container exists on one engine),
//! no compile cache. Built-in types come with the binary, so only the
//! catalogue's fingerprint is recorded.
//!
//! A type travels as the text of a type file
//! ([`render_type_file`](crate::typespec::render_type_file)), so an import
//! reads it through the same parser as `type add` and a person can save
//! one and add it by hand.
//!
//! **Reading is checking.** [`RegistryDocument::parse`] looks at `format`
//! and `version` before anything else (a newer document is refused as
//! newer, not as malformed), reads every section item by item (a mistake
//! is named `resources[12]: …`), refuses unknown keys, and then checks
//! that the document agrees with itself (`check`): unique ids and
//! names, links and settings that name resources it holds, components
//! whose bytes hash to their sha256. What depends on the target registry
//! is the import's to check. The text may be JSON or YAML (a document
//! starting with `{` is read as JSON); the YAML read here is data, not a
//! type spec, so this is not a second spec reader.

mod base64;
mod check;
mod events;
mod fields;

use crate::model::TypeName;
pub(crate) use crate::store::{
    EventRow, LinkRow, PluginRow, ProvenanceRow, ResourceRow, SettingRow, TypeOrigin,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// What `format` must say.
pub const FORMAT: &str = "agents-registry";

/// The newest document version this binary reads and the one it writes.
pub const VERSION: u64 = 1;

/// A whole registry, as moved or kept (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegistryDocument {
    #[serde(flatten)]
    pub header: Header,
    pub types: Vec<TypeEntry>,
    pub plugins: Vec<PluginEntry>,
    /// Every stored column, under the resource view's names.
    pub resources: Vec<ResourceRow>,
    /// Both flags as stored.
    pub links: Vec<LinkRow>,
    pub environment_settings: Vec<SettingRow>,
    /// The event log (`--with-events`; absent: not exported).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventRow>,
}

/// The document's top-level scalars, before its sections (which are
/// read one by one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub format: String,
    pub version: u64,
    /// The store schema it came from (information).
    pub schema_version: i64,
    pub exported_at: String,
    pub produced_by: String,
    /// The built-in catalogue's fingerprint.
    pub builtin_catalogue: Option<String>,
}

/// One custom type: its row's origin, and its declared spec as type-file
/// text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeEntry {
    pub name: TypeName,
    #[serde(flatten)]
    pub origin: TypeOrigin,
    pub spec: String,
}

/// One plugin module of the store, by hash: its row, and what travels
/// with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginEntry {
    #[serde(flatten)]
    pub row: PluginRow,
    /// Where it was installed from (`plugin install`); absent for a
    /// module added from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<ProvenanceRow>,
    /// The component itself (`--with-plugins`); absent, the target home's
    /// plugin store must already hold the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_base64: Option<String>,
}

impl PluginEntry {
    pub(in crate::registry) fn from_row(
        row: PluginRow,
        provenance: Option<ProvenanceRow>,
        component: Option<&[u8]>,
    ) -> Self {
        Self {
            row,
            provenance,
            component_base64: component.map(base64::encode),
        }
    }
}

/// Why a text is not a registry document this binary can import.
#[derive(Debug, Error)]
pub enum DocumentError {
    #[error("not a registry document: {reason} (make one with `agents registry export`)")]
    Unreadable { reason: String },
    #[error(
        "not a registry document: its format is {}, not \"{FORMAT}\"",
        crate::text::quote(found)
    )]
    UnknownFormat { found: String },
    #[error(
        "the registry document has version {found}, newer than this agents binary reads (up \
         to {VERSION}); import it with a newer agents"
    )]
    TooNew { found: u64 },
    #[error(
        "the registry document has version {found}, which no agents binary writes (1 is the first)"
    )]
    UnknownVersion { found: u64 },
    #[error("the registry document is inconsistent: {item}: {reason}")]
    Invalid { item: String, reason: String },
}

impl RegistryDocument {
    /// Read a document from JSON or YAML text and check it (see the
    /// module doc).
    pub fn parse(text: &str) -> Result<Self, DocumentError> {
        let unreadable = |reason: String| DocumentError::Unreadable { reason };
        // Depth and aliases are bounded before serde reads the text (in
        // linear time; see `yaml_bounds`).
        let value: Value = if text.trim_start().starts_with('{') {
            crate::yaml_bounds::check_json(text)
                .map_err(|e| unreadable(format!("the JSON is refused: {e}")))?;
            serde_json::from_str(text).map_err(|e| unreadable(format!("invalid JSON: {e}")))?
        } else {
            crate::yaml_bounds::check_yaml(text)
                .map_err(|e| unreadable(format!("the YAML is refused: {e}")))?;
            serde_yaml::from_str(text).map_err(|e| unreadable(format!("invalid YAML: {e}")))?
        };
        let Value::Object(mut map) = value else {
            return Err(unreadable(format!(
                "expected a mapping (format: {FORMAT}, version: …), found {}",
                kind_of(&value)
            )));
        };
        let Some(format) = map.get("format").and_then(Value::as_str) else {
            return Err(unreadable(format!("no `format: {FORMAT}`")));
        };
        check::header(format, map.get("version").and_then(Value::as_u64))?;
        let types = section(&mut map, "types")?;
        let plugins = section(&mut map, "plugins")?;
        let resources = section(&mut map, "resources")?;
        let links = section(&mut map, "links")?;
        let environment_settings = section(&mut map, "environment_settings")?;
        let events = match map.contains_key("events") {
            true => section(&mut map, "events")?,
            false => Vec::new(),
        };
        let header: Header = serde_json::from_value(Value::Object(map))
            .map_err(|e| invalid("(document)", e.to_string()))?;
        let document = Self {
            header,
            types,
            plugins,
            resources,
            links,
            environment_settings,
            events,
        };
        document.check()?;
        Ok(document)
    }

    /// Check that the document agrees with itself (done by
    /// [`RegistryDocument::parse`]; an import checks again, as a document
    /// may also be built in code).
    pub fn check(&self) -> Result<(), DocumentError> {
        check::document(self)
    }

    /// The document as indented JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| unreachable!("a document serializes: {e}"))
    }

    /// The document as YAML.
    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).unwrap_or_else(|e| unreachable!("a document serializes: {e}"))
    }
}

/// `item` of the document is refused for `reason`.
pub(in crate::registry) fn invalid(
    item: impl Into<String>,
    reason: impl Into<String>,
) -> DocumentError {
    DocumentError::Invalid {
        item: item.into(),
        reason: reason.into(),
    }
}

/// Read the list under `key`, item by item, naming the item that is wrong.
fn section<T: DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &str,
) -> Result<Vec<T>, DocumentError> {
    let items = match map.remove(key) {
        Some(Value::Array(items)) => items,
        Some(other) => {
            let reason = format!("expected a list, found {}", kind_of(&other));
            return Err(invalid(key, reason));
        }
        None => return Err(invalid(key, "missing (an empty list is `[]`)")),
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item).map_err(|e| invalid(format!("{key}[{i}]"), e.to_string()))
        })
        .collect()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests;
