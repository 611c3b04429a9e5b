//! What a tree walk shows: a DAG unfolded from a root into a
//! [`TreeNode`], kept to the nodes that matter and refused past a depth
//! ([`MAX_TREE_DEPTH`]), walked without recursing because agents write
//! the edges.

use crate::model::ResourceId;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// A tree as shown by `agents resource tree`: a DAG unfolded from a root.
///
/// Dropping one recurses once per level (a `Vec` of nodes holding
/// `Vec`s), as serialising it does: [`unfold`] never makes one deeper
/// than the limit it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    pub id: ResourceId,
    pub children: Vec<TreeNode>,
    /// This node was already unfolded elsewhere in the tree; its children
    /// are not repeated (a DAG may reach a node along several paths).
    pub repeated: bool,
}

/// How many links deep a tree view may go below its root. Links are
/// made by agents and imports, so a chain can be as deep as anyone
/// likes; a view is nested data that every reader walks recursively —
/// serde (ours and every client's), a terminal's drawing, Python's dicts.
/// 60 keeps the JSON of the deepest tree allowed (2 levels per link, and
/// the envelope of an MCP answer) under the 128 nesting levels
/// `serde_json` reads by default and the 200 of pydantic's parser (the
/// MCP Python SDK's). Registered trees are a handful of levels deep.
pub const MAX_TREE_DEPTH: u32 = 60;

/// A tree that would be deeper than the limit it was unfolded under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the tree goes deeper than {limit} links")]
pub struct TooDeep {
    pub limit: u32,
}

/// Unfold `edges` from `root` into a tree, keeping only nodes for which
/// `keep` holds or that lead to one (the root is always kept). Depth
/// first, children in the order of `edges`, a node met again shown once
/// more as `repeated` without its children. A node more than `limit`
/// links below the root refuses the whole tree ([`TooDeep`]).
///
/// Iterative, with a stack of its own: the edges are data agents write,
/// so the walk must not take a call frame per level.
pub fn unfold(
    root: ResourceId,
    edges: &[(ResourceId, ResourceId)],
    keep: &dyn Fn(ResourceId) -> bool,
    limit: u32,
) -> Result<TreeNode, TooDeep> {
    let mut children: BTreeMap<ResourceId, Vec<ResourceId>> = BTreeMap::new();
    for (p, c) in edges {
        children.entry(*p).or_default().push(*c);
    }
    let kids_of = |id: ResourceId| {
        children
            .get(&id)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
    };
    /// A node being unfolded: the children still to visit, the kept
    /// subtrees of those visited.
    struct Frame<'e> {
        id: ResourceId,
        pending: std::slice::Iter<'e, ResourceId>,
        done: Vec<TreeNode>,
    }
    let mut seen = BTreeSet::from([root]);
    let mut stack = vec![Frame {
        id: root,
        pending: kids_of(root),
        done: Vec::new(),
    }];
    loop {
        let depth = stack.len();
        let top = stack.last_mut().expect("the root's frame is popped last");
        match top.pending.next() {
            Some(&child) => {
                // `child` would sit `depth` links below the root.
                if !u32::try_from(depth).is_ok_and(|d| d <= limit) {
                    return Err(TooDeep { limit });
                }
                if !seen.insert(child) {
                    if keep(child) {
                        top.done.push(TreeNode {
                            id: child,
                            children: Vec::new(),
                            repeated: true,
                        });
                    }
                    continue;
                }
                stack.push(Frame {
                    id: child,
                    pending: kids_of(child),
                    done: Vec::new(),
                });
            }
            None => {
                let frame = stack.pop().expect("this frame is on the stack");
                let node = TreeNode {
                    id: frame.id,
                    children: frame.done,
                    repeated: false,
                };
                match stack.last_mut() {
                    None => return Ok(node),
                    // Pruned as it is finished: a subtree with no kept node
                    // is dropped.
                    Some(parent) => {
                        if keep(node.id) || !node.children.is_empty() {
                            parent.done.push(node);
                        }
                    }
                }
            }
        }
    }
}
