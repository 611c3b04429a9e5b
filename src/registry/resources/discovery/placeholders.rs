//! Local-mode placeholders: the children a type's discovery rules stand
//! for while it has no handler — made at registration, and brought in
//! line with the rules as they are now by `discover` and `refresh` (a
//! rule added gets its placeholder, a rule removed or changed loses its
//! own); the handler, once the type names one, replaces them with what it
//! finds.

use super::{Findings, Found, Refresh, identity};
use crate::model::{ResolvedType, ResourceName};
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::ResourceRow;
use serde_json::Value;
use std::sync::Arc;

impl Registry {
    /// Local-mode placeholders: a type that lists discovery rules but has
    /// no handler gets, at registration, one placeholder child per rule —
    /// of the rule's type, named `<parent>/rule-<n>`, with no location and
    /// the properties `placeholder = true`, `pattern` and `rule`. They
    /// stand for "what this rule will find" until a handler enumerates it:
    /// when the type gains a handler, the next `refresh` or `discover`
    /// replaces them with what the handler finds (a placeholder is an
    /// auto-discovered child no handler finds again). A rule whose type is
    /// missing or may not sit below is skipped (logged).
    pub(in crate::registry) fn placeholders(
        &self,
        types: &TypeSet,
        ty: &ResolvedType,
        parent: &ResourceRow,
        now: &str,
    ) -> Vec<ResourceRow> {
        let Some(discovery) = ty.discovery().filter(|d| d.enabled) else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (n, rule) in discovery.rules.iter().enumerate() {
            let child_ty = match types.resolve(&rule.type_name) {
                Ok(t) => t,
                Err(e) => {
                    log::warn!("no placeholder for rule {} of {}: {e}", n + 1, ty.name);
                    continue;
                }
            };
            if let Err(e) = crate::dag::check_link_types(ty, &child_ty) {
                log::warn!("no placeholder for rule {} of {}: {e}", n + 1, ty.name);
                continue;
            }
            let name = parent
                .name
                .as_ref()
                .and_then(|p| ResourceName::parse(&format!("{p}/rule-{}", n + 1)).ok());
            let properties = [
                ("placeholder", "true".to_owned()),
                ("pattern", rule.pattern.clone()),
                ("rule", (n + 1).to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::String(v)))
            .collect();
            let id = self.ids.next_id(self.clock.now());
            rows.push(ResourceRow {
                description: Some(format!(
                    "placeholder: what rule {} ({} {}) finds, until a handler enumerates it",
                    n + 1,
                    rule.type_name,
                    rule.pattern
                )),
                auto_discovered: true,
                properties,
                registered_by: Some(self.actor.clone()),
                ..ResourceRow::new(id, name, child_ty.name.clone(), child_ty.kind(), now)
            });
        }
        rows
    }

    /// What a rediscovery of `row` (of a handler-less `ty` with rules)
    /// finds: its rules' placeholders as they are now against the stored
    /// children. A placeholder stays (same id) while its rule is the same
    /// — type, position and pattern; the rest of what was discovered below
    /// it goes, as a handler's vanished children do.
    pub(in crate::registry) fn placeholder_findings(
        &self,
        types: &TypeSet,
        ty: &ResolvedType,
        row: &ResourceRow,
    ) -> Result<Findings, RegistryError> {
        let now = self.now();
        let wanted = self.placeholders(types, ty, row, &now);
        let id = row.id;
        let stored = self.store.read(|r| r.children_rows(id))?;
        let mut findings = Findings::default();
        let mut ids: Vec<_> = stored.iter().map(|c| c.id).collect();
        ids.sort();
        findings.read.push((id, ids));
        findings.root_explored = true;
        if row.discovered_at.is_none() && !wanted.is_empty() {
            findings.root_first_explored = Some(id);
        }
        let same = |a: &ResourceRow, b: &ResourceRow| {
            identity(a) == identity(b) && a.properties == b.properties
        };
        let stored: Vec<&ResourceRow> = stored.iter().filter(|c| c.auto_discovered).collect();
        for old in &stored {
            if !wanted.iter().any(|w| same(w, old)) {
                findings.vanished.push((id, old.id));
            }
        }
        let parent_label: Arc<str> = row.label().into();
        for (index, placeholder) in wanted.into_iter().enumerate() {
            if !findings.types.contains(&placeholder.type_name) {
                findings.types.push(placeholder.type_name.clone());
            }
            if let Some(old) = stored.iter().find(|old| same(old, &placeholder)) {
                findings.kept.push(Refresh {
                    id: old.id,
                    properties: old.properties.clone(),
                    content_hash: old.content_hash.clone(),
                    properties_changed: false,
                    stored_hash: old.content_hash.clone(),
                    first_explored: false,
                });
            } else {
                findings.added.push(Found {
                    row: placeholder,
                    parent: id,
                    parent_label: parent_label.clone(),
                    handler: None,
                    index,
                });
            }
        }
        Ok(findings)
    }
}
