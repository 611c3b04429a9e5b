//! `Registry::graph`: which resources and links below one resource a
//! picture shows (`agents resource graph`). The tree walk is
//! `get_resource_tree`'s (depth and type filter alike); this adds what a
//! picture needs — each resource once, the children past a limit folded
//! into a count, and the virtual identities that join two or more of the
//! resources shown. Drawing it is [`crate::graph`]'s.

use crate::graph::{Folded, GraphEdge, GraphNode, GraphView};
use crate::model::{ResourceId, ResourceKey, ResourceKind, ResourceName, resource_label};
use crate::natural::natural_cmp;
use crate::registry::{Registry, RegistryError, TreeView};
use crate::store::ResourceRow;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// How much of the DAG `Registry::graph` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphOptions {
    /// Links below the resource (all when `None`).
    pub depth: Option<u32>,
    /// Keep only the paths to resources of this type (or its subtypes).
    pub type_filter: Option<String>,
    /// Children drawn per resource; the rest are one "+N more".
    pub max_children: usize,
    /// Resources drawn in one graph (identities aside); past it, what is
    /// not drawn is folded into its parent's "+N more".
    pub max_nodes: usize,
}

impl Default for GraphOptions {
    fn default() -> Self {
        Self {
            depth: None,
            type_filter: None,
            max_children: 12,
            max_nodes: 150,
        }
    }
}

/// The work of [`Registry::graph`].
pub(crate) fn graph(
    reg: &Registry,
    key: &ResourceKey,
    opts: &GraphOptions,
) -> Result<GraphView, RegistryError> {
    let tree = reg.get_resource_tree(key, opts.depth, opts.type_filter.as_deref())?;
    let picked = pick(&tree, opts);
    let ids: Vec<ResourceId> = picked.order.iter().map(|(id, _)| *id).collect();
    reg.store.read(|r| {
        let rows: HashMap<ResourceId, ResourceRow> = r
            .resources_by_ids(&ids)?
            .into_iter()
            .map(|row| (row.id, row))
            .collect();
        let mut view = GraphView {
            root: tree.resource_id,
            nodes: Vec::new(),
            edges: Vec::new(),
            folded: Vec::new(),
        };
        for (id, reached_from) in &picked.order {
            let Some(row) = rows.get(id) else { continue };
            let parent_name = reached_from.and_then(|p| rows.get(&p)?.name.as_ref());
            view.nodes
                .push(node(row, relative(row.name.as_ref(), parent_name, *id)));
        }
        let shown: HashSet<ResourceId> = view.nodes.iter().map(|n| n.resource_id).collect();
        for (parent, children) in &picked.children {
            let Some(parent_row) = rows.get(parent) else {
                continue;
            };
            let mut more = 0;
            for child in children {
                if shown.contains(child) {
                    view.edges.push(GraphEdge {
                        parent_id: *parent,
                        child_id: *child,
                        identity: parent_row.kind == ResourceKind::Virtual,
                    });
                } else {
                    more += 1;
                }
            }
            if more > 0 {
                view.folded.push(Folded {
                    parent_id: *parent,
                    more,
                });
            }
        }
        // The identities above what is shown that join two of them.
        let (_, parents) = r.links_of(&ids)?;
        let mut members: BTreeMap<ResourceId, Vec<ResourceId>> = BTreeMap::new();
        for (child, its_parents) in &parents {
            for p in its_parents.iter().filter(|p| !shown.contains(p)) {
                members.entry(*p).or_default().push(*child);
            }
        }
        members.retain(|_, m| m.len() >= 2);
        let candidates: Vec<ResourceId> = members.keys().copied().collect();
        for row in r.resources_by_ids(&candidates)? {
            if row.kind != ResourceKind::Virtual {
                continue;
            }
            for member in &members[&row.id] {
                view.edges.push(GraphEdge {
                    parent_id: row.id,
                    child_id: *member,
                    identity: true,
                });
            }
            let label = resource_label(row.name.as_ref(), row.id);
            view.nodes.push(node(&row, label));
        }
        Ok(view)
    })
}

fn node(row: &ResourceRow, label: String) -> GraphNode {
    GraphNode {
        resource_id: row.id,
        name: row.name.clone(),
        resource_type_name: row.type_name.clone(),
        classification: row.kind,
        location: row.location.clone(),
        label,
    }
}

/// `name` below `parent`'s (`branch/main` below `local/r/git`), or all of
/// it (the id when it has none).
fn relative(name: Option<&ResourceName>, parent: Option<&ResourceName>, id: ResourceId) -> String {
    if let (Some(name), Some(parent)) = (name, parent)
        && let Some(rest) = name.as_str().strip_prefix(parent.as_str())
        && let Some(rest) = rest.strip_prefix('/')
        && !rest.is_empty()
    {
        return rest.to_owned();
    }
    resource_label(name, id)
}

/// The resources a graph draws, each with the one it was reached from,
/// and every resource's children in the tree (natural order).
struct Picked {
    order: Vec<(ResourceId, Option<ResourceId>)>,
    children: Vec<(ResourceId, Vec<ResourceId>)>,
}

/// Breadth first from the root: a resource is drawn while its parent has
/// drawn fewer than `max_children` new children and the graph holds fewer
/// than `max_nodes`; a child already drawn (a shared one) costs nothing.
fn pick(tree: &TreeView, opts: &GraphOptions) -> Picked {
    // The occurrence of each resource that has its children (the tree
    // repeats a shared resource without them).
    let mut full: HashMap<ResourceId, &TreeView> = HashMap::new();
    let mut stack = vec![tree];
    while let Some(t) = stack.pop() {
        if !t.repeated {
            full.insert(t.resource_id, t);
        }
        stack.extend(&t.children);
    }
    let mut drawn: HashSet<ResourceId> = HashSet::from([tree.resource_id]);
    let mut order = vec![(tree.resource_id, None)];
    let mut children = Vec::new();
    let mut queue = VecDeque::from([tree.resource_id]);
    while let Some(id) = queue.pop_front() {
        let Some(t) = full.get(&id) else { continue };
        let mut kids: Vec<&TreeView> = t.children.iter().collect();
        kids.sort_by(|a, b| {
            let (x, y) = (
                resource_label(a.name.as_ref(), a.resource_id),
                resource_label(b.name.as_ref(), b.resource_id),
            );
            natural_cmp(&x, &y)
        });
        kids.dedup_by_key(|k| k.resource_id);
        let mut budget = opts.max_children;
        for kid in &kids {
            if drawn.contains(&kid.resource_id) || budget == 0 || order.len() >= opts.max_nodes {
                continue;
            }
            budget -= 1;
            drawn.insert(kid.resource_id);
            order.push((kid.resource_id, Some(id)));
            queue.push_back(kid.resource_id);
        }
        children.push((id, kids.iter().map(|k| k.resource_id).collect()));
    }
    Picked { order, children }
}
