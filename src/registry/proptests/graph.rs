//! The reference: the three types' link rule, restated, and a graph of
//! plain sets with the documented removal rule.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Node,
    Sub,
    Box,
}

impl Kind {
    pub(super) fn type_name(self) -> &'static str {
        match self {
            Kind::Node => "g/node",
            Kind::Sub => "g/sub",
            Kind::Box => "g/box",
        }
    }

    /// `parent` → `child` as `dag::check_link_types` decides it for these
    /// three types: allowed when neither side lists anything, or when a
    /// list names the other side's type or an ancestor of it.
    pub(super) fn may_link(parent: Kind, child: Kind) -> bool {
        let chain = |k: Kind| match k {
            Kind::Sub => vec![Kind::Sub, Kind::Node],
            other => vec![other],
        };
        let child_types = |k: Kind| {
            if k == Kind::Box {
                vec![Kind::Sub]
            } else {
                vec![]
            }
        };
        let parent_types = |k: Kind| {
            if k == Kind::Sub {
                vec![Kind::Node]
            } else {
                vec![]
            }
        };
        let (allows, wants) = (child_types(parent), parent_types(child));
        (allows.is_empty() && wants.is_empty())
            || allows.iter().any(|t| chain(child).contains(t))
            || wants.iter().any(|t| chain(parent).contains(t))
    }
}

/// The reference graph.
#[derive(Debug, Default)]
pub(super) struct Graph {
    /// Every resource, in creation order, with its type and whether it was
    /// auto-discovered.
    pub nodes: Vec<(ResourceId, Kind, bool)>,
    pub edges: BTreeSet<(ResourceId, ResourceId)>,
    /// Resources removed: an operation naming one must be refused.
    pub gone: Vec<ResourceId>,
}

impl Graph {
    pub(super) fn kind(&self, id: ResourceId) -> Kind {
        self.nodes.iter().find(|n| n.0 == id).unwrap().1
    }

    pub(super) fn auto(&self, id: ResourceId) -> bool {
        self.nodes.iter().find(|n| n.0 == id).unwrap().2
    }

    pub(super) fn pick(&self, index: &Index) -> Option<ResourceId> {
        (!self.nodes.is_empty()).then(|| self.nodes[index.index(self.nodes.len())].0)
    }

    pub(super) fn parents(&self, id: ResourceId) -> impl Iterator<Item = ResourceId> + '_ {
        self.edges.iter().filter(move |e| e.1 == id).map(|e| e.0)
    }

    /// Is `to` reachable from `from` (or equal)?
    pub(super) fn reaches(&self, from: ResourceId, to: ResourceId) -> bool {
        let mut seen = BTreeSet::from([from]);
        let mut todo = vec![from];
        while let Some(at) = todo.pop() {
            if at == to {
                return true;
            }
            for &(p, c) in &self.edges {
                if p == at && seen.insert(c) {
                    todo.push(c);
                }
            }
        }
        false
    }

    /// What removing `root` takes, by the documented rule: (what goes,
    /// the hand-registered resources that lose a link).
    pub(super) fn removal(&self, root: ResourceId) -> (BTreeSet<ResourceId>, BTreeSet<ResourceId>) {
        let mut going = BTreeSet::from([root]);
        loop {
            let more: Vec<ResourceId> = self
                .nodes
                .iter()
                .filter(|(id, _, auto)| *auto && !going.contains(id))
                .filter(|(id, _, _)| {
                    let mut parents = self.parents(*id).peekable();
                    parents.peek().is_some() && parents.all(|p| going.contains(&p))
                })
                .map(|n| n.0)
                .collect();
            if more.is_empty() {
                break;
            }
            going.extend(more);
        }
        let unlinked = self
            .edges
            .iter()
            .filter(|(p, c)| going.contains(p) && !going.contains(c) && !self.auto(*c))
            .map(|e| e.1)
            .collect();
        (going, unlinked)
    }

    pub(super) fn remove(&mut self, going: &BTreeSet<ResourceId>) {
        self.nodes.retain(|n| !going.contains(&n.0));
        self.gone.extend(going);
        self.edges
            .retain(|(p, c)| !going.contains(p) && !going.contains(c));
    }
}
