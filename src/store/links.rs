//! `resource_links`: the DAG's edges and the walks over them.
//!
//! Every walk is a recursive CTE with `UNION` over node ids, never an
//! enumeration of paths: `UNION` drops a node already reached, so a walk
//! costs O(V + E) however many paths a DAG has, and the cycle check stays
//! fast on a 100,000-link graph.

use super::{Reader, StoreError, Writer};
use crate::model::{ResourceId, TypeName};
use rusqlite::{Row, params, params_from_iter};
use std::collections::BTreeMap;

/// One edge met by a tree walk.
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

fn id_at(row: &Row<'_>, i: usize) -> rusqlite::Result<ResourceId> {
    let text: String = row.get(i)?;
    ResourceId::parse(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn edge(row: &Row<'_>) -> rusqlite::Result<TreeEdge> {
    Ok(TreeEdge {
        parent: id_at(row, 0)?,
        child: id_at(row, 1)?,
    })
}

impl Reader<'_> {
    pub fn link_exists(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM resource_links WHERE parent_id = ?1 AND child_id = ?2)",
            [parent.to_string(), child.to_string()],
            |row| row.get(0),
        )?)
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

    pub fn parents_of(&self, id: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.ids(
            "SELECT parent_id FROM resource_links WHERE child_id = ?1 ORDER BY parent_id",
            id,
        )
    }

    pub fn children_of(&self, id: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.ids(
            "SELECT child_id FROM resource_links WHERE parent_id = ?1 ORDER BY child_id",
            id,
        )
    }

    fn ids(&self, sql: &str, id: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let ids = stmt.query_map([id.to_string()], |row| id_at(row, 0))?;
        Ok(ids.collect::<Result<_, _>>()?)
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
        for e in stmt.query_map([], edge)? {
            let e = e?;
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
        let edges = stmt.query_map(params![root.to_string(), max_depth], edge)?;
        Ok(edges.collect::<Result<_, _>>()?)
    }

    /// Every edge that ends in `root` or one of its descendants, and for
    /// each such node whether it was auto-discovered: what a removal needs
    /// to decide which descendants no other parent keeps.
    #[allow(clippy::type_complexity)]
    pub fn subgraph_below(
        &self,
        root: ResourceId,
    ) -> Result<(Vec<TreeEdge>, BTreeMap<ResourceId, bool>), StoreError> {
        const BELOW: &str = "WITH RECURSIVE d(id) AS (
                 VALUES (?1)
                 UNION
                 SELECT l.child_id FROM resource_links l JOIN d ON l.parent_id = d.id
             )";
        let mut stmt = self.conn.prepare_cached(&format!(
            "{BELOW} SELECT l.parent_id, l.child_id FROM resource_links l
             WHERE l.child_id IN d ORDER BY l.parent_id, l.child_id"
        ))?;
        let edges = stmt
            .query_map([root.to_string()], edge)?
            .collect::<Result<Vec<_>, _>>()?;
        let mut stmt = self.conn.prepare_cached(&format!(
            "{BELOW} SELECT resource_id, auto_discovered FROM resources WHERE resource_id IN d"
        ))?;
        let nodes = stmt
            .query_map([root.to_string()], |row| Ok((id_at(row, 0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok((edges, nodes))
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
        let links = stmt.query_map(params_from_iter(keys), |row| {
            let type_at = |i| {
                let text: String = row.get(i)?;
                TypeName::parse(&text).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })
            };
            Ok(TypedLink {
                parent: id_at(row, 0)?,
                parent_type: type_at(1)?,
                child: id_at(row, 2)?,
                child_type: type_at(3)?,
            })
        })?;
        Ok(links.collect::<Result<_, _>>()?)
    }
}

impl Writer<'_> {
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

    pub fn delete_link(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "DELETE FROM resource_links WHERE parent_id = ?1 AND child_id = ?2",
            [parent.to_string(), child.to_string()],
        )?;
        Ok(n == 1)
    }
}
