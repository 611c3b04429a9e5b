//! Between the document's items and the store's rows: one field to one
//! column, nothing computed, so what an export reads is what an import
//! writes. (Resources, links, plugins and their provenance are the
//! store's rows themselves.)

use super::{DocumentError, PluginEntry, SettingEntry, SettingKind, base64, check};
use crate::model::SettingScope;
use crate::store::{PluginRow, ProvenanceRow, SettingRow};

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

    /// The embedded component, decoded and checked against `sha256` and
    /// `size_bytes` (`None`: not embedded).
    pub fn component(&self) -> Result<Option<Vec<u8>>, DocumentError> {
        check::component(self)
    }
}

impl From<SettingRow> for SettingEntry {
    fn from(row: SettingRow) -> Self {
        let (scope, plan) = match row.scope {
            SettingScope::Project => (SettingKind::Project, None),
            SettingScope::Plan(name) => (SettingKind::Plan, Some(name)),
        };
        Self {
            scope,
            plan,
            resource_id: row.resource,
            priority: row.priority,
            updated_at: row.updated_at,
        }
    }
}

impl SettingEntry {
    /// The store's scope (a checked document has a plan name exactly
    /// when the scope is `plan`).
    pub fn scope(&self) -> SettingScope {
        match self.scope {
            SettingKind::Project => SettingScope::Project,
            SettingKind::Plan => SettingScope::Plan(self.plan.clone().unwrap_or_default()),
        }
    }

    pub(in crate::registry) fn row(&self) -> SettingRow {
        SettingRow {
            scope: self.scope(),
            resource: self.resource_id,
            priority: self.priority,
            updated_at: self.updated_at.clone(),
        }
    }

    /// How messages name it: `project`, `plan fast`.
    pub fn label(&self) -> String {
        match (&self.scope, &self.plan) {
            (SettingKind::Plan, Some(plan)) => format!("plan {plan}"),
            _ => "project".to_owned(),
        }
    }
}
