//! A [`GraphView`] as Graphviz dot (`dot -Tsvg` draws it). Every label is
//! a quoted string with `"` and `\` escaped, after `shown` (in `graph`)
//! wrote out control characters: a name cannot end its string, start an
//! escape (`\N`, `\l`) or a new statement.

use super::{GraphView, Layout, more_label, shown};
use crate::model::ResourceKind;

/// The graph as a `digraph`, with a legend cluster of its types.
pub fn render(view: &GraphView) -> String {
    let layout = Layout::new(view);
    let mut out = String::from(
        "digraph resources {\n  rankdir=LR;\n  \
         node [fontname=\"Helvetica\", fontsize=11, style=filled];\n  \
         edge [color=\"#555555\"];\n",
    );
    for (i, node) in view.nodes.iter().enumerate() {
        let entry = &layout.legend[layout.colour_of[i]];
        out.push_str(&format!(
            "  n{i} [label={}, shape={}, fillcolor=\"{}\"];\n",
            label(&[&node.label, &format!("({})", node.resource_type_name)]),
            shape(node.classification),
            entry.fill
        ));
    }
    for (p, c, edge) in layout.edges() {
        if edge.identity {
            // Ranked from the member, so the identity sits beside what it
            // joins; drawn without a head, the direction does not show.
            out.push_str(&format!("  n{c} -> n{p} [style=dashed, dir=none];\n"));
        } else {
            out.push_str(&format!("  n{p} -> n{c};\n"));
        }
    }
    for (j, (p, folded)) in layout.folded().enumerate() {
        out.push_str(&format!(
            "  m{j} [label={}, shape=box, style=\"filled,dashed\", fillcolor=\"{}\"];\n  \
             n{p} -> m{j} [style=dashed];\n",
            label(&[&more_label(folded)]),
            super::FOLDED_FILL
        ));
    }
    out.push_str(
        "  subgraph cluster_legend {\n    label=\"types\";\n    fontname=\"Helvetica\";\n",
    );
    for (k, entry) in layout.legend.iter().enumerate() {
        out.push_str(&format!(
            "    t{k} [label={}, shape={}, fillcolor=\"{}\"];\n",
            label(&[entry.type_name.as_str()]),
            shape(entry.kind),
            entry.fill
        ));
    }
    out.push_str("  }\n}\n");
    out
}

fn shape(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Physical => "box",
        ResourceKind::Virtual => "ellipse",
    }
}

/// Lines as one quoted dot label (`\n` between them).
fn label(lines: &[&str]) -> String {
    let mut out = String::from("\"");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("\\n");
        }
        for c in shown(line).chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
    }
    out.push('"');
    out
}
