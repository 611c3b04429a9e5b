//! Local-mode placeholders: the children a type's discovery rules stand
//! for while it has no handler.

use crate::model::{ResolvedType, ResourceName};
use crate::registry::Registry;
use crate::registry::type_set::TypeSet;
use crate::store::ResourceRow;
use serde_json::Value;

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
    pub(super) fn placeholders(
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
            rows.push(ResourceRow {
                id: self.ids.next_id(self.clock.now()),
                name,
                type_name: child_ty.name.clone(),
                kind: child_ty.kind(),
                location: None,
                description: Some(format!(
                    "placeholder: what rule {} ({} {}) finds, until a handler enumerates it",
                    n + 1,
                    rule.type_name,
                    rule.pattern
                )),
                read_only: false,
                auto_discovered: true,
                sandbox_strategy: None,
                content_hash: None,
                properties,
                created_at: now.to_owned(),
                updated_at: now.to_owned(),
                discovered_at: None,
                stale: None,
            });
        }
        rows
    }
}
