//! The DAG as a picture: the one home of what `agents resource graph`
//! draws — a [`GraphView`] (resources as nodes, links as edges, the
//! children past a limit folded into "+N more") — and of its three
//! drawings: Graphviz dot ([`dot`]), Mermaid ([`mermaid`]) and SVG laid
//! out in process with `layout-rs` ([`svg`]).
//!
//! Pure functions over a view the registry built (`Registry::graph`).
//! Every label reaches a drawing through the escaping of its format
//! here: names and locations come from repositories, and a `"`, `<`, `&`,
//! a newline or a control character must stay text in every one of them.
//!
//! The picture's conventions, the same in all three: a physical
//! resource is a box, a virtual identity an ellipse joined to its members
//! by dashed lines without arrow heads, a folded remainder a grey "+N
//! more" box; each type has a fill colour, named in a legend.

pub mod dot;
pub mod mermaid;
pub mod svg;

use crate::model::{ResourceId, ResourceKind, ResourceName, TypeName};
use crate::text::escape_line;
use serde::Serialize;
use std::collections::HashMap;

/// What `resource graph` draws (its `-o json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphView {
    /// The resource the graph was drawn from.
    pub root: ResourceId,
    /// Each resource once, however many parents it has in the graph: the
    /// root first, then breadth first, siblings in natural order, then
    /// the identities joining members.
    pub nodes: Vec<GraphNode>,
    /// Parent → child links between the nodes.
    pub edges: Vec<GraphEdge>,
    /// Children not drawn, per parent (past the limit of children per
    /// resource or of resources in one graph).
    pub folded: Vec<Folded>,
}

/// One resource in a graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphNode {
    pub resource_id: ResourceId,
    pub name: Option<ResourceName>,
    pub resource_type_name: TypeName,
    pub classification: ResourceKind,
    pub location: Option<String>,
    /// What the picture writes: the part of the name below the parent it
    /// was reached from (`branch/main` below `…/git`); the whole name for
    /// the root and identities, the id for a resource without a name.
    pub label: String,
}

/// A link drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphEdge {
    pub parent_id: ResourceId,
    pub child_id: ResourceId,
    /// The parent is a virtual identity and the child one of its members.
    pub identity: bool,
}

/// The children of one resource that are not drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Folded {
    pub parent_id: ResourceId,
    pub more: usize,
}

/// Fill colours of types, light enough for black text; a graph with more
/// types than colours reuses them (shape and legend still tell).
const PALETTE: [&str; 12] = [
    "#cfe2f3", "#d9ead3", "#fff2cc", "#f4cccc", "#d9d2e9", "#fce5cd", "#d0e0e3", "#ead1dc",
    "#c9daf8", "#e6b8af", "#b6d7a8", "#ffe599",
];

/// The fill of a "+N more" box.
const FOLDED_FILL: &str = "#eeeeee";

/// A type in a picture's legend.
struct LegendEntry<'v> {
    type_name: &'v TypeName,
    kind: ResourceKind,
    fill: &'static str,
}

/// What every drawing needs: the node index of each resource, the legend
/// (types in name order, each with its colour) and each node's entry in it.
struct Layout<'v> {
    view: &'v GraphView,
    index: HashMap<ResourceId, usize>,
    legend: Vec<LegendEntry<'v>>,
    /// `legend` index of each node.
    colour_of: Vec<usize>,
}

impl<'v> Layout<'v> {
    fn new(view: &'v GraphView) -> Self {
        let mut types: Vec<(&TypeName, ResourceKind)> = view
            .nodes
            .iter()
            .map(|n| (&n.resource_type_name, n.classification))
            .collect();
        types.sort_by(|a, b| a.0.cmp(b.0));
        types.dedup_by(|a, b| a.0 == b.0);
        let legend: Vec<LegendEntry<'_>> = types
            .into_iter()
            .enumerate()
            .map(|(i, (type_name, kind))| LegendEntry {
                type_name,
                kind,
                fill: PALETTE[i % PALETTE.len()],
            })
            .collect();
        let colour_of = view
            .nodes
            .iter()
            .map(|n| {
                legend
                    .iter()
                    .position(|e| *e.type_name == n.resource_type_name)
                    .unwrap_or(0)
            })
            .collect();
        let index = view
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.resource_id, i))
            .collect();
        Self {
            view,
            index,
            legend,
            colour_of,
        }
    }

    /// The edges whose both ends are nodes, as node indexes.
    fn edges(&self) -> impl Iterator<Item = (usize, usize, &'v GraphEdge)> + '_ {
        self.view.edges.iter().filter_map(|e| {
            Some((
                *self.index.get(&e.parent_id)?,
                *self.index.get(&e.child_id)?,
                e,
            ))
        })
    }

    /// Each folded remainder with its parent's node index.
    fn folded(&self) -> impl Iterator<Item = (usize, &'v Folded)> + '_ {
        self.view
            .folded
            .iter()
            .filter_map(|f| Some((*self.index.get(&f.parent_id)?, f)))
    }
}

/// Text as a picture shows it, before the format's own escaping: control
/// characters and bidirectional overrides written out (`\u{1b}`, `\n`),
/// as on a terminal, and the two characters XML cannot hold at all
/// (U+FFFE, U+FFFF) too.
fn shown(text: &str) -> String {
    let line = escape_line(text);
    if !line.contains(['\u{fffe}', '\u{ffff}']) {
        return line.into_owned();
    }
    line.chars()
        .map(|c| match c {
            '\u{fffe}' | '\u{ffff}' => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// "+N more".
fn more_label(f: &Folded) -> String {
    format!("+{} more", f.more)
}

#[cfg(test)]
mod tests;
