//! What one field of a document may hold: the rules registration applies
//! to what it writes, applied to what an import would write instead.
//!
//! * A location is an absolute, canonical path — no `.` or `..`, no empty
//!   part, no trailing `/` — at most [`LOCATION_MAX`] bytes, as
//!   registration stores them (canonicalised). A relative one would be
//!   read against whatever directory a later command runs in (a sandbox
//!   `apply` once wrote into `<cwd>/relative/path`).
//! * A timestamp is one the registry writes ([`crate::effects::is_iso8601`]).
//! * Text is bounded (descriptions by [`DESCRIPTION_MAX`], as
//!   `resource add --description` is; properties as a handler's answer
//!   is — [`AnswerBounds`]'s counts and sizes) and holds no NUL byte,
//!   which a PostgreSQL registry could not store and no terminal shows.

use super::{DocumentError, RegistryDocument, ResourceRow, invalid};
use crate::model::DESCRIPTION_MAX;
use crate::plugin::AnswerBounds;
use crate::text::quote;
use std::path::{Component, Path};

/// The longest `content_hash` and `stale` reason the store keeps.
pub(super) const MAX_HASH: usize = 128;
pub(super) const MAX_STALE: usize = 4096;

/// The longest location kept (Linux's `PATH_MAX`).
pub(super) const LOCATION_MAX: usize = 4096;
/// The longest `source` of a type or plugin, and a plugin's version.
const SOURCE_MAX: usize = 4096;
const VERSION_MAX: usize = 64;
/// The longest informational header field (`produced_by`, the
/// catalogue's fingerprint).
const HEADER_MAX: usize = 256;

/// `value` (the field `field` of `item`) holds no NUL and at most `max`
/// bytes.
fn text(item: &str, field: &str, value: &str, max: usize) -> Result<(), DocumentError> {
    let len = value.len();
    if len > max {
        let reason = format!("{field} is {len} bytes, more than the {max} allowed");
        return Err(invalid(item, reason));
    }
    if value.contains('\0') {
        return Err(invalid(item, format!("{field} holds a NUL byte")));
    }
    Ok(())
}

fn timestamp(item: &str, field: &str, value: &str) -> Result<(), DocumentError> {
    if crate::effects::is_iso8601(value) {
        return Ok(());
    }
    let value = quote(value);
    let reason = format!("{field} {value} is not a UTC timestamp like 2026-01-31T12:00:00.000Z");
    Err(invalid(item, reason))
}

/// Why `location` is not a path registration would store, if it is not.
pub(crate) fn location_fault(location: &str) -> Option<String> {
    if location.contains('\0') {
        return Some("it holds a NUL byte".to_owned());
    }
    if location.len() > LOCATION_MAX {
        return Some(format!("it is longer than {LOCATION_MAX} bytes"));
    }
    let path = Path::new(location);
    if !path.is_absolute() {
        return Some("it is not an absolute path".to_owned());
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Some("it holds `..`".to_owned());
    }
    // `components` drops `.`, repeated and trailing `/`: a canonical path
    // reads back as itself.
    let rebuilt: std::path::PathBuf = path.components().collect();
    if rebuilt.as_os_str() != path.as_os_str() {
        return Some("it is not canonical (a `.`, an empty part or a trailing `/`)".to_owned());
    }
    None
}

/// Every field of every item, by the rules above.
pub(super) fn check(doc: &RegistryDocument) -> Result<(), DocumentError> {
    let head = "(document)";
    // (Information only, never stored: bounded, not held to a format.)
    text(head, "exported_at", &doc.header.exported_at, HEADER_MAX)?;
    text(head, "produced_by", &doc.header.produced_by, HEADER_MAX)?;
    if let Some(fingerprint) = &doc.header.builtin_catalogue {
        text(head, "builtin_catalogue", fingerprint, HEADER_MAX)?;
    }
    let spec_max = crate::user_files::InputKind::TypeFile.limit() as usize;
    for (i, t) in doc.types.iter().enumerate() {
        let item = format!("types[{i}] ({})", t.name);
        text(&item, "source", &t.origin.source, SOURCE_MAX)?;
        text(&item, "spec", &t.spec, spec_max)?;
        timestamp(&item, "created_at", &t.origin.created_at)?;
        timestamp(&item, "updated_at", &t.origin.updated_at)?;
    }
    let bounds = AnswerBounds::default();
    for (i, p) in doc.plugins.iter().map(|p| &p.row).enumerate() {
        let item = format!("plugins[{i}] ({})", p.module);
        text(&item, "version", &p.version, VERSION_MAX)?;
        text(&item, "source", &p.source, SOURCE_MAX)?;
        timestamp(&item, "added_at", &p.added_at)?;
        if p.classes.len() > bounds.max_classes {
            let reason = format!("it has more than {} classes", bounds.max_classes);
            return Err(invalid(item, reason));
        }
        for c in &p.classes {
            let field = format!("the description of class {}", c.name);
            text(&item, &field, &c.description, bounds.max_string_bytes)?;
        }
    }
    for (i, r) in doc.resources.iter().enumerate() {
        resource(&format!("resources[{i}] ({})", r.id), r, &bounds)?;
    }
    for (i, l) in doc.links.iter().enumerate() {
        timestamp(&format!("links[{i}]"), "created_at", &l.created_at)?;
    }
    for (i, s) in doc.environment_settings.iter().enumerate() {
        let item = format!("environment_settings[{i}]");
        timestamp(&item, "updated_at", &s.updated_at)?;
        if let crate::model::SettingScope::Plan(plan) = &s.scope {
            text(&item, "plan", plan, HEADER_MAX)?;
        }
    }
    Ok(())
}

fn resource(item: &str, r: &ResourceRow, bounds: &AnswerBounds) -> Result<(), DocumentError> {
    if let Some(location) = &r.location
        && let Some(why) = location_fault(location)
    {
        let reason = format!(
            "its location {} is refused: {why}; a location is stored as registration stores \
             it, absolute and canonical",
            quote(location)
        );
        return Err(invalid(item, reason));
    }
    if let Some(description) = &r.description {
        text(item, "description", description, DESCRIPTION_MAX)?;
    }
    if let Some(stale) = &r.stale {
        text(item, "stale", stale, MAX_STALE)?;
    }
    if let Some(hash) = &r.content_hash {
        text(item, "content_hash", hash, MAX_HASH)?;
    }
    timestamp(item, "created_at", &r.created_at)?;
    timestamp(item, "updated_at", &r.updated_at)?;
    if let Some(at) = &r.discovered_at {
        timestamp(item, "discovered_at", at)?;
    }
    let (count, max) = (r.properties.len(), bounds.max_properties);
    if count > max {
        let reason = format!("it has {count} properties, more than the {max} allowed");
        return Err(invalid(item, reason));
    }
    let max = bounds.max_string_bytes;
    for (key, value) in &r.properties {
        text(item, "a property's key", key, max)?;
        let field = format!("the value of property {}", quote(key));
        let shown = match value {
            serde_json::Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
            other => std::borrow::Cow::Owned(other.to_string()),
        };
        text(item, &field, &shown, max)?;
        if holds_nul(value) {
            return Err(invalid(item, format!("{field} holds a NUL byte")));
        }
    }
    Ok(())
}

/// Does any string in `value` (keys included) hold a NUL byte?
fn holds_nul(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Array(items) => items.iter().any(holds_nul),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || holds_nul(v)),
        _ => false,
    }
}
