//! The module rules of docs/architecture.md, checked against the source.
//!
//! That page promises what nothing else enforced: "Dependencies point one
//! way" (its diagram), "No concern uses one that uses it back" (the modules
//! shared at the top of `registry/`), and, since issue 38, no module
//! circle. Modules in a circle cannot be read, changed or moved apart, and
//! a circle creeps back unless a test refuses it.
//!
//! The check reads the files, not the compiler's view: each file's module
//! (`a/b.rs` and `a/b/mod.rs` are both `a::b`), the paths it names (every
//! `use` tree, in a function body too, and every inline `crate::`,
//! `super::` and `self::` path, in macro calls too), each resolved to the
//! longest prefix that is a module. A use from `a::b::c` of `a::d::e` is
//! the edge `b → d` among `a`'s children; a parent and its children use
//! each other freely. Test code is left out: `tests`/`proptests` files and
//! directories, `*_tests` and `tests_*` files, and every item under
//! `#[cfg(test)]` (a `mod x;` so marked, `props` among them, with its file).
//!
//! A lint, not a Rust parser. What it cannot see: a path through a name a
//! `use` brought in (`use super::a; a::b::f()` counts as the `use` only),
//! a method called on a type another module implements (`self.find()`),
//! `super` inside an inline `mod x { … }` (read as the file's), a
//! `#[path]` module (placed by its file name), and the binary's uses of
//! the library (`resource_host::…`, the public API by construction).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The diagram of docs/architecture.md: each module below `registry` and
/// the crate's modules it may use. A module not listed may use none, as
/// `text`, `digest`, `machine`, `natural`, `private_dir`, `roots`,
/// `user_files` and `yaml_bounds` do: a new module must be placed here.
const DIAGRAM: &[(&str, &str)] = &[
    ("scaffold", "model plugin user_files"),
    (
        "plugin",
        "model credentials git_env private_dir digest text",
    ),
    ("signing", "model plugin private_dir"),
    ("sandbox", "model git_env digest text"),
    ("devcontainer", "model digest text yaml_bounds"),
    ("store", "model dag plugin private_dir"),
    ("builtin", "model typespec digest"),
    ("typespec", "model yaml_bounds"),
    ("oci", "model digest"),
    ("graph", "model text"),
    ("dag", "model"),
    ("routing", "model"),
    ("effects", "model"),
    ("credentials", "model"),
    ("home", "model private_dir"),
    ("git_env", "model text"),
    ("model", "text"),
];

/// Above the others and free to use them: the binary's `cli`, `registry`
/// and `front_end` (what the front ends read to open a registry).
const ABOVE: &str = "cli registry front_end";

/// `registry`'s children shared by every concern: none may use a concern.
const SHARED: &str = "args recording event_op roots type_set error views";

/// The concerns of docs/architecture.md's table, directories of `registry/`.
const CONCERNS: &str = "types resources links environments sandboxes plugins events transfer trust";

#[test]
fn no_module_circle_remains() {
    let mut found = circles(&edges(&read_crate("src"), "src/"));
    found.extend(circles(&edges(&read_crate("python/src"), "python/src/")));
    refuse("module circles (docs/architecture.md, issue 38)", found);
}

#[test]
fn dependencies_point_the_way_the_diagram_draws() {
    let mut refused = Vec::new();
    for ((parent, from, to), evidence) in edges(&read_crate("src"), "src/") {
        let drawn = DIAGRAM.iter().find(|(module, _)| *module == from);
        let may = drawn.map_or("", |(_, may)| may);
        if parent == "crate" && !listed(ABOVE, &from) && !listed(may, &to) {
            refused.push(format!("`{from}` must not use `{to}` ({evidence})"));
        }
    }
    refuse("against the diagram of docs/architecture.md", refused);
}

#[test]
fn registry_shared_modules_use_no_concern() {
    let mut refused = Vec::new();
    for ((parent, from, to), evidence) in edges(&read_crate("src"), "src/") {
        let placed = |m: &str| listed(SHARED, m) || listed(CONCERNS, m);
        if parent != "registry" {
            continue;
        } else if !placed(&from) || !placed(&to) {
            refused.push(format!("`{from}` or `{to}` is unplaced ({evidence})"));
        } else if listed(SHARED, &from) && listed(CONCERNS, &to) {
            let problem = format!("shared `registry::{from}` uses the concern `{to}`");
            refused.push(format!("{problem} ({evidence})"));
        }
    }
    refuse("registry/'s shared modules (docs/architecture.md)", refused);
}

fn listed(list: &str, module: &str) -> bool {
    list.split_whitespace().any(|m| m == module)
}

/// Fails naming each problem, under what was broken.
#[track_caller]
fn refuse(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

/// A crate's files: path below its source directory → text.
type Sources = BTreeMap<String, String>;

/// Edges between siblings: (their parent, from, to) → a file and path making it.
type Edges = BTreeMap<(String, String, String), String>;

fn read_crate(dir: &str) -> Sources {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (mut sources, mut pending) = (Sources::new(), vec![root.clone()]);
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(&root).unwrap().to_string_lossy();
            if path.is_dir() {
                pending.push(path.clone());
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                sources.insert(name.replace('\\', "/"), text);
            }
        }
    }
    sources
}

/// The module a file is: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs`
/// and `main.rs` the root.
fn module_of(file: &str) -> Vec<String> {
    let mut path = module(&file.trim_end_matches(".rs").replace('/', "::"));
    if path.last().is_some_and(|last| last == "mod") || matches!(file, "lib.rs" | "main.rs") {
        path.pop();
    }
    path
}

fn module(path: &str) -> Vec<String> {
    path.split("::").map(String::from).collect()
}

fn is_test_name(name: &str) -> bool {
    let named = name.ends_with("_tests") || name.starts_with("tests_");
    named || matches!(name, "tests" | "proptests")
}

/// Every sibling edge of a crate's code; `shown` prefixes a file's name.
fn edges(sources: &Sources, shown: &str) -> Edges {
    let mut modules = BTreeSet::new();
    let (mut code, mut test_modules) = (BTreeMap::new(), BTreeSet::new());
    for (file, text) in sources {
        let here = module_of(file);
        modules.extend((0..=here.len()).map(|n| here[..n].to_vec()));
        let (kept, test_mods) = drop_test_items(&strip(text));
        for name in test_mods {
            test_modules.insert([here.clone(), vec![name]].concat());
        }
        code.insert(file, kept);
    }
    let mut edges = Edges::new();
    for (file, text) in code {
        let here = module_of(file);
        let test = |n: usize| is_test_name(&here[n - 1]) || test_modules.contains(&here[..n]);
        if (1..=here.len()).any(test) {
            continue;
        }
        for path in paths_named(&text) {
            let target = resolve(&path, &here, &modules);
            if let Some(key) = target.and_then(|target| sibling_edge(&here, &target)) {
                edges
                    .entry(key)
                    .or_insert_with(|| format!("{shown}{file}: {path}"));
            }
        }
    }
    edges
}

/// `from` using `to`, as an edge between the two siblings under their
/// lowest common ancestor; none to an ancestor or a descendant.
fn sibling_edge(from: &[String], to: &[String]) -> Option<(String, String, String)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    let parent = if common == 0 {
        "crate".into()
    } else {
        from[..common].join("::")
    };
    Some((parent, from[common].clone(), to[common].clone()))
}

/// Each circle among one parent's children: its modules, the edges inside.
fn circles(edges: &Edges) -> Vec<String> {
    let (mut found, mut seen) = (Vec::new(), BTreeSet::new());
    for (parent, from, _) in edges.keys() {
        let reached = reach(edges, parent, from);
        let circle: BTreeSet<_> = reached
            .into_iter()
            .filter(|m| reach(edges, parent, m).contains(from))
            .collect();
        if circle.is_empty() || !seen.insert((parent, from)) {
            continue;
        }
        seen.extend(circle.iter().map(|m| (parent, *m)));
        let names: Vec<&str> = circle.iter().map(|m| m.as_str()).collect();
        let mut message = format!("circle among {parent}'s children: {}", names.join(", "));
        for ((p, f, t), evidence) in edges {
            if p == parent && circle.contains(f) && circle.contains(t) {
                message += &format!("\n    {f} → {t} ({evidence})");
            }
        }
        found.push(message);
    }
    found
}

/// The children of `parent` that `from` reaches through one edge or more.
fn reach<'e>(edges: &'e Edges, parent: &str, from: &str) -> BTreeSet<&'e String> {
    let (mut reached, mut pending) = (BTreeSet::new(), vec![from]);
    while let Some(module) = pending.pop() {
        for (_, _, to) in edges.keys().filter(|(p, f, _)| p == parent && f == module) {
            if reached.insert(to) {
                pending.push(to);
            }
        }
    }
    reached
}

/// The module `path` names, seen from module `here`: the longest prefix
/// that is a module. A path not from `crate`, `super` or `self` names
/// another crate or one of `here`'s own children: none.
fn resolve(path: &str, here: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut segments = path.split("::").peekable();
    let mut module = match segments.next()? {
        "crate" | "$crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => here[..here.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    while segments.next_if_eq(&"super").is_some() {
        module.pop()?;
    }
    for segment in segments {
        module.push(segment.to_string());
        if !modules.contains(&module) {
            module.pop();
            break;
        }
    }
    Some(module)
}

/// The paths code names: each `use` tree expanded, each inline path
/// starting with `crate::`, `super::` or `self::`.
fn paths_named(code: &str) -> Vec<String> {
    let (mut paths, mut i) = (Vec::new(), 0);
    while let Some(start) = code[i..].find(is_ident).map(|s| s + i) {
        let end = code[start..]
            .find(|c: char| !is_ident(c))
            .map_or(code.len(), |e| e + start);
        let (word, after) = (&code[start..end], &code[end..]);
        let boundary = !code[..start].ends_with(is_ident);
        i = end;
        if boundary && word == "use" && after.starts_with(char::is_whitespace) {
            i = after.find(';').map_or(code.len(), |e| e + end);
            let tree: Vec<&str> = code[end..i].split_whitespace().collect();
            expand(&tree.join(" "), "", &mut paths);
        } else if boundary && is_path_start(word) && after.starts_with("::") {
            let run = code[start..].find(|c: char| !is_ident(c) && c != ':');
            i = run.map_or(code.len(), |e| e + start);
            paths.push(code[start..i].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// A `use` tree's paths, `prefix` before each: `{…}` groups expanded
/// (nested), `as x` dropped, `a::{self}` as `a`.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        let leaf = tree
            .split(" as ")
            .next()
            .unwrap_or_default()
            .replace(' ', "");
        let path = format!("{prefix}{leaf}");
        out.push(path.trim_end_matches("::self").to_string());
        return;
    };
    let close = tree.rfind('}').unwrap_or(tree.len());
    let prefix = format!("{prefix}{}", tree[..open].replace(' ', ""));
    let (mut depth, mut from) = (0, open + 1);
    for (i, c) in tree[..close].char_indices().filter(|&(i, _)| i > open) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(tree[from..i].trim(), &prefix, out);
                from = i + 1;
            }
            _ => {}
        }
    }
    if !tree[from..close].trim().is_empty() {
        expand(tree[from..close].trim(), &prefix, out);
    }
}

fn is_path_start(word: &str) -> bool {
    matches!(word, "crate" | "super" | "self")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `code` without the items only tests compile (`#[cfg(test)]`,
/// `#[cfg(all(test, …))]`), and the modules so declared (`mod x;`), whose
/// files are test code too.
fn drop_test_items(code: &str) -> (String, Vec<String>) {
    const CFG: &str = "#[cfg(";
    let (mut kept, mut test_mods, mut rest) = (String::new(), Vec::new(), code);
    while let Some(at) = rest.find(CFG) {
        let (before, item) = rest.split_at(at);
        kept.push_str(before);
        if !(item.starts_with("#[cfg(test)]") || item.starts_with("#[cfg(all(test,")) {
            kept.push_str(CFG);
            rest = &item[CFG.len()..];
            continue;
        }
        let end = item_end(item);
        let mut words = item[..end].split(|c: char| !is_ident(c));
        if item[..end].ends_with(';') && words.any(|w| w == "mod") {
            test_mods.extend(words.find(|w| !w.is_empty()).map(String::from));
        }
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, test_mods)
}

/// Where the item starting `code` ends: past its `;` or its block's `}`
/// (attributes before it are part of it), or before the `}` closing what
/// holds it (a field or an expression). Brackets are counted, not columns.
fn item_end(code: &str) -> usize {
    let mut depth = 0;
    for (i, c) in code.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' => depth -= 1,
            '}' if depth == 0 => return i,
            '}' if depth == 1 => return i + 1,
            '}' => depth -= 1,
            ';' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    code.len()
}

/// `text` with its comments, strings and char literals blanked, so that
/// only code is scanned.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let (mut out, mut i) = (String::new(), 0);
    while i < c.len() {
        let skip_to = if starts(&c, i, "//") {
            Some((i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len()))
        } else if starts(&c, i, "/*") {
            Some(block_comment_end(&c, i))
        } else if c[i] == '"' {
            Some(string_end(&c, i))
        } else {
            raw_string_end(&c, i).or_else(|| char_end(&c, i))
        };
        match skip_to {
            Some(end) => (i, out) = (end, out + " "),
            None => {
                out.push(c[i]);
                i += 1;
            }
        }
    }
    out
}

fn starts(c: &[char], i: usize, s: &str) -> bool {
    c[i..].iter().take(s.len()).copied().eq(s.chars())
}

fn block_comment_end(c: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < c.len() {
        if starts(c, i, "/*") || starts(c, i, "*/") {
            depth += if c[i] == '/' { 1 } else { -1 };
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

fn string_end(c: &[char], mut i: usize) -> usize {
    i += 1;
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// A raw string at `i` (`r"…"`, `br#"…"#`): where it ends. `r#type`, a
/// raw identifier, is none.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    if i > 0 && is_ident(c[i - 1]) {
        return None;
    }
    let r = i + usize::from(matches!(c[i], 'b' | 'c'));
    let hashes = c.get(r + 1..)?.iter().take_while(|&&h| h == '#').count();
    if c.get(r) != Some(&'r') || c.get(r + 1 + hashes) != Some(&'"') {
        return None;
    }
    let close = format!("\"{}", "#".repeat(hashes));
    let at = (r + 2 + hashes..c.len()).find(|&k| starts(c, k, &close));
    Some(at.map_or(c.len(), |k| k + close.len()))
}

/// A char literal at `i` (`'x'`, `'\n'`, `'\''`): where it ends. A
/// lifetime or a label (`'a`) is none.
fn char_end(c: &[char], i: usize) -> Option<usize> {
    match (c[i], c.get(i + 1), c.get(i + 2)) {
        ('\'', Some('\\'), _) => (i + 3..c.len()).find(|&k| c[k] == '\'').map(|k| k + 1),
        ('\'', Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}

/// A crate of `files` (path below its source directory, text).
fn crate_of(files: &[(&str, &str)]) -> Sources {
    files
        .iter()
        .map(|(file, text)| (file.to_string(), text.to_string()))
        .collect()
}

#[test]
fn the_check_finds_a_circle_of_two_modules() {
    let sources = crate_of(&[
        ("lib.rs", "mod a;\nmod b;"),
        ("a.rs", "use crate::b::{X, Y};"),
        ("b/mod.rs", "mod c;"),
        ("b/c.rs", "fn f() { log!(\"{}\", super::super::a::g()) }"),
    ]);
    let circle = "circle among crate's children: a, b\n    \
                  a → b (src/a.rs: crate::b::X)\n    \
                  b → a (src/b/c.rs: super::super::a::g)";
    assert_eq!(circles(&edges(&sources, "src/")), [circle]);
}

#[test]
fn a_parent_and_its_child_are_no_circle() {
    let sources = crate_of(&[("a/mod.rs", "use self::c::X;"), ("a/c.rs", "use super::Y;")]);
    assert_eq!(edges(&sources, ""), Edges::new());
}

#[test]
fn code_under_cfg_test_is_not_scanned() {
    let a = "#[cfg(test)]\nmod tests {\n    use crate::b::X;\n    fn f() { if x { g() } }\n}\n\
             #[cfg(all(test, unix))]\nmod helpers;\n#[cfg(unix)]\nfn g() -> [u8; 2] { [0; 2] }";
    let b = "use crate::a::g;";
    let sources = crate_of(&[
        ("a.rs", a),
        ("a/helpers.rs", "use crate::b::Y;"),
        ("b.rs", b),
    ]);
    let found: Vec<_> = edges(&sources, "").into_values().collect();
    assert_eq!(found, ["b.rs: crate::a::g"]);
}

#[test]
fn comments_strings_and_char_literals_are_not_scanned() {
    let text = "// use crate::b::X;\n/* crate::b /* nested */ crate::b */\n/// crate::b::Y\n\
                const S: &str = \"use crate::b::Z; \\\" crate::b\";\n\
                const R: &str = r#\"crate::b \"quoted\" \"#;\n\
                fn f<'a>(x: &'a str) -> char { crate::c::h(x, '\"', '\\'') }";
    assert_eq!(paths_named(&strip(text)), ["crate::c::h"]);
}

#[test]
fn a_nested_use_group_names_each_of_its_paths() {
    let code = "fn f() {\n    use crate::a::{b::{c, d}, e as f};\n    m!(self::g::H);\n}";
    let paths = paths_named(code);
    let expanded = [
        "crate::a::b::c",
        "crate::a::b::d",
        "crate::a::e",
        "self::g::H",
    ];
    assert_eq!(paths, expanded);
    let modules: BTreeSet<_> = ["a", "a::b", "a::b::c", "a::e"].map(module).into();
    let resolved: Vec<_> = paths[..3]
        .iter()
        .map(|p| resolve(p, &[], &modules))
        .collect();
    assert_eq!(
        resolved,
        ["a::b::c", "a::b", "a::e"].map(|m| Some(module(m)))
    );
}

#[test]
fn super_means_the_same_from_a_file_and_from_its_mod_rs() {
    let modules: BTreeSet<_> = ["a", "a::b", "a::b::c", "a::x"].map(module).into();
    for file in ["a/b/c.rs", "a/b/c/mod.rs"] {
        let resolved = resolve("super::super::x::Y", &module_of(file), &modules);
        assert_eq!(resolved, Some(module("a::x")), "from {file}");
    }
}
