//! A [`GraphView`] as a Mermaid flowchart (GitHub and most wikis draw it
//! from a ```` ```mermaid ```` block). Labels are quoted strings in which
//! everything but letters, digits, spaces and `-_./:,+@()` is written as
//! an entity code (`#34;`), so no name can close its string, start a
//! comment (`%%`), a link (`-->`) or markup (`<`, `` ` ``).

use super::{GraphView, Layout, more_label, shown};
use crate::model::ResourceKind;

/// The graph as `flowchart LR`, with a legend subgraph of its types.
pub fn render(view: &GraphView) -> String {
    let layout = Layout::new(view);
    let mut out = String::from("flowchart LR\n");
    for (k, entry) in layout.legend.iter().enumerate() {
        out.push_str(&format!(
            "  classDef t{k} fill:{},stroke:#333,color:#000\n",
            entry.fill
        ));
    }
    out.push_str(&format!(
        "  classDef more fill:{},stroke:#999,stroke-dasharray:4 3,color:#333\n",
        super::FOLDED_FILL
    ));
    for (i, node) in view.nodes.iter().enumerate() {
        let text = format!(
            "{}<br/>({})",
            quoted(&node.label),
            quoted(node.resource_type_name.as_str())
        );
        out.push_str(&format!(
            "  n{i}{}:::t{}\n",
            shaped(node.classification, &text),
            layout.colour_of[i]
        ));
    }
    for (p, c, edge) in layout.edges() {
        let link = if edge.identity { "-.-" } else { "-->" };
        out.push_str(&format!("  n{p} {link} n{c}\n"));
    }
    for (j, (p, folded)) in layout.folded().enumerate() {
        out.push_str(&format!(
            "  m{j}[\"{}\"]:::more\n  n{p} -.-> m{j}\n",
            quoted(&more_label(folded))
        ));
    }
    out.push_str("  subgraph legend [\"types\"]\n");
    for (k, entry) in layout.legend.iter().enumerate() {
        out.push_str(&format!(
            "    t{k}{}:::t{k}\n",
            shaped(entry.kind, &quoted(entry.type_name.as_str()))
        ));
    }
    out.push_str("  end\n");
    out
}

/// `text` (already quoted-safe) inside the node shape of `kind`.
fn shaped(kind: ResourceKind, text: &str) -> String {
    match kind {
        ResourceKind::Physical => format!("[\"{text}\"]"),
        ResourceKind::Virtual => format!("([\"{text}\"])"),
    }
}

/// Text safe inside a Mermaid quoted label.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    for c in shown(text).chars() {
        if c.is_alphanumeric() || " -_./:,+@()".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("#{};", u32::from(c)));
        }
    }
    out
}
