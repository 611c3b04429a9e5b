//! How `agents resource …` shows things to people: the list table, one
//! resource, a removal, a devcontainer's state — every value
//! from the registry or a handler escaped before it reaches a terminal.

use crate::cli::output::{self, LISTED, fields, list, or_dash, table};
use resource_host::model::{Resource, ResourceId, resource_label};
use resource_host::natural::names_cmp;
use resource_host::registry::{ContainerView, Registry, RemovalReport, TrustState};
use resource_host::text::escape_line;
use std::collections::HashMap;

/// A resource `show` names by id: its name (the id without one) and
/// `name (type)`.
pub(super) struct Named {
    pub(super) label: String,
    text: String,
}

/// The parents, children and equivalents of `r`, named; those the
/// registry no longer has (or all, if it cannot answer) stay ids.
pub(super) fn neighbours(registry: &Registry, r: &Resource) -> HashMap<ResourceId, Named> {
    let mut ids: Vec<ResourceId> = r
        .parents
        .iter()
        .chain(&r.children)
        .chain(&r.equivalents)
        .copied()
        .collect();
    ids.sort();
    ids.dedup();
    registry
        .labels(&ids)
        .unwrap_or_default()
        .into_iter()
        .map(|l| {
            let named = Named {
                label: resource_label(l.name.as_ref(), l.resource_id),
                text: l.text(),
            };
            (l.resource_id, named)
        })
        .collect()
}

/// `ids` as `name (type), …`, at most [`LISTED`] of them.
fn named_list(ids: &[ResourceId], named: &HashMap<ResourceId, Named>) -> String {
    // Named ones in natural order of their names, then the bare ids.
    let mut sorted: Vec<(Option<&Named>, &ResourceId)> =
        ids.iter().map(|id| (named.get(id), id)).collect();
    sorted.sort_by(|a, b| {
        names_cmp(a.0.map(|n| n.label.as_str()), b.0.map(|n| n.label.as_str()))
            .then_with(|| a.1.cmp(b.1))
    });
    let mut items: Vec<String> = sorted
        .iter()
        .take(LISTED)
        .map(|(n, id)| n.map_or_else(|| id.to_string(), |n| n.text.clone()))
        .collect();
    if ids.len() > LISTED {
        items.push(format!("… {} more (-o json lists all)", ids.len() - LISTED));
    }
    list(items)
}

/// A devcontainer's lifecycle, for `resource show` of `name`.
pub(super) fn container_text(c: &ContainerView, name: &str) -> String {
    let mut text = output::bold("container:");
    text.push('\n');
    let mut line = |k: &str, v: &str| text.push_str(&format!("  {k}: {}\n", escape_line(v)));
    line("state", c.state.as_str());
    if let Some(id) = &c.container_id {
        line("id", id);
    }
    if let Some(tool) = &c.tool {
        line("tool", tool);
    }
    match &c.trust {
        Some(TrustState::Trusted { by, at }) => line("trust", &format!("trusted by {by} at {at}")),
        Some(TrustState::Untrusted) => line(
            "trust",
            &format!(
                "NOT TRUSTED: nothing of it runs until you agree (agents resource trust {name})"
            ),
        ),
        Some(TrustState::Changed { by, changed, .. }) => line(
            "trust",
            &format!(
                "CHANGED since {by} trusted it ({}): agents resource trust {name}",
                changed.join(", ")
            ),
        ),
        Some(TrustState::NoPerson) => line("trust", "no person: nothing is trusted"),
        None => {}
    }
    if let Some(why) = &c.refused {
        line("refused", why);
    }
    if c.out_of_date {
        line(
            "out of date",
            &format!(
                "devcontainer.json changed since it was built: agents resource rebuild {name}"
            ),
        );
    }
    if let Some(err) = &c.last_error {
        line("last error", err);
    }
    text
}

pub(in crate::cli) fn resource_table(resources: &[Resource]) -> String {
    let rows: Vec<Vec<String>> = resources
        .iter()
        .map(|r| {
            vec![
                or_dash(r.name.as_ref()),
                r.resource_type_name.to_string(),
                or_dash(r.location.as_ref()),
                r.resource_id.to_string(),
            ]
        })
        .collect();
    table(&["NAME", "TYPE", "LOCATION", "ID"], &rows)
}

/// One resource for people; the properties named in `hidden` are left
/// out (shown better elsewhere in the same view).
pub(super) fn show(
    r: &Resource,
    named: &HashMap<ResourceId, Named>,
    equivalents: &[String],
    hidden: &[&str],
) -> String {
    let mut pairs = vec![
        ("resource_id", r.resource_id.to_string()),
        ("name", or_dash(r.name.as_ref())),
        ("resource_type_name", r.resource_type_name.to_string()),
        ("classification", r.kind.to_string()),
        ("description", or_dash(r.description.as_ref())),
        ("location", or_dash(r.location.as_ref())),
        ("sandbox_strategy", or_dash(r.sandbox_strategy.as_ref())),
        ("content_hash", or_dash(r.content_hash.as_ref())),
        ("parents", named_list(&r.parents, named)),
        ("children", named_list(&r.children, named)),
        ("capabilities", list(r.capabilities.enabled())),
        ("auto_discovered", r.auto_discovered.to_string()),
        (
            "registered_by",
            r.registered_by.as_ref().map_or_else(
                || "- (not recorded)".to_owned(),
                |a| escape_line(&a.label()).into_owned(),
            ),
        ),
        ("read_only", r.read_only.to_string()),
        ("created_at", r.created_at.clone()),
        ("updated_at", r.updated_at.clone()),
    ];
    if !equivalents.is_empty() {
        pairs.push(("equivalents", list(equivalents)));
    }
    if let Some(reason) = &r.stale {
        pairs.push(("stale", escape_line(reason).into_owned()));
    }
    let mut text = fields(&pairs);
    text.push_str(&output::bold("properties:"));
    text.push('\n');
    if r.properties.is_empty() {
        text.push_str("  (none)\n");
    }
    for (k, v) in r
        .properties
        .iter()
        .filter(|(k, _)| !hidden.contains(&k.as_str()))
    {
        let value = resource_host::registry::args::render(v);
        text.push_str(&format!("  {}: {}\n", escape_line(k), escape_line(&value)));
    }
    text
}

pub(super) fn removal(report: &RemovalReport) -> String {
    let verb = if report.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let mut text = String::new();
    for r in &report.removed {
        text.push_str(&format!(
            "{verb} {} ({})\n",
            r.label(),
            r.resource_type_name
        ));
    }
    for id in &report.sandboxes {
        text.push_str(&format!(
            "blocked by sandbox {id}: destroy it first, or remove with --force\n"
        ));
    }
    for held in &report.containers {
        text.push_str(&format!(
            "blocked by the container of {}: stop and remove it first, or remove with --force\n",
            escape_line(held)
        ));
    }
    for r in &report.unlinked {
        let keep = if report.dry_run { "would keep" } else { "kept" };
        text.push_str(&format!(
            "{keep} {} ({}): registered by hand, only unlinked\n",
            r.label(),
            r.resource_type_name
        ));
    }
    text
}
