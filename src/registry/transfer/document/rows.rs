//! Between the document's items and the store's rows: one field to one
//! column, nothing computed, so what an export reads is what an import
//! writes.

use super::{
    ClassEntry, DocumentError, LinkEntry, PluginEntry, ProvenanceEntry, ResourceEntry,
    SettingEntry, SettingKind, base64, check,
};
use crate::model::SettingScope;
use crate::store::{LinkRow, PluginRow, ProvenanceRow, ResourceRow, SettingRow};

impl PluginEntry {
    pub(in crate::registry) fn from_row(
        row: PluginRow,
        provenance: Option<ProvenanceRow>,
        component: Option<&[u8]>,
    ) -> Self {
        Self {
            provenance: provenance.map(|p| ProvenanceEntry {
                registry: p.registry,
                repository: p.repository,
                tag: p.tag,
                manifest_digest: p.manifest_digest,
                layer_digest: p.layer_digest,
                contract: p.contract,
                signer: p.signer,
                unsigned_allowed: p.unsigned_allowed,
                installed_at: p.installed_at,
            }),
            module: row.module,
            version: row.version,
            sha256: row.sha256,
            classes: row
                .classes
                .into_iter()
                .map(|(name, description)| ClassEntry { name, description })
                .collect(),
            size_bytes: row.size_bytes,
            source: row.source,
            added_at: row.added_at,
            component_base64: component.map(base64::encode),
        }
    }

    pub(in crate::registry) fn row(&self) -> PluginRow {
        PluginRow {
            module: self.module.clone(),
            version: self.version.clone(),
            sha256: self.sha256.clone(),
            classes: self
                .classes
                .iter()
                .map(|c| (c.name.clone(), c.description.clone()))
                .collect(),
            size_bytes: self.size_bytes,
            source: self.source.clone(),
            added_at: self.added_at.clone(),
        }
    }

    /// The provenance row to write with it, if it was installed.
    pub(in crate::registry) fn provenance_row(&self) -> Option<ProvenanceRow> {
        self.provenance.as_ref().map(|p| ProvenanceRow {
            module: self.module.clone(),
            registry: p.registry.clone(),
            repository: p.repository.clone(),
            tag: p.tag.clone(),
            manifest_digest: p.manifest_digest.clone(),
            layer_digest: p.layer_digest.clone(),
            contract: p.contract.clone(),
            signer: p.signer.clone(),
            unsigned_allowed: p.unsigned_allowed,
            installed_at: p.installed_at.clone(),
        })
    }

    /// The embedded component, decoded and checked against `sha256` and
    /// `size_bytes` (`None`: not embedded).
    pub fn component(&self) -> Result<Option<Vec<u8>>, DocumentError> {
        check::component(self)
    }
}

impl From<ResourceRow> for ResourceEntry {
    fn from(row: ResourceRow) -> Self {
        Self {
            resource_id: row.id,
            name: row.name,
            resource_type_name: row.type_name,
            classification: row.kind,
            location: row.location,
            description: row.description,
            read_only: row.read_only,
            auto_discovered: row.auto_discovered,
            sandbox_strategy: row.sandbox_strategy,
            content_hash: row.content_hash,
            properties: row.properties,
            created_at: row.created_at,
            updated_at: row.updated_at,
            discovered_at: row.discovered_at,
            stale: row.stale,
            registered_by: row.registered_by,
        }
    }
}

impl From<&ResourceEntry> for ResourceRow {
    fn from(e: &ResourceEntry) -> Self {
        Self {
            id: e.resource_id,
            name: e.name.clone(),
            type_name: e.resource_type_name.clone(),
            kind: e.classification,
            location: e.location.clone(),
            description: e.description.clone(),
            read_only: e.read_only,
            auto_discovered: e.auto_discovered,
            sandbox_strategy: e.sandbox_strategy,
            content_hash: e.content_hash.clone(),
            properties: e.properties.clone(),
            created_at: e.created_at.clone(),
            updated_at: e.updated_at.clone(),
            discovered_at: e.discovered_at.clone(),
            stale: e.stale.clone(),
            registered_by: e.registered_by.clone(),
        }
    }
}

impl From<LinkRow> for LinkEntry {
    fn from(row: LinkRow) -> Self {
        Self {
            parent_id: row.parent,
            child_id: row.child,
            auto_discovered: row.auto_discovered,
            derived: row.derived,
            created_at: row.created_at,
            linked_by: row.linked_by,
        }
    }
}

impl From<&LinkEntry> for LinkRow {
    fn from(e: &LinkEntry) -> Self {
        Self {
            parent: e.parent_id,
            child: e.child_id,
            auto_discovered: e.auto_discovered,
            derived: e.derived,
            created_at: e.created_at.clone(),
            linked_by: e.linked_by.clone(),
        }
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
