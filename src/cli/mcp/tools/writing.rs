//! The tools that change registered resources: links, removal,
//! discovery and refresh (registration is [`super::register`]).

use super::{Access, Count, Done, Progress, Tool, discovery, key};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::{Link, ResourceKey};
use resource_host::registry::{
    Depth, DiscoverOptions, DiscoveryReport, RefreshOptions, RefreshProgress, RefreshReport,
    Registry, RemovalReport, RemoveOptions,
};
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Link a child under a parent (refused for a cycle, a duplicate or types that do not allow the link).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkChild {
    /// A resource's name (local/api-repo) or its id (a ULID).
    parent: String,
    /// A resource's name (local/api-repo) or its id (a ULID).
    child: String,
}

impl Tool for LinkChild {
    type View = Link;
    const NAME: &'static str = "link_child";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let (parent, child) = (key("parent", &self.parent)?, key("child", &self.child)?);
        let link = registry.link_child(&parent, &child)?;
        let mut done = Done::new(&link, format!("linked {parent} → {child}"))?;
        done.changed = vec![parent.to_string(), child.to_string()];
        Ok(done)
    }
}

/// Remove the link between a parent and a child (the resources stay).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnlinkChild {
    /// A resource's name (local/api-repo) or its id (a ULID).
    parent: String,
    /// A resource's name (local/api-repo) or its id (a ULID).
    child: String,
}

impl Tool for UnlinkChild {
    type View = Unlinked;
    const NAME: &'static str = "unlink_child";
    const ACCESS: Access = Access::Write;
    const DESTRUCTIVE: bool = true;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let (parent, child) = (key("parent", &self.parent)?, key("child", &self.child)?);
        registry.unlink_child(&parent, &child)?;
        let (parent, child) = (parent.to_string(), child.to_string());
        let text = format!("unlinked {parent} → {child}");
        let mut done = Done::new(
            &Unlinked {
                unlinked: Edge {
                    parent: parent.clone(),
                    child: child.clone(),
                },
            },
            text,
        )?;
        done.changed = vec![parent, child];
        Ok(done)
    }
}

/// `unlink_child`'s answer: the link that went, as it was named.
#[derive(Serialize, JsonSchema)]
pub struct Unlinked {
    unlinked: Edge,
}

#[derive(Serialize, JsonSchema)]
struct Edge {
    parent: String,
    child: String,
}

/// Remove a resource and what it alone holds (its discovered children). dry_run says what would go; force first stops its containers and destroys its sandboxes.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveResource {
    /// A resource's name (local/api-repo) or its id (a ULID).
    name_or_id: String,
    /// Only say what would be removed.
    dry_run: Option<bool>,
    /// Also stop the resource's containers and destroy its sandboxes first.
    force: Option<bool>,
}

impl Tool for RemoveResource {
    type View = RemovalReport;
    const NAME: &'static str = "remove_resource";
    const ACCESS: Access = Access::Write;
    const DESTRUCTIVE: bool = true;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let key = key("name_or_id", &self.name_or_id)?;
        let mut options = RemoveOptions::default();
        options.dry_run = self.dry_run.unwrap_or(false);
        options.force = self.force.unwrap_or(false);
        let report = registry.remove_resource(&key, options)?;
        let mut before: Vec<String> = report
            .forced
            .containers
            .iter()
            .map(|(resource, container)| {
                format!("stopped and removed container {container} of {resource}")
            })
            .collect();
        before.extend(report.forced.sandboxes.iter().map(|gone| {
            format!(
                "destroyed sandbox {} ({} of {})",
                gone.sandbox_id,
                gone.strategy.as_str(),
                gone.resource
            )
        }));
        let gone = report.removed.len();
        let text = if report.dry_run {
            format!("would remove {gone} resources")
        } else {
            format!("removed {gone} resources")
        };
        let mut done = Done::new(&report, text)?;
        if !before.is_empty() {
            done.value["stopped_first"] = json!(before);
        }
        done.changed = report
            .removed
            .iter()
            .map(|r| r.resource_id.to_string())
            .collect();
        Ok(done)
    }
}

/// Ask the resource's handler again what lies below it (one level unless `depth`), adding new children and removing vanished ones. Sends progress.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Discover {
    /// A resource's name (local/api-repo) or its id (a ULID).
    name_or_id: String,
    /// Levels to explore (default 1).
    depth: Option<Count>,
}

impl Tool for Discover {
    type View = DiscoveryReport;
    const NAME: &'static str = "discover";
    const ACCESS: Access = Access::Write;

    fn call(self, registry: &mut Registry, progress: &mut Progress) -> Result<Done, Refusal> {
        let key = key("name_or_id", &self.name_or_id)?;
        let depth = Depth::Levels(self.depth.map_or(1, |d| d.0));
        let report = registry.discover(
            &key,
            DiscoverOptions {
                depth,
                progress: Some(&mut discovery(progress)),
            },
        )?;
        let text = format!(
            "discovered {}: {} new, {} gone, {} updated",
            escape_line(&report.resource.label()),
            report.added.len(),
            report.removed.len(),
            report.updated
        );
        let mut done = Done::new(&report, text)?;
        done.changed = vec![report.resource.resource_id.to_string()];
        Ok(done)
    }
}

/// Bring resources up to date with their locations (all when `names` is absent). Sends progress; subscribers of changed resources are told.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Refresh {
    /// Names or ids; all registered resources when absent.
    names: Option<Vec<String>>,
}

impl Tool for Refresh {
    type View = RefreshReport;
    const NAME: &'static str = "refresh";
    const ACCESS: Access = Access::Write;

    fn call(self, registry: &mut Registry, progress: &mut Progress) -> Result<Done, Refusal> {
        let keys: Vec<ResourceKey> = self
            .names
            .unwrap_or_default()
            .iter()
            .map(|name| key("names", name))
            .collect::<Result<_, _>>()?;
        let mut on = |p: RefreshProgress| {
            progress(
                p.checked as u64,
                None,
                format!("{} checked, {} changed", p.checked, p.changed),
            )
        };
        let report = registry.refresh(
            &keys,
            RefreshOptions {
                progress: Some(&mut on),
            },
        )?;
        let mut done = Done::new(&report, String::new())?;
        done.changed = changed_ids(&done.value);
        done.text = format!("refreshed: {} changed", done.changed.len());
        Ok(done)
    }
}

/// The ids a refresh report names as changed (updated, added, removed,
/// stale), wherever in the report they are.
fn changed_ids(report: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for field in ["updated", "added", "removed", "stale", "changed"] {
        if let Some(items) = report[field].as_array() {
            for item in items {
                for key in ["resource_id", "id"] {
                    if let Some(id) = item[key].as_str() {
                        ids.push(id.to_owned());
                    }
                }
            }
        }
    }
    ids
}
