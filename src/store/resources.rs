//! `resources` rows ↔ [`ResourceRow`].

use super::columns::Columns;
use super::db::{Arg, args, id_list};
use super::{Reader, StoreError, Writer, to_json};
use crate::model::{
    Actor, PropertyMap, ResourceId, ResourceKind, ResourceName, SandboxStrategy, TypeName,
    resource_label,
};

/// A resource as stored: everything but its links and the capabilities
/// derived from its type. It is also a registry document's resource item
/// (`registry::transfer::document`), every column under the resource
/// view's names, so what an export reads is what an import writes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceRow {
    #[serde(rename = "resource_id")]
    pub id: ResourceId,
    pub name: Option<ResourceName>,
    #[serde(rename = "resource_type_name")]
    pub type_name: TypeName,
    #[serde(rename = "classification")]
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
    /// When its handler last listed its children (`None`: never).
    pub discovered_at: Option<String>,
    /// Why the last refresh could not bring it up to date.
    pub stale: Option<String>,
    /// Who registered it, through which face (`None`: before schema 10;
    /// absent in a document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<Actor>,
}

impl ResourceRow {
    /// A resource made at `now` with nothing else said of it: no
    /// location, description, strategy, hash or properties, neither
    /// read-only nor discovered, registered by no one. Each maker
    /// (registration, discovery, placeholders, identities) sets what it
    /// knows over it, so the columns it leaves alone are written once.
    pub fn new(
        id: ResourceId,
        name: Option<ResourceName>,
        type_name: TypeName,
        kind: ResourceKind,
        now: &str,
    ) -> Self {
        Self {
            id,
            name,
            type_name,
            kind,
            location: None,
            description: None,
            read_only: false,
            auto_discovered: false,
            sandbox_strategy: None,
            content_hash: None,
            properties: Default::default(),
            created_at: now.to_owned(),
            updated_at: now.to_owned(),
            discovered_at: None,
            stale: None,
            registered_by: None,
        }
    }

    /// An auto-discovered resource with no location, as tests write one
    /// below a parent the way discovery does.
    #[cfg(test)]
    pub(crate) fn discovered_for_test(id: ResourceId, name: &str, type_name: &str) -> Self {
        let name = Some(ResourceName::parse(name).unwrap());
        let type_name = TypeName::parse(type_name).unwrap();
        Self {
            auto_discovered: true,
            ..Self::new(id, name, type_name, ResourceKind::Physical, "t")
        }
    }

    /// How messages refer to it: its name, else its id.
    pub fn label(&self) -> String {
        resource_label(self.name.as_ref(), self.id)
    }
}

/// The columns of a [`ResourceRow`], in [`decode`]'s order (a macro so
/// that every statement is one static string).
macro_rules! columns {
    () => {
        "resource_id, namespaced_name, type_name, resource_kind, location, description, \
         read_only, auto_discovered, sandbox_strategy, content_hash, properties_json, \
         created_at, updated_at, discovered_at, stale_reason, registered_face, registered_by"
    };
}

const TABLE: &str = "resources";

impl Reader<'_> {
    /// The names whose confusable skeleton is `skeleton`.
    pub fn names_with_skeleton(&self, skeleton: &str) -> Result<Vec<ResourceName>, StoreError> {
        self.tx.rows(
            "SELECT namespaced_name FROM resources WHERE name_skeleton = ?1
              ORDER BY namespaced_name",
            args![skeleton],
            TABLE,
            0,
            |c| c.parsed(0, ResourceName::parse),
        )
    }

    pub fn resource_by_id(&self, id: ResourceId) -> Result<Option<ResourceRow>, StoreError> {
        self.tx.row(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resources WHERE resource_id = ?1"
            ),
            args![id.to_string()],
            TABLE,
            0,
            decode,
        )
    }

    pub fn resource_by_name(&self, name: &ResourceName) -> Result<Option<ResourceRow>, StoreError> {
        self.tx.row(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resources WHERE namespaced_name = ?1"
            ),
            args![name.as_str()],
            TABLE,
            0,
            decode,
        )
    }

    /// Resources in creation order; only those of `types` when given.
    pub fn resources(&self, types: Option<&[TypeName]>) -> Result<Vec<ResourceRow>, StoreError> {
        let sql = match types {
            None => concat!(
                "SELECT ",
                columns!(),
                " FROM resources ORDER BY resource_id"
            )
            .to_owned(),
            Some(types) => format!(
                concat!(
                    "SELECT ",
                    columns!(),
                    " FROM resources WHERE type_name IN ({}) ORDER BY resource_id"
                ),
                vec!["?"; types.len()].join(", ")
            ),
        };
        let keys: Vec<Arg<'_>> = types
            .unwrap_or_default()
            .iter()
            .map(|t| Arg::from(t.as_str()))
            .collect();
        self.tx.rows(&sql, &keys, TABLE, 0, decode)
    }

    /// The rows of `parent`'s children, in id order: one statement.
    pub fn children_rows(&self, parent: ResourceId) -> Result<Vec<ResourceRow>, StoreError> {
        self.tx.rows(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resources WHERE resource_id IN \
                 (SELECT child_id FROM resource_links WHERE parent_id = ?1) ORDER BY resource_id"
            ),
            args![parent.to_string()],
            TABLE,
            0,
            decode,
        )
    }

    /// The resources someone registered (not discovered), in creation
    /// order.
    pub fn registered_resources(&self) -> Result<Vec<ResourceRow>, StoreError> {
        self.tx.rows(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resources WHERE auto_discovered = 0 ORDER BY resource_id"
            ),
            args![],
            TABLE,
            0,
            decode,
        )
    }

    /// A page of the ids of the resources someone registered (not
    /// discovered): at most `limit` after `after` (none: from the first),
    /// in id order. A keyset page: the primary key's index finds where it
    /// starts, however deep in the list, and nothing before it is read.
    pub fn registered_ids_after(
        &self,
        after: Option<ResourceId>,
        limit: usize,
    ) -> Result<Vec<ResourceId>, StoreError> {
        let after = after.map_or_else(String::new, |id| id.to_string());
        self.tx.rows(
            "SELECT resource_id FROM resources WHERE auto_discovered = 0 AND resource_id > ?1 \
             ORDER BY resource_id LIMIT ?2",
            args![after, i64::try_from(limit).unwrap_or(i64::MAX)],
            TABLE,
            0,
            |c| c.parsed(0, ResourceId::parse),
        )
    }

    /// The ids of `parent`'s children whose handler listed their own
    /// children before (`discovered_at` set), in id order.
    pub fn explored_children(&self, parent: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.tx.rows(
            "SELECT resource_id FROM resources WHERE discovered_at IS NOT NULL AND resource_id IN \
             (SELECT child_id FROM resource_links WHERE parent_id = ?1) ORDER BY resource_id",
            args![parent.to_string()],
            TABLE,
            0,
            |c| c.parsed(0, ResourceId::parse),
        )
    }

    /// The rows of `ids`, in id order (missing ids are skipped): one
    /// statement however many ids.
    pub fn resources_by_ids(&self, ids: &[ResourceId]) -> Result<Vec<ResourceRow>, StoreError> {
        let sql = format!(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resources WHERE resource_id IN ({}) ORDER BY resource_id"
            ),
            self.tx.json_set(1)
        );
        self.tx.rows(&sql, args![id_list(ids)], TABLE, 0, decode)
    }
}

impl Writer<'_> {
    /// Insert a new resource (see [`ResourceInserter::insert`]).
    pub fn insert_resource(&self, row: &ResourceRow) -> Result<(), StoreError> {
        self.resource_inserter()?.insert(row)
    }

    /// An inserter for many new resources: one prepared statement held
    /// for a whole batch instead of a cache lookup per row.
    pub fn resource_inserter(&self) -> Result<ResourceInserter<'_>, StoreError> {
        Ok(ResourceInserter {
            writer: self,
            noted: Vec::new(),
        })
    }

    /// Record what a handler computed for an existing resource.
    pub fn update_resource_findings(
        &self,
        id: ResourceId,
        properties: &PropertyMap,
        content_hash: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE resources SET properties_json = ?2, content_hash = ?3, updated_at = ?4
             WHERE resource_id = ?1",
            args![id.to_string(), to_json(properties), content_hash, now],
        )?;
        Ok(())
    }

    /// Record a resource's fresh content hash.
    pub fn update_resource_hash(
        &self,
        id: ResourceId,
        content_hash: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE resources SET content_hash = ?2, updated_at = ?3 WHERE resource_id = ?1",
            args![id.to_string(), content_hash, now],
        )?;
        Ok(())
    }

    /// Record that `id`'s handler listed its children now.
    pub fn mark_discovered(&self, id: ResourceId, now: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE resources SET discovered_at = ?2 WHERE resource_id = ?1",
            args![id.to_string(), now],
        )?;
        Ok(())
    }

    /// Mark `id` stale with `reason`, or current again (`None`).
    pub fn set_stale(
        &self,
        id: ResourceId,
        reason: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE resources SET stale_reason = ?2, updated_at = ?3 WHERE resource_id = ?1",
            args![id.to_string(), reason, now],
        )?;
        Ok(())
    }

    /// Delete resources (their links go with them: `ON DELETE CASCADE`).
    pub fn delete_resources(&self, ids: &[ResourceId]) -> Result<(), StoreError> {
        for id in ids {
            self.tx.execute(
                "DELETE FROM resources WHERE resource_id = ?1",
                args![id.to_string()],
            )?;
        }
        Ok(())
    }
}

/// Inserts new resources inside a write transaction (the statement is
/// prepared once per connection and reused for every row).
pub struct ResourceInserter<'w> {
    writer: &'w Writer<'w>,
    /// The types this inserter has noted as written (a batch holds few).
    noted: Vec<TypeName>,
}

impl std::fmt::Debug for ResourceInserter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceInserter").finish_non_exhaustive()
    }
}

impl ResourceInserter<'_> {
    /// Insert `row`. A name that is taken is refused as
    /// [`StoreError::NameTaken`] by the `UNIQUE` constraint itself (its
    /// conflict clause), inside
    /// the caller's transaction, so two writers can never both take it.
    pub fn insert(&mut self, row: &ResourceRow) -> Result<(), StoreError> {
        let mut id = [0; ulid::ULID_LEN];
        let inserted = self.writer.tx.execute(
            concat!(
                "INSERT INTO resources (",
                columns!(),
                ", namespace, machine_id, name_skeleton) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, \
                 ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20) \
                 ON CONFLICT (namespaced_name) DO NOTHING"
            ),
            args![
                row.id.ulid().array_to_str(&mut id) as &str,
                row.name.as_ref().map(ResourceName::as_str),
                row.type_name.as_str(),
                row.kind.as_str(),
                &row.location,
                &row.description,
                row.read_only,
                row.auto_discovered,
                row.sandbox_strategy.map(SandboxStrategy::as_str),
                &row.content_hash,
                to_json(&row.properties),
                &row.created_at,
                &row.updated_at,
                &row.discovered_at,
                &row.stale,
                row.registered_by.as_ref().map(|a| a.face.as_str()),
                row.registered_by.as_ref().map(|a| a.name.as_str()),
                row.name.as_ref().map(ResourceName::namespace),
                self.writer.machine.filter(|_| row.location.is_some()),
                row.name.as_ref().map(ResourceName::skeleton),
            ],
        );
        // `ON CONFLICT … DO NOTHING` rather than catching the error: on
        // PostgreSQL a failed statement aborts the whole transaction, and
        // the caller may want to read on (who has the name).
        match (inserted?, &row.name) {
            (0, Some(name)) => Err(StoreError::NameTaken { name: name.clone() }),
            (0, None) => Ok(()),
            _ => {
                if !self.noted.contains(&row.type_name) {
                    self.writer.note_inserted_type(&row.type_name)?;
                    self.noted.push(row.type_name.clone());
                }
                Ok(())
            }
        }
    }
}

fn decode(c: &Columns<'_>) -> Result<ResourceRow, StoreError> {
    Ok(ResourceRow {
        id: c.parsed(0, ResourceId::parse)?,
        name: c.parsed_opt(1, ResourceName::parse)?,
        type_name: c.parsed(2, TypeName::parse)?,
        kind: c.parsed(3, |k| ResourceKind::parse(k).ok_or(format!("kind {k:?}")))?,
        location: c.get(4)?,
        description: c.get(5)?,
        read_only: c.get(6)?,
        auto_discovered: c.get(7)?,
        sandbox_strategy: c.parsed_opt(8, |s| {
            SandboxStrategy::parse(s).ok_or(format!("strategy {s:?}"))
        })?,
        content_hash: c.get(9)?,
        properties: c.json(10)?,
        created_at: c.get(11)?,
        updated_at: c.get(12)?,
        discovered_at: c.get(13)?,
        stale: c.get(14)?,
        registered_by: c.actor(15)?,
    })
}
