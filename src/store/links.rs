//! `resource_links`: the DAG's edges and the walks over them.
//!
//! Every walk is a recursive CTE with `UNION` over node ids, never an
//! enumeration of paths: `UNION` drops a node already reached, so a walk
//! costs O(V + E) however many paths a DAG has, and the cycle check stays
//! fast on a 100,000-link graph.

use super::columns::{Columns, decode_all};
use super::{Reader, StoreError, Writer};
use crate::model::{ResourceId, TypeName};
use rusqlite::{params, params_from_iter};
use std::collections::BTreeMap;

/// One edge met by a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeEdge {
    pub parent: ResourceId,
    pub child: ResourceId,
}

/// A link with both ends' types, for re-checking rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedLink {
    pub parent: ResourceId,
    pub parent_type: TypeName,
    pub child: ResourceId,
    pub child_type: TypeName,
}

/// What a removal needs to know below some resources: every edge into
/// them or their descendants, and for each of those nodes whether it was
/// auto-discovered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subgraph {
    pub edges: Vec<(ResourceId, ResourceId)>,
    pub auto_discovered: BTreeMap<ResourceId, bool>,
}

const TABLE: &str = "resource_links";

fn edge(c: &Columns<'_, '_>) -> Result<TreeEdge, StoreError> {
    Ok(TreeEdge {
        parent: c.parsed(0, ResourceId::parse)?,
        child: c.parsed(1, ResourceId::parse)?,
    })
}

/// `ids` as a JSON array of strings, for `json_each` (one bound value
/// however many ids: no statement per id, no limit on parameters).
pub(super) fn id_list(ids: &[ResourceId]) -> String {
    let mut text = String::with_capacity(ids.len() * 29 + 2);
    text.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push('"');
        text.push_str(&id.to_string());
        text.push('"');
    }
    text.push(']');
    text
}

fn id(c: &Columns<'_, '_>) -> Result<ResourceId, StoreError> {
    c.parsed(0, ResourceId::parse)
}

/// Some properties' values of one resource, as text (`None`: it has no
/// such property).
pub type PropertyValues = Vec<Option<String>>;

impl Reader<'_> {
    pub fn link_exists(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM resource_links
                 WHERE parent_id = ?1 AND child_id = ?2)",
            )?
            .query_row([parent.to_string(), child.to_string()], |row| row.get(0))?)
    }

    /// Is `to` reachable from `from` along parent → child links (or equal)?
    ///
    /// The walk goes *upward* from `to` through its ancestors (the
    /// `resource_links_child` index), not downward from `from`: resource
    /// graphs are wide and shallow — a checkout holds thousands of
    /// discovered descendants but sits under few ancestors — so the
    /// ancestor set is the small side in the common case. Either way the
    /// walk is O(V + E) at worst.
    pub fn reaches(&self, from: ResourceId, to: ResourceId) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .prepare_cached(
                "WITH RECURSIVE up(id) AS (
                 VALUES (?2)
                 UNION
                 SELECT l.parent_id FROM resource_links l JOIN up u ON l.child_id = u.id
             )
             SELECT EXISTS (SELECT 1 FROM up WHERE id = ?1)",
            )?
            .query_row([from.to_string(), to.to_string()], |row| row.get(0))?)
    }

    pub fn parents_of(&self, of: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT parent_id FROM resource_links WHERE child_id = ?1 ORDER BY parent_id",
        )?;
        decode_all(&mut stmt, [of.to_string()], TABLE, 0, id)
    }

    pub fn children_of(&self, of: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT child_id FROM resource_links WHERE parent_id = ?1 ORDER BY child_id",
        )?;
        decode_all(&mut stmt, [of.to_string()], TABLE, 0, id)
    }

    /// The links of `ids`, grouped both ways: (children by parent, parents
    /// by child), each list in id order; three statements however many ids.
    #[allow(clippy::type_complexity)]
    pub fn links_of(
        &self,
        ids: &[ResourceId],
    ) -> Result<
        (
            BTreeMap<ResourceId, Vec<ResourceId>>,
            BTreeMap<ResourceId, Vec<ResourceId>>,
        ),
        StoreError,
    > {
        let mut children: BTreeMap<_, Vec<_>> = BTreeMap::new();
        let mut parents: BTreeMap<_, Vec<_>> = BTreeMap::new();
        let list = id_list(ids);
        let mut stmt = self.conn.prepare_cached(
            "SELECT parent_id, child_id FROM resource_links
             WHERE parent_id IN (SELECT value FROM json_each(?1)) ORDER BY parent_id, child_id",
        )?;
        for e in decode_all(&mut stmt, [&list], TABLE, 0, edge)? {
            children.entry(e.parent).or_default().push(e.child);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT parent_id, child_id FROM resource_links
             WHERE child_id IN (SELECT value FROM json_each(?1)) ORDER BY child_id, parent_id",
        )?;
        for e in decode_all(&mut stmt, [&list], TABLE, 0, edge)? {
            parents.entry(e.child).or_default().push(e.parent);
        }
        Ok((children, parents))
    }

    /// Every link, grouped both ways: (children by parent, parents by child).
    #[allow(clippy::type_complexity)]
    pub fn all_links(
        &self,
    ) -> Result<
        (
            BTreeMap<ResourceId, Vec<ResourceId>>,
            BTreeMap<ResourceId, Vec<ResourceId>>,
        ),
        StoreError,
    > {
        let mut children: BTreeMap<_, Vec<_>> = BTreeMap::new();
        let mut parents: BTreeMap<_, Vec<_>> = BTreeMap::new();
        let mut stmt = self.conn.prepare_cached(
            "SELECT parent_id, child_id FROM resource_links ORDER BY parent_id, child_id",
        )?;
        for e in decode_all(&mut stmt, [], TABLE, 0, edge)? {
            children.entry(e.parent).or_default().push(e.child);
            parents.entry(e.child).or_default().push(e.parent);
        }
        for list in parents.values_mut() {
            list.sort();
        }
        Ok((children, parents))
    }

    /// The edges below `root`, at most `max_depth` links deep.
    pub fn edges_below(
        &self,
        root: ResourceId,
        max_depth: u32,
    ) -> Result<Vec<TreeEdge>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "WITH RECURSIVE walk(parent_id, child_id, depth) AS (
                 SELECT parent_id, child_id, 1 FROM resource_links WHERE parent_id = ?1
                 UNION
                 SELECT l.parent_id, l.child_id, w.depth + 1
                 FROM resource_links l JOIN walk w ON l.parent_id = w.child_id
                 WHERE w.depth < ?2
             )
             SELECT DISTINCT parent_id, child_id FROM walk ORDER BY parent_id, child_id",
        )?;
        decode_all(
            &mut stmt,
            params![root.to_string(), max_depth],
            TABLE,
            0,
            edge,
        )
    }

    /// The [`Subgraph`] below `roots` (the roots included).
    pub fn subgraph_below(&self, roots: &[ResourceId]) -> Result<Subgraph, StoreError> {
        if roots.is_empty() {
            return Ok(Subgraph::default());
        }
        // The roots as one JSON value: any number of them (a statement
        // with one parameter per root would stop at SQLite's limit).
        // Links from a virtual identity to its members are derived, not
        // ownership: an identity never keeps a member (nor takes one).
        const BELOW: &str = "WITH RECURSIVE d(id) AS (
                 SELECT value FROM json_each(?1)
                 UNION
                 SELECT l.child_id FROM resource_links l JOIN d ON l.parent_id = d.id
                  WHERE l.derived = 0
             )";
        let roots = id_list(roots);
        let mut stmt = self.conn.prepare_cached(&format!(
            "{BELOW} SELECT l.parent_id, l.child_id FROM resource_links l
             WHERE l.child_id IN d AND l.derived = 0 ORDER BY l.parent_id, l.child_id"
        ))?;
        let edges = decode_all(&mut stmt, [&roots], TABLE, 0, edge)?
            .into_iter()
            .map(|e| (e.parent, e.child))
            .collect();
        let mut stmt = self.conn.prepare_cached(&format!(
            "{BELOW} SELECT resource_id, auto_discovered FROM resources WHERE resource_id IN d"
        ))?;
        let auto_discovered = decode_all(&mut stmt, [&roots], "resources", 0, |c| {
            Ok((c.parsed(0, ResourceId::parse)?, c.get(1)?))
        })?
        .into_iter()
        .collect();
        Ok(Subgraph {
            edges,
            auto_discovered,
        })
    }

    /// Whether anything keeps `child`: a parent by a link that is not
    /// derived (an identity never keeps its members).
    pub fn is_kept(&self, child: ResourceId) -> Result<bool, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM resource_links WHERE child_id = ?1 AND derived = 0)",
        )?;
        Ok(stmt.query_row([child.to_string()], |row| row.get(0))?)
    }

    /// Every derived link from a resource of type `identity_type`:
    /// (identity, member), in that order.
    pub fn derived_links_of_type(
        &self,
        identity_type: &TypeName,
    ) -> Result<Vec<(ResourceId, ResourceId)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT l.parent_id, l.child_id FROM resource_links l
             JOIN resources r ON r.resource_id = l.parent_id
             WHERE r.type_name = ?1 AND l.derived = 1
             ORDER BY l.parent_id, l.child_id",
        )?;
        Ok(
            decode_all(&mut stmt, [identity_type.as_str()], TABLE, 0, edge)?
                .into_iter()
                .map(|e| (e.parent, e.child))
                .collect(),
        )
    }

    /// The resources equivalent to `member`: the other members of every
    /// identity it belongs to.
    pub fn equivalents(&self, member: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT child_id FROM resource_links
             WHERE derived = 1 AND child_id != ?1 AND parent_id IN
               (SELECT parent_id FROM resource_links WHERE child_id = ?1 AND derived = 1)
             ORDER BY child_id",
        )?;
        decode_all(&mut stmt, [member.to_string()], TABLE, 0, |c| {
            c.parsed(0, ResourceId::parse)
        })
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
        let paths: Vec<String> = keys
            .iter()
            .map(|k| format!("$.\"{}\"", k.replace('"', "")))
            .collect();
        let extracts: Vec<String> = (0..keys.len())
            .map(|i| format!("json_extract(properties_json, ?{})", i + 2))
            .collect();
        let sql = format!(
            "SELECT resource_id, {} FROM resources
             WHERE type_name IN (SELECT value FROM json_each(?1))
             ORDER BY resource_id",
            extracts.join(", "),
        );
        let type_list =
            serde_json::to_string(&types.iter().map(TypeName::as_str).collect::<Vec<_>>())
                .expect("names serialise");
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let params = std::iter::once(type_list).chain(paths);
        decode_all(&mut stmt, params_from_iter(params), "resources", 0, |c| {
            let id = c.parsed(0, ResourceId::parse)?;
            let values = (0..keys.len())
                .map(|i| {
                    let v: rusqlite::types::Value = c.get(i + 1)?;
                    Ok(match v {
                        rusqlite::types::Value::Null => None,
                        rusqlite::types::Value::Text(t) => Some(t),
                        rusqlite::types::Value::Integer(n) => Some(n.to_string()),
                        rusqlite::types::Value::Real(x) => Some(x.to_string()),
                        other => Some(format!("{other:?}")),
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok((id, values))
        })
    }

    /// The types of the resources written (inserted, deleted, properties
    /// changed) on this connection since [`Writer::forget_written_types`].
    pub fn written_types(&self) -> Result<std::collections::BTreeSet<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT type_name FROM temp.written_types")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Links with an end whose type is one of `types`.
    pub fn links_touching_types(&self, types: &[TypeName]) -> Result<Vec<TypedLink>, StoreError> {
        let marks = vec!["?"; types.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT l.parent_id, p.type_name, l.child_id, c.type_name
             FROM resource_links l
             JOIN resources p ON p.resource_id = l.parent_id
             JOIN resources c ON c.resource_id = l.child_id
             WHERE p.type_name IN ({marks}) OR c.type_name IN ({marks})"
        ))?;
        let keys = types.iter().chain(types).map(TypeName::as_str);
        decode_all(&mut stmt, params_from_iter(keys), TABLE, 0, |c| {
            Ok(TypedLink {
                parent: c.parsed(0, ResourceId::parse)?,
                parent_type: c.parsed(1, TypeName::parse)?,
                child: c.parsed(2, ResourceId::parse)?,
                child_type: c.parsed(3, TypeName::parse)?,
            })
        })
    }
}

impl Writer<'_> {
    /// Forget the written types (the identities are in line with them).
    pub fn forget_written_types(&self) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached("DELETE FROM temp.written_types")?
            .execute([])?;
        Ok(())
    }

    pub fn insert_link(
        &self,
        parent: ResourceId,
        child: ResourceId,
        auto_discovered: bool,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(
                "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                parent.to_string(),
                child.to_string(),
                auto_discovered,
                now
            ])?;
        Ok(())
    }

    /// Link identity `parent` to its member `child` (a derived link).
    pub fn insert_derived_link(
        &self,
        parent: ResourceId,
        child: ResourceId,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn()
            .prepare_cached(
                "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at, derived)
                 VALUES (?1, ?2, 1, ?3, 1)",
            )?
            .execute(params![parent.to_string(), child.to_string(), now])?;
        Ok(())
    }

    pub fn delete_link(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .prepare_cached("DELETE FROM resource_links WHERE parent_id = ?1 AND child_id = ?2")?
            .execute([parent.to_string(), child.to_string()])?;
        Ok(n == 1)
    }
}
