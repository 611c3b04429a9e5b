use super::*;

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

/// What hostile repositories can put in a label, all at once.
const HOSTILE: &str = "a\"b<c>&d'e\\N\nf\u{1b}[2J g`h #i; %%j -->k ]l\u{fffe}";

fn node(n: u128, label: &str, type_name: &str, kind: ResourceKind) -> GraphNode {
    GraphNode {
        resource_id: id(n),
        name: None,
        resource_type_name: TypeName::parse(type_name).unwrap(),
        classification: kind,
        location: None,
        label: label.to_owned(),
    }
}

fn edge(p: u128, c: u128, identity: bool) -> GraphEdge {
    GraphEdge {
        parent_id: id(p),
        child_id: id(c),
        identity,
    }
}

/// A root, two children sharing a grandchild, an identity joining the
/// children, and a folded remainder.
fn sample() -> GraphView {
    GraphView {
        root: id(1),
        nodes: vec![
            node(1, "local/r", "fs-directory", ResourceKind::Physical),
            node(2, HOSTILE, "fs-file", ResourceKind::Physical),
            node(3, "b", "fs-directory", ResourceKind::Physical),
            node(4, "shared", "fs-file", ResourceKind::Physical),
            node(5, "identity/file/abc", "file", ResourceKind::Virtual),
        ],
        edges: vec![
            edge(1, 2, false),
            edge(1, 3, false),
            edge(2, 4, false),
            edge(3, 4, false),
            edge(5, 2, true),
            edge(5, 3, true),
        ],
        folded: vec![Folded {
            parent_id: id(3),
            more: 7,
        }],
    }
}

#[test]
fn dot_quotes_every_label_so_no_name_leaves_its_string() {
    let dot = dot::render(&sample());
    // The hostile label, escaped: quotes and backslashes escaped, the
    // newline and the escape character written out, nothing raw.
    assert!(
        dot.contains(
            r#"label="a\"b<c>&d'e\\N\\nf\\u{1b}[2J g`h #i; %%j -->k ]l\\u{fffe}\n(fs-file)""#
        ),
        "{dot}"
    );
    assert!(!dot.contains('\u{1b}') && !dot.contains('\u{fffe}'));
    // One statement per line: the only newlines are the document's.
    assert_eq!(dot.matches(" -> ").count(), 6 + 1, "{dot}");
    assert!(dot.contains("n1 -> n4 [style=dashed, dir=none];"), "{dot}");
    assert!(dot.contains("label=\"+7 more\""), "{dot}");
    // Each resource once, the shared one included.
    assert_eq!(dot.matches("(fs-file)\"").count(), 2, "{dot}");
    // The legend: each type once, the virtual one an ellipse.
    assert!(dot.contains("t0 [label=\"file\", shape=ellipse"), "{dot}");
    assert!(dot.contains("t2 [label=\"fs-file\", shape=box"), "{dot}");
}

#[test]
fn mermaid_writes_punctuation_as_entity_codes() {
    let text = mermaid::render(&sample());
    let line = text
        .lines()
        .find(|l| l.starts_with("  n1["))
        .expect("the hostile node");
    assert_eq!(
        line,
        "  n1[\"a#34;b#60;c#62;#38;d#39;e#92;N#92;nf#92;u#123;1b#125;#91;2J g#96;h #35;i#59; \
         #37;#37;j --#62;k #93;l#92;u#123;fffe#125;<br/>(fs-file)\"]:::t2"
    );
    assert!(!text.contains('\u{1b}'));
    assert!(text.contains("n4 -.- n1"), "{text}");
    assert!(
        text.contains("n4([\"identity/file/abc<br/>(file)\"]):::t0"),
        "{text}"
    );
    assert!(
        text.contains("m0[\"+7 more\"]:::more\n  n2 -.-> m0"),
        "{text}"
    );
}

#[test]
fn svg_is_xml_with_a_text_per_resource_and_a_legend() {
    let svg = svg::render(&sample());
    assert!(svg.starts_with("<?xml"));
    assert!(!svg.contains('\u{1b}') && !svg.contains('\u{fffe}'));
    // The hostile label arrives as text: markup characters as entities.
    assert!(
        svg.contains("a&quot;b&lt;c&gt;&amp;d&apos;e\\N\\nf\\u{1b}[2J g`h #i; %%j --&gt;k ]l"),
        "{svg}"
    );
    for text in [
        "local/r",
        "shared",
        "identity/file/abc",
        "+7 more",
        ">types<",
    ] {
        assert!(svg.contains(text), "{text} missing");
    }
    // The legend's three types.
    for t in [">file<", ">fs-directory<", ">fs-file<"] {
        assert!(svg.contains(t), "{t} missing from the legend");
    }
}

#[test]
fn the_same_graph_draws_the_same_svg_every_time() {
    // Each render's font classes came out of a HashMap with its own seed.
    let first = svg::render(&sample());
    assert!(
        first.contains(".a14 {") && first.contains(".a15 {"),
        "{first}"
    );
    for _ in 0..20 {
        assert_eq!(svg::render(&sample()), first);
    }
}

#[test]
fn a_graph_of_the_root_alone_draws() {
    let view = GraphView {
        root: id(1),
        nodes: vec![node(1, "local/r", "fs-directory", ResourceKind::Physical)],
        edges: Vec::new(),
        folded: Vec::new(),
    };
    assert!(svg::render(&view).contains("local/r"));
    assert!(dot::render(&view).contains("n0 [label=\"local/r\\n(fs-directory)\""));
    assert!(mermaid::render(&view).contains("n0[\"local/r<br/>(fs-directory)\"]"));
}
