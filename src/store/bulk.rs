//! Whole-registry reads and verbatim inserts: what `agents registry
//! export`, `import` and `info` need and no other operation does.
//!
//! An export reads every row as stored (links with both flags and their
//! `created_at`, the schema version the file records); an import writes
//! rows back exactly as they were — the ids, flags and timestamps the
//! document carries, never "now" — so that export → import round-trips.
//! The rules an imported row must meet are the registry's; these
//! statements only store what passed them.

use super::columns::Columns;
use super::db::{Tx, args};
use super::pg;
use super::sqlite::user_version;
use super::{Reader, StoreError, TypeRow, Writer, to_json};
use crate::model::{Actor, ResourceId, ResourceKind, SandboxStrategy, TypeName};

/// One `resource_links` row, every column; also a registry document's
/// link item (`registry::transfer::document`), both flags as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRow {
    #[serde(rename = "parent_id")]
    pub parent: ResourceId,
    #[serde(rename = "child_id")]
    pub child: ResourceId,
    /// Made by discovery (or by the registry), not by `link-child`.
    pub auto_discovered: bool,
    /// From a virtual identity to one of its members (see
    /// `registry::equivalence`).
    pub derived: bool,
    pub created_at: String,
    /// Who made it by hand, through which face (`None`: discovery, or
    /// before schema 10; absent in a document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linked_by: Option<Actor>,
}

/// How many rows of each kind the registry holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub builtin_types: i64,
    pub custom_types: i64,
    pub resources: i64,
    pub links: i64,
    pub plugins: i64,
    pub sandboxes: i64,
    pub environment_settings: i64,
}

const LINKS: &str = "resource_links";

fn link(c: &Columns<'_>) -> Result<LinkRow, StoreError> {
    Ok(LinkRow {
        parent: c.parsed(0, ResourceId::parse)?,
        child: c.parsed(1, ResourceId::parse)?,
        auto_discovered: c.get(2)?,
        derived: c.get(3)?,
        created_at: c.get(4)?,
        linked_by: c.actor(5)?,
    })
}

impl Reader<'_> {
    /// The schema version the database records (SQLite: `PRAGMA
    /// user_version`; PostgreSQL: the migrations table), which
    /// [`super::SCHEMA_VERSION`] is compared with.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        match self.tx {
            Tx::Sqlite(conn) => Ok(user_version(conn)?),
            Tx::Postgres(pg) => pg::version(pg, false),
        }
    }

    /// What the registry's tables take on a PostgreSQL server (their
    /// rows, indexes and TOAST, in the registry's schema); `None` on
    /// SQLite, whose size is its file's.
    pub fn server_bytes(&self) -> Result<Option<i64>, StoreError> {
        match self.tx {
            Tx::Sqlite(_) => Ok(None),
            Tx::Postgres(_) => Ok(Some(self.tx.value(
                "SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT)
                 FROM pg_catalog.pg_class c
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind = 'r'",
                args![],
            )?)),
        }
    }

    /// Every link, by parent then child.
    pub fn link_rows(&self) -> Result<Vec<LinkRow>, StoreError> {
        self.tx.rows(
            "SELECT parent_id, child_id, auto_discovered, derived, created_at, linked_face, linked_by
             FROM resource_links ORDER BY parent_id, child_id",
            args![],
            LINKS,
            0,
            link,
        )
    }

    /// The link `parent` → `child`, if there is one.
    pub fn link_row(
        &self,
        parent: ResourceId,
        child: ResourceId,
    ) -> Result<Option<LinkRow>, StoreError> {
        self.tx.row(
            "SELECT parent_id, child_id, auto_discovered, derived, created_at, linked_face, linked_by
             FROM resource_links WHERE parent_id = ?1 AND child_id = ?2",
            args![parent.to_string(), child.to_string()],
            LINKS,
            0,
            link,
        )
    }

    /// Row counts, in one statement (one snapshot).
    pub fn counts(&self) -> Result<Counts, StoreError> {
        self.tx
            .row(
                "SELECT (SELECT count(*) FROM resource_types WHERE built_in = 1),
                    (SELECT count(*) FROM resource_types WHERE built_in = 0),
                    (SELECT count(*) FROM resources),
                    (SELECT count(*) FROM resource_links),
                    (SELECT count(*) FROM plugins),
                    (SELECT count(*) FROM sandboxes),
                    (SELECT count(*) FROM environment_settings)",
                args![],
                "counts",
                usize::MAX,
                |row| {
                    Ok(Counts {
                        builtin_types: row.get(0)?,
                        custom_types: row.get(1)?,
                        resources: row.get(2)?,
                        links: row.get(3)?,
                        plugins: row.get(4)?,
                        sandboxes: row.get(5)?,
                        environment_settings: row.get(6)?,
                    })
                },
            )
            .map(Option::unwrap_or_default)
    }
}

impl Writer<'_> {
    /// Insert a type row as it is, timestamps included (a type of that
    /// name must not exist: the primary key refuses it).
    pub fn insert_type_row(&self, row: &TypeRow) -> Result<(), StoreError> {
        let spec = &row.spec;
        self.tx.execute(
            "INSERT INTO resource_types (name, description, resource_kind, sandbox_strategy,
                   user_addable, built_in, handler, inherits, args_schema_json,
                   allowed_parent_types_json, allowed_child_types_json, auto_discover_json,
                   capabilities_json, equivalence_json, replace_json, source, created_at,
                   updated_at, namespace)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                   ?17, ?18, ?19)",
            args![
                spec.name.as_str(),
                &spec.description,
                spec.kind.map(ResourceKind::as_str),
                spec.sandbox_strategy.map(SandboxStrategy::as_str),
                spec.user_addable,
                spec.built_in,
                spec.handler.as_ref().map(ToString::to_string),
                spec.inherits.as_ref().map(TypeName::as_str),
                to_json(&spec.cli_args),
                to_json(&spec.parent_types),
                to_json(&spec.child_types),
                spec.auto_discovery.as_ref().map(to_json),
                to_json(&spec.capabilities),
                spec.equivalence.as_ref().map(to_json),
                to_json(&spec.replace),
                &row.origin.source,
                &row.origin.created_at,
                &row.origin.updated_at,
                spec.name.namespace(),
            ],
        )?;
        Ok(())
    }

    /// Insert a link as it is, both flags and `created_at` included.
    pub fn insert_link_row(&self, row: &LinkRow) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO resource_links (parent_id, child_id, auto_discovered, derived,
               created_at, linked_face, linked_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            args![
                row.parent.to_string(),
                row.child.to_string(),
                row.auto_discovered,
                row.derived,
                &row.created_at,
                row.linked_by.as_ref().map(|a| a.face.as_str()),
                row.linked_by.as_ref().map(|a| a.name.as_str()),
            ],
        )?;
        Ok(())
    }
}
