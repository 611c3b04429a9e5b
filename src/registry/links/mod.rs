//! DAG operations: link, unlink, children, tree.
//!
//! Whether a link may exist is [`dag::admit_link`]'s to say; this room
//! answers its questions from the store inside the write ([`StoredLinks`]);
//! the refusal is worded with the resources' labels by
//! [`link_refused`](crate::registry::link_refused), for `link_child`
//! and for every link an import adds.

pub(super) mod graph;

use crate::graph::GraphView;
use graph::GraphOptions;

use super::link_refused as refused;
use super::{LinksError, Registry, RegistryError};
use crate::dag::{self, LinkFacts, TreeNode};
use crate::model::{Link, ResolvedType, Resource, ResourceId, ResourceKey, ResourceName, TypeName};
use crate::registry::lookup::{find_row, load_resources};
use crate::registry::recording::EventOp;
use crate::registry::type_set::TypeSet;
use crate::store::{ResourceRow, Writer};
use serde::Serialize;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A resource tree for `agents resource tree`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TreeView {
    pub resource_id: ResourceId,
    pub name: Option<ResourceName>,
    pub resource_type_name: TypeName,
    pub location: Option<String>,
    pub auto_discovered: bool,
    /// Already shown elsewhere in this tree; its children are not repeated.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
    /// A local-mode placeholder: the discovery rule's pattern it stands
    /// for (nothing enumerated yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    pub children: Vec<TreeView>,
}

/// The link rules' questions, answered inside a write (`link_child`'s,
/// and an import's for every link it adds): the links and walks from the
/// store, each end's type from `types` by the end's type name — one the
/// caller knew (it has the rows), else read from the end's row once.
pub(crate) struct StoredLinks<'a, 'w> {
    pub w: &'a Writer<'w>,
    pub types: &'a TypeSet,
    pub type_names: HashMap<ResourceId, TypeName>,
}

impl StoredLinks<'_, '_> {
    fn type_of(&mut self, id: ResourceId) -> Result<Arc<ResolvedType>, RegistryError> {
        let name = match self.type_names.entry(id) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(unknown) => unknown.insert(
                self.w
                    .resource_by_id(id)?
                    .unwrap_or_else(|| unreachable!("both ends were checked or written"))
                    .type_name,
            ),
        };
        self.types.resolve(name)
    }
}

impl LinkFacts for StoredLinks<'_, '_> {
    type Error = RegistryError;

    fn linked(&mut self, parent: ResourceId, child: ResourceId) -> Result<bool, RegistryError> {
        Ok(self.w.link_exists(parent, child)?)
    }

    fn types(
        &mut self,
        parent: ResourceId,
        child: ResourceId,
    ) -> Result<(Arc<ResolvedType>, Arc<ResolvedType>), RegistryError> {
        Ok((self.type_of(parent)?, self.type_of(child)?))
    }

    fn reaches(&mut self, from: ResourceId, to: ResourceId) -> Result<bool, RegistryError> {
        Ok(self.w.reaches(from, to)?)
    }
}

/// The view of `node`; recursive, as serde is on the result: `unfold`
/// bounded the depth ([`dag::MAX_TREE_DEPTH`]).
fn view(node: &TreeNode, rows: &BTreeMap<ResourceId, ResourceRow>) -> TreeView {
    let row = &rows[&node.id];
    TreeView {
        resource_id: node.id,
        name: row.name.clone(),
        resource_type_name: row.type_name.clone(),
        location: row.location.clone(),
        auto_discovered: row.auto_discovered,
        repeated: node.repeated,
        placeholder: row
            .properties
            .get("placeholder")
            .filter(|v| v.as_str() == Some("true") && row.location.is_none())
            .and_then(|_| row.properties.get("pattern"))
            .and_then(|p| p.as_str())
            .map(str::to_owned),
        children: node.children.iter().map(|c| view(c, rows)).collect(),
    }
}

impl Registry {
    /// Link `child` below `parent` (`link_child(parent, child)`).
    pub fn link_child(
        &mut self,
        parent: &ResourceKey,
        child: &ResourceKey,
    ) -> Result<Link, RegistryError> {
        self.check_key_in_roots(parent, "a link")?;
        self.check_key_in_roots(child, "a link")?;
        let now = self.now();
        let cache = &self.types;
        let actor = self.actor.clone();
        let rec = self.recorder();
        self.store.write(|w| {
            let types = cache.get(w)?;
            let (p, c) = (find_row(w, parent)?, find_row(w, child)?);
            let type_names = [(p.id, p.type_name.clone()), (c.id, c.type_name.clone())];
            let mut facts = StoredLinks {
                w,
                types: &types,
                type_names: type_names.into(),
            };
            let link = dag::admit_link(p.id, c.id, &mut facts)?
                .map_err(|refusal| refused(refusal, p.label(), c.label()))?;
            w.insert_link(link, false, &now, Some(&actor))?;
            rec.link(w, EventOp::LinkLinked, &p, &c)?;
            Ok(Link {
                parent_id: p.id,
                child_id: c.id,
                auto_discovered: false,
                created_at: now.clone(),
            })
        })
    }

    /// Remove the link `parent` → `child` (`unlink_child(parent, child)`).
    /// Both resources stay.
    pub fn unlink_child(
        &mut self,
        parent: &ResourceKey,
        child: &ResourceKey,
    ) -> Result<(), RegistryError> {
        self.check_key_in_roots(parent, "unlinking")?;
        self.check_key_in_roots(child, "unlinking")?;
        let rec = self.recorder();
        self.store.write(|w| {
            let (p, c) = (find_row(w, parent)?, find_row(w, child)?);
            if !w.delete_link(p.id, c.id)? {
                return Err(LinksError::NotLinked {
                    parent: p.label(),
                    child: c.label(),
                }
                .into());
            }
            rec.link(w, EventOp::LinkUnlinked, &p, &c)?;
            Ok(())
        })
    }

    /// The direct children of a resource (`get_children(name_or_id)`).
    pub fn get_children(&self, key: &ResourceKey) -> Result<Vec<Resource>, RegistryError> {
        self.store.read(|r| {
            let types = self.types.get(r)?;
            let row = find_row(r, key)?;
            load_resources(r, &types, &r.children_of(row.id)?)
        })
    }

    /// The tree below a resource, `depth` links deep (all when `None`),
    /// showing only paths to resources of `type_filter` (or its subtypes)
    /// when given (`get_resource_tree(name_or_id, depth=, type_filter=)`).
    pub fn get_resource_tree(
        &self,
        key: &ResourceKey,
        depth: Option<u32>,
        type_filter: Option<&str>,
    ) -> Result<TreeView, RegistryError> {
        self.store.read(|r| {
            let types = self.types.get(r)?;
            let wanted = type_filter
                .map(|t| types.find(t).map(|ty| types.with_subtypes(&ty.name)))
                .transpose()?;
            let root = find_row(r, key)?;
            // Depth 0 is the resource alone (the walk's first step is
            // already its children). One level past the limit is enough to
            // tell a tree that is too deep.
            let limit = dag::MAX_TREE_DEPTH;
            let edges = match depth.unwrap_or(u32::MAX).min(limit + 1) {
                0 => Vec::new(),
                n => r.edges_below(root.id, n)?,
            };
            let mut ids: Vec<ResourceId> = edges.iter().map(|e| e.child).collect();
            ids.push(root.id);
            ids.sort();
            ids.dedup();
            let rows: BTreeMap<ResourceId, ResourceRow> = r
                .resources_by_ids(&ids)?
                .into_iter()
                .map(|row| (row.id, row))
                .collect();
            let keep = |id: ResourceId| {
                let row = rows.get(&id);
                (wanted.as_ref()).is_none_or(|t| row.is_some_and(|r| t.contains(&r.type_name)))
            };
            let pairs: Vec<_> = edges.iter().map(|e| (e.parent, e.child)).collect();
            let tree = dag::unfold(root.id, &pairs, &keep, limit).map_err(|e| {
                LinksError::TreeTooDeep {
                    resource: root.label(),
                    limit: e.limit,
                }
            })?;
            Ok(view(&tree, &rows))
        })
    }

    /// The graph below `key`: breadth first from it, siblings in natural
    /// order of their names, each resource once, with the identities
    /// joining at least two of the resources shown.
    pub fn graph(
        &self,
        key: &ResourceKey,
        opts: &GraphOptions,
    ) -> Result<GraphView, RegistryError> {
        graph::graph(self, key, opts)
    }
}
