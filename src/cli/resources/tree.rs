//! `agents resource tree` for people: each line the part of the name below
//! its parent (`branch/main` under `git`), the type, and the location only
//! where it says something (not the parent's location, nor the parent's
//! location plus the name) — `--locations` shows every one, `--full-names`
//! the whole names and every location. Siblings in natural order. On a
//! terminal each line is cut to its width, never wrapped. `-o json` is
//! the library's `TreeView`, unchanged.

use crate::cli::output::{self, emit};
use crate::cli::{Context, Outcome};
use resource_host::model::{ResourceKey, resource_label};
use resource_host::natural::names_cmp;
use resource_host::registry::TreeView;
use resource_host::text::escape_line;
use std::io::IsTerminal;
use std::path::Path;

/// What a tree's lines say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct TreeStyle {
    /// Every resource's whole name (and every location), as before.
    pub full_names: bool,
    /// Every location, also the ones its parent's tell.
    pub locations: bool,
    /// Cut each line to this many characters.
    pub width: Option<usize>,
}

/// `resource tree [--depth N] [--type T] [--locations] [--full-names] KEY`.
pub(super) fn run(
    ctx: &Context,
    key: &ResourceKey,
    depth: Option<u32>,
    type_name: Option<String>,
    mut style: TreeStyle,
) -> Outcome {
    let tree = ctx
        .open()?
        .get_resource_tree(key, depth, type_name.as_deref())?;
    if std::io::stdout().is_terminal() {
        style.width = terminal_size::terminal_size().map(|(w, _)| usize::from(w.0));
    }
    emit(ctx.format, &tree, || draw(&tree, style))
}

/// The tree as lines, the root's bold on a terminal.
pub(super) fn draw(tree: &TreeView, style: TreeStyle) -> String {
    let root = cut(&node_line(tree, None, style), style.width);
    let mut out = output::bold(&root) + "\n";
    walk(tree, "", style, &mut out);
    out
}

fn walk(node: &TreeView, prefix: &str, style: TreeStyle, out: &mut String) {
    let mut children: Vec<&TreeView> = node.children.iter().collect();
    children.sort_by(|a, b| {
        names_cmp(
            a.name.as_ref().map(|n| n.as_str()),
            b.name.as_ref().map(|n| n.as_str()),
        )
        .then_with(|| a.resource_id.cmp(&b.resource_id))
    });
    let count = children.len();
    for (i, child) in children.into_iter().enumerate() {
        let last = i + 1 == count;
        let line = format!(
            "{prefix}{}{}",
            if last { "└── " } else { "├── " },
            node_line(child, Some(node), style)
        );
        out.push_str(&cut(&line, style.width));
        out.push('\n');
        let deeper = format!("{prefix}{}", if last { "    " } else { "│   " });
        walk(child, &deeper, style, out);
    }
}

/// One resource's line, below `parent` (`None`: the root).
fn node_line(t: &TreeView, parent: Option<&TreeView>, style: TreeStyle) -> String {
    let full = resource_label(t.name.as_ref(), t.resource_id);
    let name = match (
        style.full_names,
        parent.and_then(|p| p.name.as_ref()),
        &t.name,
    ) {
        (false, Some(p), Some(n)) => n
            .as_str()
            .strip_prefix(p.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|rest| !rest.is_empty())
            .map_or(full.clone(), str::to_owned),
        _ => full,
    };
    let mut line = format!("{} ({})", escape_line(&name), t.resource_type_name);
    if let Some(loc) = &t.location {
        let told = parent
            .and_then(|p| p.location.as_deref())
            .is_some_and(|p| told_by_parent(loc, p, &name));
        if style.full_names || style.locations || !told {
            line.push_str(&format!("  {}", escape_line(loc)));
        }
    }
    if let Some(pattern) = &t.placeholder {
        line.push_str(&format!(
            "  (placeholder for {}: not enumerated yet)",
            escape_line(pattern)
        ));
    }
    if t.repeated {
        line.push_str("  (shown above)");
    }
    line
}

/// Does the parent's location tell where the child is: the same place (a
/// branch in its repository's `.git`), or the parent's location plus the
/// child's relative name (`README.md` in its directory)?
fn told_by_parent(location: &str, parent: &str, relative: &str) -> bool {
    location == parent || Path::new(parent).join(relative) == Path::new(location)
}

/// `line` cut to `width` characters, the cut marked `…`.
fn cut(line: &str, width: Option<usize>) -> String {
    match width {
        Some(w) if w > 1 && line.chars().count() > w => {
            let mut kept: String = line.chars().take(w - 1).collect();
            kept.push('…');
            kept
        }
        _ => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{cut, told_by_parent};

    #[test]
    fn a_location_the_parent_tells_is_left_out() {
        assert!(told_by_parent("/r/README.md", "/r", "README.md"));
        assert!(told_by_parent("/r/.git", "/r/.git", "branch/main"));
        assert!(told_by_parent("/r/src/a.py", "/r", "src/a.py"));
        assert!(!told_by_parent("/r/.git", "/r", "git"));
        assert!(!told_by_parent("/elsewhere", "/r", "x"));
    }

    #[test]
    fn lines_are_cut_to_the_width_never_wrapped() {
        assert_eq!(cut("├── abcdef", Some(8)), "├── abc…");
        assert_eq!(cut("short", Some(8)), "short");
        assert_eq!(cut("no width", None), "no width");
    }
}
