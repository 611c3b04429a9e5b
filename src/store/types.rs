//! `resource_types` rows ↔ declared [`TypeSpec`]s.
//!
//! A row stores what the type declares, never what it inherits, so the
//! effective type is always resolved from current rows.

use super::columns::Columns;
use super::db::args;
use super::{Reader, StoreError, Writer, to_json};
use crate::model::{HandlerRef, ModuleName, ResourceKind, SandboxStrategy, TypeName, TypeSpec};

/// A stored type: its declared spec and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRow {
    pub spec: TypeSpec,
    pub origin: TypeOrigin,
}

/// Where a stored type came from and when it was written: what a type
/// view shows beside the type, and (flattened) the fields a registry
/// document's type item has beside its name and spec, under the same
/// names, so each is declared once.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TypeOrigin {
    /// `builtin`, the file it was added from, or the plugin that carried it.
    pub source: String,
    pub created_at: String,
    pub updated_at: String,
}

/// The columns of a [`TypeRow`], in [`decode`]'s order.
macro_rules! columns {
    () => {
        "name, description, resource_kind, sandbox_strategy, user_addable, built_in, handler, \
         inherits, args_schema_json, allowed_parent_types_json, allowed_child_types_json, \
         auto_discover_json, capabilities_json, equivalence_json, replace_json, source, \
         created_at, updated_at"
    };
}

const TABLE: &str = "resource_types";

impl Reader<'_> {
    /// Every stored type, by name.
    pub fn types(&self) -> Result<Vec<TypeRow>, StoreError> {
        self.tx.rows(
            concat!("SELECT ", columns!(), " FROM resource_types ORDER BY name"),
            args![],
            TABLE,
            0,
            decode,
        )
    }

    pub fn type_row(&self, name: &TypeName) -> Result<Option<TypeRow>, StoreError> {
        self.tx.row(
            concat!(
                "SELECT ",
                columns!(),
                " FROM resource_types WHERE name = ?1"
            ),
            args![name.as_str()],
            TABLE,
            0,
            decode,
        )
    }

    /// A number that changes whenever any type row is written or deleted
    /// (kept by triggers, see `0003_types_generation.sql`): what a cached
    /// set of resolved types is checked against.
    pub fn types_generation(&self) -> Result<i64, StoreError> {
        self.tx
            .value("SELECT generation FROM types_generation", args![])
    }

    /// How many resources have exactly this type.
    pub fn count_resources_of_type(&self, name: &TypeName) -> Result<i64, StoreError> {
        self.tx.value(
            "SELECT count(*) FROM resources WHERE type_name = ?1",
            args![name.as_str()],
        )
    }

    /// Types whose handler lives in `module`.
    pub fn types_using_module(&self, module: &ModuleName) -> Result<Vec<TypeName>, StoreError> {
        self.tx.rows(
            "SELECT name FROM resource_types
              WHERE substr(handler, 1, length(CAST(?1 AS TEXT)) + 1) = CAST(?1 AS TEXT) || ':'
             ORDER BY name",
            args![module.as_str()],
            TABLE,
            0,
            |c| c.parsed(0, TypeName::parse),
        )
    }
}

impl Writer<'_> {
    /// Insert `spec`, or overwrite the row of the same name (keeping its
    /// `created_at`).
    pub fn upsert_type(&self, spec: &TypeSpec, source: &str, now: &str) -> Result<(), StoreError> {
        self.tx.execute(
            concat!(
                "INSERT INTO resource_types (",
                columns!(),
                ", namespace)
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
            ),
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
                source,
                now,
                spec.name.namespace(),
            ],
        )?;
        Ok(())
    }

    pub fn delete_type(&self, name: &TypeName) -> Result<bool, StoreError> {
        let n = self.tx.execute(
            "DELETE FROM resource_types WHERE name = ?1",
            args![name.as_str()],
        )?;
        Ok(n == 1)
    }
}

fn decode(c: &Columns<'_>) -> Result<TypeRow, StoreError> {
    let kind = |k: &str| ResourceKind::parse(k).ok_or(format!("kind {k:?}"));
    let strategy = |s: &str| SandboxStrategy::parse(s).ok_or(format!("strategy {s:?}"));
    let spec = TypeSpec {
        name: c.parsed(0, TypeName::parse)?,
        description: c.get(1)?,
        kind: c.parsed_opt(2, kind)?,
        sandbox_strategy: c.parsed_opt(3, strategy)?,
        user_addable: c.get(4)?,
        built_in: c.get(5)?,
        handler: c.parsed_opt(6, HandlerRef::parse)?,
        inherits: c.parsed_opt(7, TypeName::parse)?,
        cli_args: c.json(8)?,
        parent_types: c.json(9)?,
        child_types: c.json(10)?,
        auto_discovery: c.json_opt(11)?,
        capabilities: c.json(12)?,
        equivalence: c.json_opt(13)?,
        replace: c.json(14)?,
    };
    let origin = TypeOrigin {
        source: c.get(15)?,
        created_at: c.get(16)?,
        updated_at: c.get(17)?,
    };
    Ok(TypeRow { spec, origin })
}
