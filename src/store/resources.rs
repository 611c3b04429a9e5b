//! `resources` rows ↔ [`ResourceRow`].

use super::{Reader, StoreError, Writer, from_json, to_json};
use crate::model::{
    PropertyMap, ResourceId, ResourceKind, ResourceName, SandboxStrategy, TypeName,
};
use rusqlite::{OptionalExtension, Row, params, params_from_iter};

/// A resource as stored: everything but its links and the capabilities
/// derived from its type.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceRow {
    pub id: ResourceId,
    pub name: Option<ResourceName>,
    pub type_name: TypeName,
    pub kind: ResourceKind,
    pub location: Option<String>,
    pub description: Option<String>,
    pub read_only: bool,
    pub auto_discovered: bool,
    pub sandbox_strategy: Option<SandboxStrategy>,
    pub content_hash: Option<String>,
    pub properties: PropertyMap,
    pub created_at: String,
    pub updated_at: String,
}

/// The row a registration writes (same shape; named for readability).
pub type NewResourceRow = ResourceRow;

const COLUMNS: &str = "resource_id, namespaced_name, type_name, resource_kind, location, \
    description, read_only, auto_discovered, sandbox_strategy, content_hash, properties_json, \
    created_at, updated_at";

impl Reader<'_> {
    pub fn resource_by_id(&self, id: ResourceId) -> Result<Option<ResourceRow>, StoreError> {
        self.one_resource("resource_id", &id.to_string())
    }

    pub fn resource_by_name(&self, name: &ResourceName) -> Result<Option<ResourceRow>, StoreError> {
        self.one_resource("namespaced_name", name.as_str())
    }

    fn one_resource(&self, column: &str, key: &str) -> Result<Option<ResourceRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM resources WHERE {column} = ?1"
        ))?;
        stmt.query_row([key], raw_resource)
            .optional()?
            .map(decode)
            .transpose()
    }

    /// Resources in creation order; only those of `types` when given.
    pub fn resources(&self, types: Option<&[TypeName]>) -> Result<Vec<ResourceRow>, StoreError> {
        let sql = match types {
            None => format!("SELECT {COLUMNS} FROM resources ORDER BY resource_id"),
            Some(types) => format!(
                "SELECT {COLUMNS} FROM resources WHERE type_name IN ({}) ORDER BY resource_id",
                vec!["?"; types.len()].join(", ")
            ),
        };
        let mut stmt = self.conn.prepare(&sql)?;
        let keys = types.unwrap_or_default().iter().map(TypeName::as_str);
        let rows = stmt.query_map(params_from_iter(keys), raw_resource)?;
        rows.map(|raw| decode(raw?)).collect()
    }

    /// The rows of `ids`, in id order (missing ids are skipped).
    pub fn resources_by_ids(&self, ids: &[ResourceId]) -> Result<Vec<ResourceRow>, StoreError> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.extend(self.resource_by_id(*id)?);
        }
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    pub fn resource_count(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM resources", [], |row| row.get(0))?)
    }
}

impl Writer<'_> {
    pub fn insert_resource(&self, row: &ResourceRow) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(&format!(
                "INSERT INTO resources ({COLUMNS}, namespace)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
            ))?
            .execute(params![
                row.id.to_string(),
                row.name.as_ref().map(ResourceName::as_str),
                row.type_name.as_str(),
                row.kind.as_str(),
                row.location,
                row.description,
                row.read_only,
                row.auto_discovered,
                row.sandbox_strategy.map(SandboxStrategy::as_str),
                row.content_hash,
                to_json(&row.properties),
                row.created_at,
                row.updated_at,
                row.name.as_ref().map(ResourceName::namespace),
            ])?;
        Ok(())
    }

    /// Record what a handler computed for an existing resource.
    pub fn update_resource_findings(
        &self,
        id: ResourceId,
        properties: &PropertyMap,
        content_hash: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE resources SET properties_json = ?2, content_hash = ?3, updated_at = ?4
             WHERE resource_id = ?1",
            params![id.to_string(), to_json(properties), content_hash, now],
        )?;
        Ok(())
    }

    /// Delete resources (their links go with them: `ON DELETE CASCADE`).
    pub fn delete_resources(&self, ids: &[ResourceId]) -> Result<(), StoreError> {
        let mut stmt = self
            .conn()
            .prepare_cached("DELETE FROM resources WHERE resource_id = ?1")?;
        for id in ids {
            stmt.execute([id.to_string()])?;
        }
        Ok(())
    }
}

struct RawResource {
    id: String,
    name: Option<String>,
    type_name: String,
    kind: String,
    location: Option<String>,
    description: Option<String>,
    read_only: bool,
    auto_discovered: bool,
    strategy: Option<String>,
    content_hash: Option<String>,
    properties: String,
    created_at: String,
    updated_at: String,
}

fn raw_resource(row: &Row<'_>) -> rusqlite::Result<RawResource> {
    Ok(RawResource {
        id: row.get(0)?,
        name: row.get(1)?,
        type_name: row.get(2)?,
        kind: row.get(3)?,
        location: row.get(4)?,
        description: row.get(5)?,
        read_only: row.get(6)?,
        auto_discovered: row.get(7)?,
        strategy: row.get(8)?,
        content_hash: row.get(9)?,
        properties: row.get(10)?,
        created_at: row.get(11)?,
        updated_at: row.get(12)?,
    })
}

fn decode(raw: RawResource) -> Result<ResourceRow, StoreError> {
    let what = || format!("resources[{}]", raw.id);
    let corrupt = |reason: String| StoreError::Corrupt {
        what: what(),
        reason,
    };
    Ok(ResourceRow {
        id: ResourceId::parse(&raw.id).map_err(|e| corrupt(e.to_string()))?,
        name: raw
            .name
            .as_deref()
            .map(ResourceName::parse)
            .transpose()
            .map_err(|e| corrupt(e.to_string()))?,
        type_name: TypeName::parse(&raw.type_name).map_err(|e| corrupt(e.to_string()))?,
        kind: ResourceKind::parse(&raw.kind)
            .ok_or_else(|| corrupt(format!("kind {:?}", raw.kind)))?,
        location: raw.location,
        description: raw.description,
        read_only: raw.read_only,
        auto_discovered: raw.auto_discovered,
        sandbox_strategy: raw
            .strategy
            .map(|s| SandboxStrategy::parse(&s).ok_or_else(|| corrupt(format!("strategy {s:?}"))))
            .transpose()?,
        content_hash: raw.content_hash,
        properties: from_json(&raw.properties, what)?,
        created_at: raw.created_at,
        updated_at: raw.updated_at,
    })
}
