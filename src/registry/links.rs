//! DAG operations: link, unlink, children, tree.

use super::lookup::{find_row, load_resources};
use super::{Registry, RegistryError};
use crate::dag::{self, TreeNode};
use crate::model::{Link, Resource, ResourceId, ResourceKey, ResourceName, TypeName};
use crate::store::ResourceRow;
use serde::Serialize;
use std::collections::BTreeMap;

/// A resource tree for `agents resource tree`.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

impl Registry {
    /// Link `child` below `parent` (`link_child(parent, child)`).
    pub fn link_child(
        &mut self,
        parent: &ResourceKey,
        child: &ResourceKey,
    ) -> Result<Link, RegistryError> {
        let now = self.now();
        let cache = &self.types;
        self.store.write(|w| {
            let types = cache.get(w)?;
            let (p, c) = (find_row(w, parent)?, find_row(w, child)?);
            let (pl, cl) = (p.label(), c.label());
            if p.id == c.id {
                return Err(RegistryError::SelfLink { resource: pl });
            }
            if w.link_exists(p.id, c.id)? {
                return Err(RegistryError::DuplicateLink {
                    parent: pl,
                    child: cl,
                });
            }
            let (pt, ct) = (types.resolve(&p.type_name)?, types.resolve(&c.type_name)?);
            if let Err(rule) = dag::check_link_types(&pt, &ct) {
                return Err(RegistryError::IncompatibleLink {
                    parent: pl,
                    child: cl,
                    rule: Box::new(rule),
                });
            }
            if w.reaches(c.id, p.id)? {
                return Err(RegistryError::Cycle {
                    parent: pl,
                    child: cl,
                });
            }
            w.insert_link(p.id, c.id, false, &now)?;
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
        self.store.write(|w| {
            let (p, c) = (find_row(w, parent)?, find_row(w, child)?);
            if !w.delete_link(p.id, c.id)? {
                return Err(RegistryError::NotLinked {
                    parent: p.label(),
                    child: c.label(),
                });
            }
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
            // already its children).
            let edges = match depth.unwrap_or(u32::MAX) {
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
            let keep = |id: ResourceId| match &wanted {
                None => true,
                Some(types) => rows
                    .get(&id)
                    .is_some_and(|row| types.contains(&row.type_name)),
            };
            let pairs: Vec<_> = edges.iter().map(|e| (e.parent, e.child)).collect();
            let tree = dag::unfold(root.id, &pairs, &keep);
            Ok(view(&tree, &rows))
        })
    }
}

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
