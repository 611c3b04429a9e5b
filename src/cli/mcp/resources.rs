//! Registered resources as MCP resources: `agents://resource/<name or
//! id>` (percent-encoded where a name holds what a URI cannot), listed a
//! page at a time (the resources a person registered; their children
//! through the template), read as the `resource show -o json` view, and
//! subscribed to: a change a tool, a refresh or the watcher (`--watch`)
//! makes to a subscribed resource is told to its subscribers
//! ([`super::subscriptions`]).

use super::kinds::Refusal;
use super::pool::Pool;
use super::roots::percent_decoded;
use resource_host::model::{ResourceId, ResourceKey};
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use std::sync::Arc;

const PREFIX: &str = "agents://resource/";

/// What a resource reads as: the show view.
const JSON: &str = "application/json";

/// Resources per `resources/list` page.
const PAGE: usize = 100;

/// The URI of a resource.
pub fn uri_of(key: &str) -> String {
    let mut uri = String::from(PREFIX);
    for byte in key.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The resource a URI names, if it is one of ours.
pub fn key_of(uri: &str) -> Option<ResourceKey> {
    let bytes = percent_decoded(uri.strip_prefix(PREFIX)?)?;
    String::from_utf8(bytes).ok()?.parse().ok()
}

pub fn template() -> ResourceTemplate {
    let mut template = ResourceTemplate::new(format!("{PREFIX}{{+name_or_id}}"), "resource");
    template.title = Some("A registered resource".to_owned());
    template.description = Some(
        "Any resource by name (local/api-repo) or id, its children included: the view \
         `agents resource show -o json` prints."
            .to_owned(),
    );
    template.mime_type = Some(JSON.to_owned());
    template
}

fn key_or_refusal(uri: &str) -> Result<ResourceKey, Refusal> {
    key_of(uri).ok_or_else(|| {
        Refusal::invalid(format!(
            "{uri:?} is not a resource URI ({PREFIX}<name or id>)"
        ))
    })
}

/// One page of the resources someone registered (auto-discovered ones
/// are reached through the template). The cursor is the last id of the
/// page before, so a page is a keyset query in the store, however deep.
pub async fn list(
    pool: &Arc<Pool>,
    cursor: Option<String>,
) -> Result<ListResourcesResult, Refusal> {
    let cursor_id = |c: String| {
        ResourceId::parse(&c)
            .map_err(|_| Refusal::invalid(format!("{c:?} is not a cursor this server gave")))
    };
    let after = cursor.map(cursor_id).transpose()?;
    pool.with(move |registry| {
        // One more than a page says whether another follows.
        let mut rows = registry.registered_page(after, PAGE + 1)?;
        let more = rows.len() > PAGE;
        rows.truncate(PAGE);
        let next = more.then(|| rows.last().map(|r| r.resource_id.to_string()));
        let page: Vec<Resource> = rows
            .iter()
            .map(|r| {
                let key = r
                    .name
                    .as_ref()
                    .map_or_else(|| r.resource_id.to_string(), |n| n.to_string());
                let mut item = Resource::new(uri_of(&key), r.label());
                item.title = Some(format!("{} ({})", r.label(), r.resource_type_name.as_str()));
                item.description = r.description.clone().or_else(|| r.location.clone());
                item.mime_type = Some(JSON.to_owned());
                item
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(page);
        result.next_cursor = next.flatten();
        Ok(result)
    })
    .await
}

/// `resources/read`: `show_resource`'s view, as JSON text.
pub async fn read(pool: &Arc<Pool>, uri: &str) -> Result<ReadResourceResult, Refusal> {
    let key = key_or_refusal(uri)?;
    let uri = uri.to_owned();
    pool.with(move |registry| {
        let written = |e: serde_json::Error| Refusal::internal(e.to_string());
        let value = serde_json::to_value(super::tools::shown(registry, &key)?).map_err(written)?;
        let text = serde_json::to_string_pretty(&value).map_err(written)?;
        let contents = ResourceContents::text(text, uri).with_mime_type(JSON);
        Ok(ReadResourceResult::new(vec![contents]))
    })
    .await
}

/// The id of the resource a URI names (subscriptions follow the id: a
/// rename does not lose them).
pub async fn resolve(pool: &Arc<Pool>, uri: &str) -> Result<ResourceId, Refusal> {
    let key = key_or_refusal(uri)?;
    pool.with(move |registry| Ok(registry.show_resource(&key)?.resource_id))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_readable_name_survives_its_uri_both_ways() {
        for name in [
            "local/t/100% café.txt",
            "local/t/my notes.txt",
            "local/t/%07bell",
        ] {
            let uri = uri_of(name);
            assert!(uri.is_ascii() && !uri.contains(' '), "{uri}");
            let key = key_of(&uri).unwrap_or_else(|| panic!("{uri} reads back"));
            assert_eq!(key.to_string(), name);
        }
        assert_eq!(uri_of("local/t/a b"), "agents://resource/local/t/a%20b");
        assert!(key_of("agents://resource/local/t/%zz").is_none());
    }
}
