//! `resource_links`: the DAG's edges and the walks over them.
//!
//! Every walk is a recursive CTE with `UNION` over node ids, never an
//! enumeration of paths: `UNION` drops a node already reached, so a walk
//! costs O(V + E) however many paths a DAG has, and the cycle check stays
//! fast on a 100,000-link graph.

use super::columns::Columns;
use super::db::{Arg, args, id_list};
use super::{Reader, StoreError, Writer};
use crate::dag::AdmittedLink;
use crate::model::{Actor, ResourceId, TypeName};
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

pub(super) const TABLE: &str = "resource_links";

pub(super) fn edge(c: &Columns<'_>) -> Result<TreeEdge, StoreError> {
    Ok(TreeEdge {
        parent: c.parsed(0, ResourceId::parse)?,
        child: c.parsed(1, ResourceId::parse)?,
    })
}

fn id(c: &Columns<'_>) -> Result<ResourceId, StoreError> {
    c.parsed(0, ResourceId::parse)
}

impl Reader<'_> {
    pub fn link_exists(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        self.tx.value(
            "SELECT EXISTS (SELECT 1 FROM resource_links
             WHERE parent_id = ?1 AND child_id = ?2)",
            args![parent.to_string(), child.to_string()],
        )
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
        let sql = format!(
            "WITH RECURSIVE up(id) AS (
                 SELECT {}
                 UNION
                 SELECT l.parent_id FROM resource_links l JOIN up u ON l.child_id = u.id
             )
             SELECT EXISTS (SELECT 1 FROM up WHERE id = ?1)",
            self.tx.text_arg(2)
        );
        self.tx.value(&sql, args![from.to_string(), to.to_string()])
    }

    pub fn parents_of(&self, of: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.tx.rows(
            "SELECT parent_id FROM resource_links WHERE child_id = ?1 ORDER BY parent_id",
            args![of.to_string()],
            TABLE,
            0,
            id,
        )
    }

    pub fn children_of(&self, of: ResourceId) -> Result<Vec<ResourceId>, StoreError> {
        self.tx.rows(
            "SELECT child_id FROM resource_links WHERE parent_id = ?1 ORDER BY child_id",
            args![of.to_string()],
            TABLE,
            0,
            id,
        )
    }

    /// The children of each of `ids` that exists, in id order (an id
    /// absent from the answer is no resource any more): one statement
    /// however many ids.
    pub fn children_of_each(
        &self,
        ids: &[ResourceId],
    ) -> Result<BTreeMap<ResourceId, Vec<ResourceId>>, StoreError> {
        let set = self.tx.json_set(1);
        let sql = format!(
            "SELECT r.resource_id, l.child_id FROM resources r
             LEFT JOIN resource_links l ON l.parent_id = r.resource_id
             WHERE r.resource_id IN ({set}) ORDER BY r.resource_id, l.child_id"
        );
        let pairs = self.tx.rows(&sql, args![&id_list(ids)], TABLE, 0, |c| {
            Ok((
                c.parsed(0, ResourceId::parse)?,
                c.parsed_opt(1, ResourceId::parse)?,
            ))
        })?;
        let mut children: BTreeMap<ResourceId, Vec<ResourceId>> = BTreeMap::new();
        for (parent, child) in pairs {
            let list = children.entry(parent).or_default();
            list.extend(child);
        }
        for list in children.values_mut() {
            list.sort();
        }
        Ok(children)
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
        let set = self.tx.json_set(1);
        let sql = format!(
            "SELECT parent_id, child_id FROM resource_links
             WHERE parent_id IN ({set}) ORDER BY parent_id, child_id"
        );
        for e in self.tx.rows(&sql, args![&list], TABLE, 0, edge)? {
            children.entry(e.parent).or_default().push(e.child);
        }
        let sql = format!(
            "SELECT parent_id, child_id FROM resource_links
             WHERE child_id IN ({set}) ORDER BY child_id, parent_id"
        );
        for e in self.tx.rows(&sql, args![&list], TABLE, 0, edge)? {
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
        for e in self.tx.rows(
            "SELECT parent_id, child_id FROM resource_links ORDER BY parent_id, child_id",
            args![],
            TABLE,
            0,
            edge,
        )? {
            children.entry(e.parent).or_default().push(e.child);
            parents.entry(e.child).or_default().push(e.parent);
        }
        for list in parents.values_mut() {
            list.sort();
        }
        Ok((children, parents))
    }

    /// The edges below `root`, at most `max_depth` links deep: every link
    /// out of a resource fewer than `max_depth` links below `root`, in
    /// (parent, child) order.
    ///
    /// Breadth first, one statement per level, each resource's links read
    /// once: a recursive CTE that carries the depth cannot drop a resource
    /// met again at another depth, so it enumerates (link, depth) pairs —
    /// up to links × depth rows on a DAG with shortcuts. Callers keep
    /// `max_depth` small (a tree view's bound); a walk to any depth is
    /// [`Reader::edges_reachable`].
    pub fn edges_below(
        &self,
        root: ResourceId,
        max_depth: u32,
    ) -> Result<Vec<TreeEdge>, StoreError> {
        let sql = format!(
            "SELECT parent_id, child_id FROM resource_links WHERE parent_id IN ({})",
            self.tx.json_set(1)
        );
        let mut seen = std::collections::HashSet::from([root]);
        let mut level = vec![root];
        let mut edges = Vec::new();
        for _ in 0..max_depth {
            if level.is_empty() {
                break;
            }
            let found = self
                .tx
                .rows(&sql, args![&id_list(&level)], TABLE, 0, edge)?;
            level = found
                .iter()
                .filter(|e| seen.insert(e.child))
                .map(|e| e.child)
                .collect();
            edges.extend(found);
        }
        edges.sort_by_key(|e| (e.parent, e.child));
        Ok(edges)
    }

    /// Every link out of `roots` and out of every resource below them,
    /// derived ones included, whatever the depth: one statement, a walk
    /// over resource ids (`UNION`), O(V + E).
    pub fn edges_reachable(&self, roots: &[ResourceId]) -> Result<Vec<TreeEdge>, StoreError> {
        if roots.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "WITH RECURSIVE d(id) AS (
                 {}
                 UNION
                 SELECT l.child_id FROM resource_links l JOIN d ON l.parent_id = d.id
             )
             SELECT parent_id, child_id FROM resource_links
              WHERE parent_id IN (SELECT id FROM d)
              ORDER BY parent_id, child_id",
            self.tx.json_set(1)
        );
        self.tx.rows(&sql, args![&id_list(roots)], TABLE, 0, edge)
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
        let below = format!(
            "WITH RECURSIVE d(id) AS (
                 {}
                 UNION
                 SELECT l.child_id FROM resource_links l JOIN d ON l.parent_id = d.id
                  WHERE l.derived = 0
             )",
            self.tx.json_set(1)
        );
        let roots = id_list(roots);
        let sql = format!(
            "{below} SELECT l.parent_id, l.child_id FROM resource_links l
             WHERE l.child_id IN (SELECT id FROM d) AND l.derived = 0
             ORDER BY l.parent_id, l.child_id"
        );
        let edges = self
            .tx
            .rows(&sql, args![&roots], TABLE, 0, edge)?
            .into_iter()
            .map(|e| (e.parent, e.child))
            .collect();
        let sql = format!(
            "{below} SELECT resource_id, auto_discovered FROM resources
             WHERE resource_id IN (SELECT id FROM d)"
        );
        let auto_discovered = self
            .tx
            .rows(&sql, args![&roots], "resources", 0, |c| {
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
        self.tx.value(
            "SELECT EXISTS (SELECT 1 FROM resource_links WHERE child_id = ?1 AND derived = 0)",
            args![child.to_string()],
        )
    }

    /// Links with an end whose type is one of `types`.
    pub fn links_touching_types(&self, types: &[TypeName]) -> Result<Vec<TypedLink>, StoreError> {
        let marks = vec!["?"; types.len()].join(", ");
        let sql = format!(
            "SELECT l.parent_id, p.type_name, l.child_id, c.type_name
             FROM resource_links l
             JOIN resources p ON p.resource_id = l.parent_id
             JOIN resources c ON c.resource_id = l.child_id
             WHERE p.type_name IN ({marks}) OR c.type_name IN ({marks})"
        );
        let keys: Vec<Arg<'_>> = types
            .iter()
            .chain(types)
            .map(|t| Arg::from(t.as_str()))
            .collect();
        self.tx.rows(&sql, &keys, TABLE, 0, |c| {
            Ok(TypedLink {
                parent: c.parsed(0, ResourceId::parse)?,
                parent_type: c.parsed(1, TypeName::parse)?,
                child: c.parsed(2, ResourceId::parse)?,
                child_type: c.parsed(3, TypeName::parse)?,
            })
        })
    }
}

/// One end of a link as provenance needs it: the resource at the other
/// end, whether discovery made the link, and who made it by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkEnd {
    pub other: ResourceId,
    pub auto_discovered: bool,
    pub linked_by: Option<Actor>,
}

impl Reader<'_> {
    /// The links below `of` (`down`) or above it, with their provenance.
    pub fn link_ends(&self, of: ResourceId, down: bool) -> Result<Vec<LinkEnd>, StoreError> {
        let sql = if down {
            "SELECT child_id, auto_discovered, linked_face, linked_by FROM resource_links
              WHERE parent_id = ?1 ORDER BY child_id"
        } else {
            "SELECT parent_id, auto_discovered, linked_face, linked_by FROM resource_links
              WHERE child_id = ?1 ORDER BY parent_id"
        };
        self.tx.rows(sql, args![of.to_string()], TABLE, 0, |c| {
            Ok(LinkEnd {
                other: c.parsed(0, ResourceId::parse)?,
                auto_discovered: c.get(1)?,
                linked_by: c.actor(2)?,
            })
        })
    }
}

impl Writer<'_> {
    /// A link that passed the DAG's rules (only `dag` makes one); `by` is
    /// who made it by hand (`None`: discovery did).
    pub fn insert_link(
        &self,
        link: AdmittedLink,
        auto_discovered: bool,
        now: &str,
        by: Option<&Actor>,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at,
               linked_face, linked_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            args![
                link.parent().to_string(),
                link.child().to_string(),
                auto_discovered,
                now,
                by.map(|a| a.face.as_str()),
                by.map(|a| a.name.as_str())
            ],
        )?;
        Ok(())
    }

    pub fn delete_link(&self, parent: ResourceId, child: ResourceId) -> Result<bool, StoreError> {
        let n = self.tx.execute(
            "DELETE FROM resource_links WHERE parent_id = ?1 AND child_id = ?2",
            args![parent.to_string(), child.to_string()],
        )?;
        Ok(n == 1)
    }
}
