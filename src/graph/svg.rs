//! A [`GraphView`] as SVG, laid out and drawn in process by `layout-rs`
//! (ranks, crossing reduction, curved edges), with a legend of its types
//! below: `agents resource graph … --format svg > g.svg` opens in any
//! browser, no graphviz needed. `layout-rs` escapes `&`, `<`, `>`, `"`
//! and `'` in text; `shown` (in `graph`) first writes out what XML
//! cannot hold (control characters) and a newline, which it would split.

use super::{GraphView, Layout, more_label, shown};
use crate::model::ResourceKind;
use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

const FONT: usize = 14;

/// The graph as one SVG document.
pub fn render(view: &GraphView) -> String {
    let layout = Layout::new(view);
    let mut graph = VisualGraph::new(Orientation::LeftToRight);
    let mut handles = Vec::with_capacity(view.nodes.len());
    for (i, node) in view.nodes.iter().enumerate() {
        let text = format!(
            "{}\n({})",
            shown(&node.label),
            shown(node.resource_type_name.as_str())
        );
        let fill = layout.legend[layout.colour_of[i]].fill;
        handles.push(graph.add_node(element(node.classification, text, fill, false)));
    }
    for (p, c, edge) in layout.edges() {
        if edge.identity {
            // Laid out from the member: an identity sits beside what it
            // joins, not as a root of its own (the line has no head).
            let arrow = line(LineEndKind::None, LineStyleKind::Dashed, "#777777");
            graph.add_edge(arrow, handles[c], handles[p]);
        } else {
            let arrow = line(LineEndKind::Arrow, LineStyleKind::Normal, "#555555");
            graph.add_edge(arrow, handles[p], handles[c]);
        }
    }
    for (p, folded) in layout.folded() {
        let more = graph.add_node(element(
            ResourceKind::Physical,
            shown(&more_label(folded)),
            super::FOLDED_FILL,
            true,
        ));
        graph.add_edge(
            line(LineEndKind::Arrow, LineStyleKind::Dashed, "#999999"),
            handles[p],
            more,
        );
    }
    let mut svg = SVGWriter::new();
    let mut bounds = Bounds {
        inner: &mut svg,
        bottom: 0.0,
    };
    graph.do_it(false, false, false, &mut bounds);
    let top = bounds.bottom + 30.0;
    legend(&mut svg, &layout, top);
    stable_styles(svg.finalize())
}

/// `layout-rs` writes its font classes from a `HashMap`, so their order
/// changed from one run to the next; sorted, the same graph is the same
/// bytes every time (a diff of two drawings shows only what changed).
fn stable_styles(svg: String) -> String {
    const OPEN: &str = "<style>\n";
    let Some(start) = svg.find(OPEN).map(|i| i + OPEN.len()) else {
        return svg;
    };
    let Some(len) = svg[start..].find("</style>") else {
        return svg;
    };
    let mut lines: Vec<&str> = svg[start..start + len].lines().collect();
    lines.sort_unstable();
    let mut out = String::with_capacity(svg.len());
    out.push_str(&svg[..start]);
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&svg[start + len..]);
    out
}

fn style(fill: &str, line: &str, dashed: bool) -> StyleAttr {
    StyleAttr::new(
        Color::fast(line),
        if dashed { 1 } else { 2 },
        Color::from_name(fill),
        if dashed { 0 } else { 4 },
        FONT,
    )
}

fn element(kind: ResourceKind, text: String, fill: &str, folded: bool) -> Element {
    let line = if folded { "#999999" } else { "#333333" };
    let shape = match kind {
        ResourceKind::Physical => ShapeKind::Box(text),
        ResourceKind::Virtual => ShapeKind::Circle(text),
    };
    let size = get_shape_size(Orientation::LeftToRight, &shape, FONT, false);
    Element::create(
        shape,
        style(fill, line, folded),
        Orientation::LeftToRight,
        size,
    )
}

fn line(end: LineEndKind, dash: LineStyleKind, colour: &str) -> Arrow {
    let mut look = StyleAttr::simple();
    look.line_color = Color::fast(colour);
    look.line_width = 1;
    Arrow::new(LineEndKind::None, end, dash, "", &look, &None, &None)
}

/// The legend: one swatch per type (a box for physical, an ellipse for
/// virtual types), in a row below the graph starting at `top`.
fn legend(svg: &mut SVGWriter, layout: &Layout<'_>, top: f64) {
    let mut heading = StyleAttr::simple();
    heading.font_size = FONT;
    svg.draw_text(Point::new(30.0, top), "types", &heading);
    let mut y = top + 24.0;
    for entry in &layout.legend {
        let look = style(entry.fill, "#333333", false);
        match entry.kind {
            ResourceKind::Physical => svg.draw_rect(
                Point::new(10.0, y),
                Point::new(28.0, 18.0),
                &look,
                None,
                None,
            ),
            ResourceKind::Virtual => svg.draw_circle(
                Point::new(24.0, y + 9.0),
                Point::new(28.0, 18.0),
                &look,
                None,
            ),
        }
        let name = shown(entry.type_name.as_str());
        // `draw_text` centres on x: half the name's width past the swatch.
        let half = name.chars().count() as f64 * FONT as f64 * 0.235;
        svg.draw_text(Point::new(48.0 + half, y + 9.0), &name, &heading);
        y += 26.0;
    }
}

/// Passes every draw call on, remembering how far down the drawing goes
/// (the legend goes below it).
struct Bounds<'w> {
    inner: &'w mut SVGWriter,
    bottom: f64,
}

impl Bounds<'_> {
    fn reach(&mut self, y: f64) {
        self.bottom = self.bottom.max(y);
    }
}

impl RenderBackend for Bounds<'_> {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
        clip: Option<ClipHandle>,
    ) {
        self.reach(xy.y + size.y);
        self.inner.draw_rect(xy, size, look, properties, clip);
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.reach(start.y.max(stop.y));
        self.inner.draw_line(start, stop, look, properties);
    }

    fn draw_circle(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.reach(xy.y + size.y / 2.0);
        self.inner.draw_circle(xy, size, look, properties);
    }

    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        self.reach(xy.y);
        self.inner.draw_text(xy, text, look);
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        text: &str,
    ) {
        for (a, b) in path {
            self.reach(a.y.max(b.y));
        }
        self.inner
            .draw_arrow(path, dashed, head, look, properties, text);
    }

    fn create_clip(&mut self, xy: Point, size: Point, rounded_px: usize) -> ClipHandle {
        self.inner.create_clip(xy, size, rounded_px)
    }
}
