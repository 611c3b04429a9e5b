//! `agents resource graph`: the DAG as dot (checked by Graphviz itself),
//! Mermaid, SVG (parsed as XML) and JSON, on small real trees.

use crate::common::{Env, git_repo};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// A directory with files named to sort naturally and a subdirectory.
fn small_tree(env: &Env) {
    let dir = env.mkdir("d");
    for f in ["a.txt", "f10", "f2", "sub/x"] {
        env.write(&format!("d/{f}"), "x\n");
    }
    env.add("fs-directory", "local/d", &dir, &[]).ok();
}

/// Feed `input` to `program ARGS`; its stdout, asserting success.
fn pipe(program: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} must be installed (.ci/run installs it): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} refused its input: {}\n{input}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The texts of an SVG document's `<text>` elements, as an XML parser
/// (Python's) reads them: tspans joined by newlines.
fn svg_texts(svg: &str) -> Vec<String> {
    let script = "import sys, xml.etree.ElementTree as ET\n\
        root = ET.fromstring(sys.stdin.buffer.read())\n\
        for t in root.iter('{http://www.w3.org/2000/svg}text'):\n    \
            parts = [s.text or '' for s in t] if len(t) else [t.text or '']\n    \
            print('\\n'.join(parts).replace('\\n', '|'))\n";
    pipe("python3", &["-c", script], svg)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `key` of each node of a graph's JSON.
fn of_nodes<'j>(json: &'j Value, key: &str) -> Vec<&'j str> {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n[key].as_str().unwrap())
        .collect()
}

#[test]
fn dot_of_a_small_tree_is_exactly_this_and_graphviz_draws_it() {
    let env = Env::new();
    small_tree(&env);
    let dot = env.run(&["resource", "graph", "local/d"]).ok().to_owned();
    let box_ = |n: usize, label: &str, ty: &str, fill: &str| {
        format!("  n{n} [label=\"{label}\\n({ty})\", shape=box, fillcolor=\"{fill}\"];\n")
    };
    let (dirs, files) = ("#cfe2f3", "#d9ead3");
    let expected = [
        "digraph resources {\n  rankdir=LR;\n",
        "  node [fontname=\"Helvetica\", fontsize=11, style=filled];\n",
        "  edge [color=\"#555555\"];\n",
        &box_(0, "local/d", "fs-directory", dirs),
        &box_(1, "a.txt", "fs-file", files),
        &box_(2, "f2", "fs-file", files),
        &box_(3, "f10", "fs-file", files),
        &box_(4, "sub", "fs-directory", dirs),
        &box_(5, "x", "fs-file", files),
        "  n0 -> n1;\n  n0 -> n2;\n  n0 -> n3;\n  n0 -> n4;\n  n4 -> n5;\n",
        "  subgraph cluster_legend {\n    label=\"types\";\n    fontname=\"Helvetica\";\n",
        &format!("    t0 [label=\"fs-directory\", shape=box, fillcolor=\"{dirs}\"];\n"),
        &format!("    t1 [label=\"fs-file\", shape=box, fillcolor=\"{files}\"];\n"),
        "  }\n}\n",
    ]
    .concat();
    assert_eq!(dot, expected);
    let drawn = pipe("dot", &["-Tsvg"], &dot);
    assert!(drawn.contains("<svg"), "{drawn}");
}

#[test]
fn the_svg_is_xml_with_a_text_per_resource_and_a_legend_of_its_types() {
    let env = Env::new();
    small_tree(&env);
    let svg = env
        .run(&["resource", "graph", "--format", "svg", "local/d"])
        .ok()
        .to_owned();
    let texts = svg_texts(&svg);
    for label in [
        "local/d|(fs-directory)",
        "a.txt|(fs-file)",
        "f2|(fs-file)",
        "f10|(fs-file)",
        "sub|(fs-directory)",
        "x|(fs-file)",
        "types",
        "fs-directory",
        "fs-file",
    ] {
        assert_eq!(
            texts.iter().filter(|t| *t == label).count(),
            1,
            "{label:?} once in {texts:?}"
        );
    }
}

#[test]
fn mermaid_and_json_give_the_same_nodes_and_edges() {
    let env = Env::new();
    small_tree(&env);
    let mermaid = env
        .run(&["resource", "graph", "--format", "mermaid", "local/d"])
        .ok()
        .to_owned();
    assert!(mermaid.starts_with("flowchart LR\n"), "{mermaid}");
    assert!(
        mermaid.contains("  n3[\"f10<br/>(fs-file)\"]:::t1\n"),
        "{mermaid}"
    );
    assert_eq!(mermaid.matches(" --> ").count(), 5, "{mermaid}");

    let json = env
        .run(&["resource", "graph", "local/d", "-o", "json"])
        .json();
    let names = of_nodes(&json, "name");
    assert_eq!(
        names,
        [
            "local/d",
            "local/d/a.txt",
            "local/d/f2",
            "local/d/f10",
            "local/d/sub",
            "local/d/sub/x"
        ]
    );
    assert_eq!(json["nodes"][0]["resource_id"], json["root"]);
    assert_eq!(json["nodes"][4]["label"], "sub");
    assert_eq!(json["nodes"][4]["classification"], "physical");
    assert_eq!(json["edges"].as_array().unwrap().len(), 5);
    assert_eq!(
        json["edges"][4]["parent_id"],
        json["nodes"][4]["resource_id"]
    );
    assert_eq!(json["edges"][4]["identity"], false);
    assert_eq!(json["folded"], serde_json::json!([]));

    // --depth and --type cut it as `tree` does.
    let one = env
        .run(&["resource", "graph", "--depth", "1", "local/d", "-o", "json"])
        .json();
    assert_eq!(one["nodes"].as_array().unwrap().len(), 5);
    let dirs = env
        .run(&[
            "resource",
            "graph",
            "--type",
            "fs-directory",
            "local/d",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(dirs["nodes"].as_array().unwrap().len(), 2);
}

#[test]
fn a_shared_child_is_drawn_once_under_both_parents() {
    let env = Env::new();
    small_tree(&env);
    let e = env.mkdir("e");
    env.add("fs-directory", "local/e", &e, &[]).ok();
    env.run(&["resource", "link-child", "local/d", "local/e"])
        .ok();
    env.run(&["resource", "link-child", "local/d/sub", "local/e"])
        .ok();
    let dot = env.run(&["resource", "graph", "local/d"]).ok().to_owned();
    let line = dot
        .lines()
        .find(|l| l.contains("label=\"local/e\\n"))
        .unwrap_or_else(|| panic!("local/e drawn: {dot}"));
    assert_eq!(dot.matches("label=\"local/e\\n").count(), 1, "{dot}");
    let node = line.trim().split(' ').next().unwrap();
    assert_eq!(dot.matches(&format!("-> {node};")).count(), 2, "{dot}");
    pipe("dot", &["-Tsvg"], &dot);
}

#[test]
fn children_past_the_limit_fold_into_a_count() {
    let env = Env::new();
    let dir = env.mkdir("many");
    for i in 0..40 {
        env.write(&format!("many/f{i}"), "x\n");
    }
    env.add("fs-directory", "local/many", &dir, &[]).ok();
    let json = env
        .run(&["resource", "graph", "local/many", "-o", "json"])
        .json();
    let labels = of_nodes(&json, "label");
    // The first twelve in natural order, the other 28 folded.
    let first: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
    assert_eq!(labels[1..], first);
    assert_eq!(json["folded"][0]["more"], 28);
    assert_eq!(json["folded"][0]["parent_id"], json["root"]);
    let svg = env
        .run(&["resource", "graph", "--format", "svg", "local/many"])
        .ok()
        .to_owned();
    assert!(svg_texts(&svg).contains(&"+28 more".to_owned()));
    let dot = env
        .run(&["resource", "graph", "local/many"])
        .ok()
        .to_owned();
    assert!(dot.contains("label=\"+28 more\""), "{dot}");
    pipe("dot", &["-Tsvg"], &dot);
}

/// A checkout whose head tree and work tree are explored: each file on
/// disk and its tree entry are two resources one `file` identity joins.
#[test]
fn identities_are_drawn_joining_their_members() {
    let env = Env::new();
    let repo = env.path("a");
    git_repo(&repo);
    env.add("git-checkout", "local/a", &repo, &[]).ok();
    for explored in ["local/a/git/branch/main", "local/a/worktree"] {
        env.run(&["resource", "discover", "--depth", "4", explored])
            .ok();
    }
    let json = env
        .run(&["resource", "graph", "local/a", "-o", "json"])
        .json();
    let nodes = json["nodes"].as_array().unwrap();
    let readme: Vec<&Value> = nodes
        .iter()
        .filter(|n| n["name"].as_str().unwrap().ends_with("/README.md"))
        .collect();
    assert_eq!(readme.len(), 2, "{nodes:?}");
    let identity = nodes
        .iter()
        .find(|n| {
            n["classification"] == "virtual"
                && n["resource_type_name"] == "file"
                && json["edges"].as_array().unwrap().iter().any(|e| {
                    e["parent_id"] == n["resource_id"] && e["child_id"] == readme[0]["resource_id"]
                })
        })
        .expect("README.md's file identity");
    let joins: Vec<&Value> = json["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["parent_id"] == identity["resource_id"])
        .collect();
    assert_eq!(joins.len(), 2);
    assert!(joins.iter().all(|e| e["identity"] == true));
    let dot = env.run(&["resource", "graph", "local/a"]).ok().to_owned();
    assert!(dot.contains("shape=ellipse"), "{dot}");
    assert!(dot.contains("[style=dashed, dir=none]"), "{dot}");
    pipe("dot", &["-Tsvg"], &dot);
    let svg = env
        .run(&["resource", "graph", "--format", "svg", "local/a"])
        .ok()
        .to_owned();
    let texts = svg_texts(&svg);
    for n in nodes {
        let label = format!(
            "{}|({})",
            n["label"].as_str().unwrap(),
            n["resource_type_name"].as_str().unwrap()
        );
        assert!(texts.contains(&label), "{label} in {texts:?}");
    }
}

#[test]
fn graph_refuses_what_tree_refuses() {
    let env = Env::new();
    env.run(&["resource", "graph", "local/nothing"])
        .refused(&["no resource named or with id \"local/nothing\""]);
    env.run(&["resource", "graph", "--format", "png", "local/d"])
        .usage(&["png"]);
}
