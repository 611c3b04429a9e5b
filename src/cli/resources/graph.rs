//! `agents resource graph`: the DAG below a resource as a picture — dot,
//! Mermaid or SVG for people (the library draws all three,
//! `resource_host::graph`), nodes and edges for programs (`-o json`).

use crate::cli::output::emit;
use crate::cli::{Context, Outcome};
use resource_host::graph::{self, GraphView};
use resource_host::model::ResourceKey;
use resource_host::registry::GraphOptions;

/// What `--format` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum GraphFormat {
    /// Graphviz dot (`| dot -Tpng > g.png`).
    #[default]
    Dot,
    /// A Mermaid flowchart (GitHub draws it from a ```mermaid block).
    Mermaid,
    /// SVG, laid out here: opens in any browser.
    Svg,
}

/// `resource graph [--depth N] [--type T] [--format F] KEY`.
pub(in crate::cli) fn run(
    ctx: &Context,
    key: &ResourceKey,
    depth: Option<u32>,
    type_name: Option<String>,
    format: GraphFormat,
) -> Outcome {
    let opts = GraphOptions {
        depth,
        type_filter: type_name,
        ..GraphOptions::default()
    };
    let view = ctx.open()?.graph(key, &opts)?;
    emit(ctx.format, &view, || draw(&view, format))
}

fn draw(view: &GraphView, format: GraphFormat) -> String {
    match format {
        GraphFormat::Dot => graph::dot::render(view),
        GraphFormat::Mermaid => graph::mermaid::render(view),
        GraphFormat::Svg => graph::svg::render(view),
    }
}
