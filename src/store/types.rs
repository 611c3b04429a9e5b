//! `resource_types` rows ↔ declared [`TypeSpec`]s.
//!
//! A row stores what the type declares, never what it inherits, so the
//! effective type is always resolved from current rows.

use super::{Reader, StoreError, Writer, from_json, to_json};
use crate::model::{HandlerRef, ResourceKind, SandboxStrategy, TypeName, TypeSpec};
use rusqlite::{OptionalExtension, Row, params};

/// A stored type: its declared spec and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRow {
    pub spec: TypeSpec,
    pub source: String,
    pub created_at: String,
    pub updated_at: String,
}

const COLUMNS: &str = "name, description, resource_kind, sandbox_strategy, user_addable, \
    built_in, handler, inherits, args_schema_json, allowed_parent_types_json, \
    allowed_child_types_json, auto_discover_json, capabilities_json, equivalence_json, \
    replace_json, source, created_at, updated_at";

impl Reader<'_> {
    /// Every stored type, by name.
    pub fn types(&self) -> Result<Vec<TypeRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM resource_types ORDER BY name"
        ))?;
        let rows = stmt.query_map([], raw_type)?;
        rows.map(|raw| decode(raw?)).collect()
    }

    pub fn type_row(&self, name: &TypeName) -> Result<Option<TypeRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM resource_types WHERE name = ?1"
        ))?;
        stmt.query_row([name.as_str()], raw_type)
            .optional()?
            .map(decode)
            .transpose()
    }

    /// How many resources have exactly this type.
    pub fn count_resources_of_type(&self, name: &TypeName) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM resources WHERE type_name = ?1",
            [name.as_str()],
            |row| row.get(0),
        )?)
    }

    /// Types whose handler lives in `module`.
    pub fn types_using_module(&self, module: &str) -> Result<Vec<TypeName>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT name FROM resource_types WHERE substr(handler, 1, length(?1) + 1) = ?1 || ':'
             ORDER BY name",
        )?;
        let names = stmt.query_map([module], |row| row.get::<_, String>(0))?;
        names
            .map(|n| {
                let n = n?;
                TypeName::parse(&n).map_err(|e| StoreError::Corrupt {
                    what: format!("resource_types[{n}]"),
                    reason: e.to_string(),
                })
            })
            .collect()
    }
}

impl Writer<'_> {
    /// Insert `spec`, or overwrite the row of the same name (keeping its
    /// `created_at`).
    pub fn upsert_type(&self, spec: &TypeSpec, source: &str, now: &str) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(&format!(
                "INSERT INTO resource_types ({COLUMNS}, namespace)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?17, ?18)
                 ON CONFLICT (name) DO UPDATE SET
                   description = excluded.description, resource_kind = excluded.resource_kind,
                   sandbox_strategy = excluded.sandbox_strategy, user_addable = excluded.user_addable,
                   built_in = excluded.built_in, handler = excluded.handler,
                   inherits = excluded.inherits, args_schema_json = excluded.args_schema_json,
                   allowed_parent_types_json = excluded.allowed_parent_types_json,
                   allowed_child_types_json = excluded.allowed_child_types_json,
                   auto_discover_json = excluded.auto_discover_json,
                   capabilities_json = excluded.capabilities_json,
                   equivalence_json = excluded.equivalence_json,
                   replace_json = excluded.replace_json, source = excluded.source,
                   updated_at = excluded.updated_at"
            ))?
            .execute(params![
                spec.name.as_str(),
                spec.description,
                spec.resource_kind.map(ResourceKind::as_str),
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
                source,
                now,
                spec.name.namespace(),
            ])?;
        Ok(())
    }

    pub fn delete_type(&self, name: &TypeName) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "DELETE FROM resource_types WHERE name = ?1",
            [name.as_str()],
        )?;
        Ok(n == 1)
    }
}

/// A row as SQLite hands it over, before any of it is trusted.
struct RawType {
    name: String,
    description: Option<String>,
    kind: Option<String>,
    strategy: Option<String>,
    user_addable: Option<bool>,
    built_in: bool,
    handler: Option<String>,
    inherits: Option<String>,
    args: String,
    parents: String,
    children: String,
    auto: Option<String>,
    caps: String,
    equivalence: Option<String>,
    replace: String,
    source: String,
    created_at: String,
    updated_at: String,
}

fn raw_type(row: &Row<'_>) -> rusqlite::Result<RawType> {
    Ok(RawType {
        name: row.get(0)?,
        description: row.get(1)?,
        kind: row.get(2)?,
        strategy: row.get(3)?,
        user_addable: row.get(4)?,
        built_in: row.get(5)?,
        handler: row.get(6)?,
        inherits: row.get(7)?,
        args: row.get(8)?,
        parents: row.get(9)?,
        children: row.get(10)?,
        auto: row.get(11)?,
        caps: row.get(12)?,
        equivalence: row.get(13)?,
        replace: row.get(14)?,
        source: row.get(15)?,
        created_at: row.get(16)?,
        updated_at: row.get(17)?,
    })
}

fn decode(raw: RawType) -> Result<TypeRow, StoreError> {
    let what = || format!("resource_types[{}]", raw.name);
    let corrupt = |reason: String| StoreError::Corrupt {
        what: what(),
        reason,
    };
    let type_name = |text: &str| TypeName::parse(text).map_err(|e| corrupt(e.to_string()));
    let spec = TypeSpec {
        name: type_name(&raw.name)?,
        inherits: raw.inherits.as_deref().map(type_name).transpose()?,
        description: raw.description,
        resource_kind: raw
            .kind
            .map(|k| ResourceKind::parse(&k).ok_or_else(|| corrupt(format!("kind {k:?}"))))
            .transpose()?,
        sandbox_strategy: raw
            .strategy
            .map(|s| SandboxStrategy::parse(&s).ok_or_else(|| corrupt(format!("strategy {s:?}"))))
            .transpose()?,
        user_addable: raw.user_addable,
        built_in: raw.built_in,
        cli_args: from_json(&raw.args, what)?,
        parent_types: from_json(&raw.parents, what)?,
        child_types: from_json(&raw.children, what)?,
        replace: from_json(&raw.replace, what)?,
        handler: raw
            .handler
            .map(|h| HandlerRef::parse(&h).map_err(corrupt))
            .transpose()?,
        capabilities: from_json(&raw.caps, what)?,
        auto_discovery: raw.auto.map(|a| from_json(&a, what)).transpose()?,
        equivalence: raw.equivalence.map(|e| from_json(&e, what)).transpose()?,
    };
    Ok(TypeRow {
        spec,
        source: raw.source,
        created_at: raw.created_at,
        updated_at: raw.updated_at,
    })
}
