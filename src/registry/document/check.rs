//! Does a document agree with itself? Everything that can be decided
//! without a target registry: the header, unique keys, references inside
//! the document, the limits the store's columns hold, and embedded
//! components that are what their sha256 says. Each refusal names the
//! item (`links[3]`, `plugins[0] (acme.py)`).

use super::fields::{MAX_HASH, MAX_STALE};
use super::{DocumentError, FORMAT, PluginEntry, RegistryDocument, VERSION, base64, invalid};
use crate::dag::{self, LinkRefusal};
use crate::digest::{is_sha256_hex, sha256_hex};
use crate::model::{ResourceId, ResourceKind};
use std::collections::{BTreeMap, BTreeSet};

/// A document of `format` and `version` (`None`: not a whole number) is
/// one this binary reads: judged before anything else, so that a newer
/// document is refused as newer, not as malformed.
pub(super) fn header(format: &str, version: Option<u64>) -> Result<(), DocumentError> {
    if format != FORMAT {
        let found = format.to_owned();
        return Err(DocumentError::UnknownFormat { found });
    }
    match version {
        None => Err(DocumentError::Unreadable {
            reason: "no `version` (a whole number)".to_owned(),
        }),
        Some(0) => Err(DocumentError::UnknownVersion { found: 0 }),
        Some(found) if found > VERSION => Err(DocumentError::TooNew { found }),
        Some(_) => Ok(()),
    }
}

pub(super) fn document(doc: &RegistryDocument) -> Result<(), DocumentError> {
    header(&doc.header.format, Some(doc.header.version))?;
    unique(&doc.types, "types", "type", |t| Some(&t.name))?;
    unique(&doc.plugins, "plugins", "module", |p| Some(&p.row.module))?;
    for (i, plugin) in doc.plugins.iter().enumerate() {
        plugin.component().map_err(|e| match e {
            DocumentError::Invalid { reason, .. } => {
                invalid(format!("plugins[{i}] ({})", plugin.row.module), reason)
            }
            other => other,
        })?;
    }
    resources(doc)?;
    let ids: BTreeSet<ResourceId> = doc.resources.iter().map(|r| r.id).collect();
    links(doc, &ids)?;
    settings(doc, &ids)?;
    super::events::check(&doc.events)?;
    super::fields::check(doc)
}

/// Every `key` of the items of `section` (`None`: the item has none)
/// once; a repeat names both places.
fn unique<'a, T, K: std::fmt::Display>(
    items: &'a [T],
    section: &str,
    what: &str,
    key: impl Fn(&'a T) -> Option<K>,
) -> Result<(), DocumentError> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let keys = items.iter().enumerate();
    for (i, key) in keys.filter_map(|(i, item)| Some((i, key(item)?.to_string()))) {
        if let Some(first) = seen.insert(key.clone(), i) {
            return Err(invalid(
                format!("{section}[{i}]"),
                format!("{what} {key} is already at {section}[{first}]"),
            ));
        }
    }
    Ok(())
}

fn resources(doc: &RegistryDocument) -> Result<(), DocumentError> {
    unique(&doc.resources, "resources", "resource id", |r| Some(r.id))?;
    unique(&doc.resources, "resources", "resource name", |r| {
        r.name.as_ref()
    })?;
    for (i, r) in doc.resources.iter().enumerate() {
        let refuse = |reason: String| Err(invalid(format!("resources[{i}] ({})", r.id), reason));
        if r.content_hash.as_ref().is_some_and(|h| h.len() > MAX_HASH) {
            return refuse(format!("content_hash is longer than {MAX_HASH} bytes"));
        }
        if r.kind == ResourceKind::Virtual && r.location.is_some() {
            return refuse("a virtual resource has no location".to_owned());
        }
        if let Some(why) = r.registered_by.as_ref().and_then(actor_refused) {
            return refuse(format!("registered_by: {why}"));
        }
        if r.stale.as_ref().is_some_and(|s| s.len() > MAX_STALE) {
            return refuse(format!("stale is longer than {MAX_STALE} bytes"));
        }
    }
    Ok(())
}

/// Why an actor a document names is refused (`None`: it is fine).
fn actor_refused(actor: &crate::model::Actor) -> Option<String> {
    if actor.name.chars().count() > crate::model::Actor::MAX_NAME {
        return Some(format!(
            "its name is longer than {} characters",
            crate::model::Actor::MAX_NAME
        ));
    }
    actor
        .name
        .chars()
        .any(char::is_control)
        .then(|| "its name holds a control character".to_owned())
}

/// `item` names resource `id`, which the document does not hold.
fn not_held(item: String, id: ResourceId) -> DocumentError {
    invalid(
        item,
        format!("resource {id} is not in the document's resources"),
    )
}

fn links(doc: &RegistryDocument, ids: &BTreeSet<ResourceId>) -> Result<(), DocumentError> {
    let mut seen: BTreeMap<(ResourceId, ResourceId), usize> = BTreeMap::new();
    for (i, l) in doc.links.iter().enumerate() {
        let item = format!("links[{i}] ({} → {})", l.parent, l.child);
        if let Some(why) = l.linked_by.as_ref().and_then(actor_refused) {
            return Err(invalid(item, format!("linked_by: {why}")));
        }
        if let Some(end) = [l.parent, l.child]
            .into_iter()
            .find(|end| !ids.contains(end))
        {
            return Err(not_held(item, end));
        }
        let first = seen.get(&(l.parent, l.child)).copied();
        if let Err(refusal) = dag::check_ends(l.parent, l.child, first.is_some()) {
            let reason = match (refusal, first) {
                (LinkRefusal::Duplicate, Some(first)) => {
                    format!("the same link is at links[{first}]")
                }
                _ => "a resource cannot be its own child".to_owned(),
            };
            return Err(invalid(item, reason));
        }
        seen.insert((l.parent, l.child), i);
    }
    Ok(())
}

fn settings(doc: &RegistryDocument, ids: &BTreeSet<ResourceId>) -> Result<(), DocumentError> {
    for (i, s) in doc.environment_settings.iter().enumerate() {
        if let Some(id) = s.resource.filter(|id| !ids.contains(id)) {
            return Err(not_held(format!("environment_settings[{i}]"), id));
        }
    }
    let settings = &doc.environment_settings;
    unique(settings, "environment_settings", "the setting of", |s| {
        Some(&s.scope)
    })
}

impl PluginEntry {
    /// The embedded component, decoded and checked against `sha256` and
    /// `size_bytes` (`None`: not embedded).
    pub fn component(&self) -> Result<Option<Vec<u8>>, DocumentError> {
        let refuse = |reason: String| Err(invalid(format!("plugin {}", self.row.module), reason));
        if self.row.module.is_reserved() {
            return refuse(format!(
                "module names under {} are the built-in handlers', which come with the binary",
                crate::model::BUILTIN_MODULE_PREFIX
            ));
        }
        if !is_sha256_hex(&self.row.sha256) {
            let sha256 = crate::text::quote(&self.row.sha256);
            return refuse(format!("sha256 {sha256} is not 64 lowercase hex digits"));
        }
        let Some(text) = &self.component_base64 else {
            return Ok(None);
        };
        let bytes = match base64::decode(text) {
            Ok(bytes) => bytes,
            Err(reason) => return refuse(format!("component_base64: {reason}")),
        };
        let actual = sha256_hex(&bytes);
        if actual != self.row.sha256 {
            return refuse(format!(
                "the embedded component hashes to {actual}, not to its recorded sha256 {}; the \
                 document was changed or damaged",
                self.row.sha256
            ));
        }
        if bytes.len() as i64 != self.row.size_bytes {
            return refuse(format!(
                "the embedded component is {} bytes, not its recorded {}",
                bytes.len(),
                self.row.size_bytes
            ));
        }
        Ok(Some(bytes))
    }
}
