//! What virtual identities need from the store (`registry::equivalence`):
//! the derived links from identities to their members, resources by
//! property values, and the types a transaction wrote (on SQLite noted
//! by the resource inserter and by temporary triggers, see
//! `sqlite::record_written_types`; on PostgreSQL by permanent triggers
//! keyed by the server process).

use super::db::{Arg, Cell, Dialect, args};
use super::links::{TABLE, edge};
use super::{Reader, StoreError, Writer};
use crate::model::{ResourceId, TypeName};

/// Some properties' values of one resource, as text (`None`: it has no
/// such property).
pub type PropertyValues = Vec<Option<String>>;

impl Reader<'_> {
    /// Every derived link from a resource of type `identity_type`:
    /// (identity, member), in that order.
    pub fn derived_links_of_type(
        &self,
        identity_type: &TypeName,
    ) -> Result<Vec<(ResourceId, ResourceId)>, StoreError> {
        Ok(self
            .tx
            .rows(
                "SELECT l.parent_id, l.child_id FROM resource_links l
                 JOIN resources r ON r.resource_id = l.parent_id
                 WHERE r.type_name = ?1 AND l.derived = 1
                 ORDER BY l.parent_id, l.child_id",
                args![identity_type.as_str()],
                TABLE,
                0,
                edge,
            )?
            .into_iter()
            .map(|e| (e.parent, e.child))
            .collect())
    }

    /// The resources equivalent to `member`: the other members of every
    /// identity it belongs to.
    pub fn equivalents(&self, member: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.tx.rows(
            "SELECT DISTINCT child_id FROM resource_links
             WHERE derived = 1 AND child_id != ?1 AND parent_id IN
               (SELECT parent_id FROM resource_links WHERE child_id = ?1 AND derived = 1)
             ORDER BY child_id",
            args![member.to_string()],
            TABLE,
            0,
            |c| c.parsed(0, ResourceId::parse),
        )
    }

    /// Resources of `types`, with the values (as text) of their properties
    /// `keys`, in `keys`' order (`None` where a resource has no such
    /// property) — the candidates of an equivalence, read without decoding
    /// whole rows.
    pub fn resources_with_properties(
        &self,
        types: &[TypeName],
        keys: &[String],
    ) -> Result<Vec<(ResourceId, PropertyValues)>, StoreError> {
        if types.is_empty() || keys.is_empty() {
            return Ok(Vec::new());
        }
        // A property as text: SQLite's `json_extract` takes a path (and
        // answers numbers as numbers), PostgreSQL's `->>` a key.
        let (paths, extract): (Vec<String>, &str) = match self.tx.dialect() {
            Dialect::Sqlite => (
                keys.iter()
                    .map(|k| format!("$.\"{}\"", k.replace('"', "")))
                    .collect(),
                "json_extract(properties_json, ?{})",
            ),
            Dialect::Postgres => (
                keys.to_vec(),
                "(CAST(properties_json AS jsonb) ->> CAST(?{} AS TEXT))",
            ),
        };
        let extracts: Vec<String> = (0..keys.len())
            .map(|i| extract.replace("{}", &(i + 2).to_string()))
            .collect();
        let sql = format!(
            "SELECT resource_id, {} FROM resources
             WHERE type_name IN ({})
             ORDER BY resource_id",
            extracts.join(", "),
            self.tx.json_set(1),
        );
        let type_list =
            serde_json::to_string(&types.iter().map(TypeName::as_str).collect::<Vec<_>>())
                .expect("names serialise");
        let params: Vec<Arg<'_>> = std::iter::once(type_list)
            .chain(paths)
            .map(Arg::from)
            .collect();
        self.tx.rows(&sql, &params, "resources", 0, |c| {
            let id = c.parsed(0, ResourceId::parse)?;
            let values = (0..keys.len())
                .map(|i| {
                    Ok(match c.get::<Cell>(i + 1)? {
                        Cell::Null => None,
                        Cell::Text(t) => Some(t),
                        Cell::Int(n) => Some(n.to_string()),
                        Cell::Real(x) => Some(x.to_string()),
                        Cell::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok((id, values))
        })
    }

    /// The types of the resources written (inserted, deleted, properties
    /// changed) on this connection since [`Writer::forget_written_types`].
    pub fn written_types(&self) -> Result<std::collections::BTreeSet<String>, StoreError> {
        let sql = match self.tx.dialect() {
            Dialect::Sqlite => "SELECT type_name FROM written_types",
            Dialect::Postgres => {
                "SELECT type_name FROM written_types WHERE backend_pid = pg_backend_pid()"
            }
        };
        Ok(self
            .tx
            .rows(sql, args![], "written_types", 0, |c| c.get::<String>(0))?
            .into_iter()
            .collect())
    }
}

impl Writer<'_> {
    /// Forget the written types (the identities are in line with them).
    pub fn forget_written_types(&self) -> Result<(), StoreError> {
        let sql = match self.tx.dialect() {
            Dialect::Sqlite => "DELETE FROM written_types",
            Dialect::Postgres => "DELETE FROM written_types WHERE backend_pid = pg_backend_pid()",
        };
        self.tx.execute(sql, args![])?;
        Ok(())
    }

    /// Note that a resource of `type_name` was inserted (SQLite; on
    /// PostgreSQL a permanent trigger notes it, see
    /// `sqlite::record_written_types`).
    pub(super) fn note_inserted_type(&self, type_name: &TypeName) -> Result<(), StoreError> {
        if self.tx.dialect() == Dialect::Sqlite {
            self.tx.execute(
                "INSERT OR IGNORE INTO written_types VALUES (?1)",
                args![type_name.as_str()],
            )?;
        }
        Ok(())
    }

    /// Link identity `parent` to its member `child` (a derived link).
    pub fn insert_derived_link(
        &self,
        parent: ResourceId,
        child: ResourceId,
        now: &str,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at, derived)
             VALUES (?1, ?2, 1, ?3, 1)",
            args![parent.to_string(), child.to_string(), now],
        )?;
        Ok(())
    }
}
