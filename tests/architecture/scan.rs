//! The scanner behind the module rules: a crate's files read, the paths
//! each names resolved to modules, and the sibling edges and circles they
//! make (what it cannot see is in `architecture`'s doc).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A crate's files: path below its source directory → text.
pub(super) type Sources = BTreeMap<String, String>;

/// Edges between siblings: (their parent, from, to) → a file and path making it.
pub(super) type Edges = BTreeMap<(String, String, String), String>;

pub(super) fn read_crate(dir: &str) -> Sources {
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
pub(super) fn module_of(file: &str) -> Vec<String> {
    let mut path = module(&file.trim_end_matches(".rs").replace('/', "::"));
    if path.last().is_some_and(|last| last == "mod") || matches!(file, "lib.rs" | "main.rs") {
        path.pop();
    }
    path
}

pub(super) fn module(path: &str) -> Vec<String> {
    path.split("::").map(String::from).collect()
}

pub(super) fn is_test_name(name: &str) -> bool {
    let named = name.ends_with("_tests") || name.starts_with("tests_");
    named || matches!(name, "tests" | "proptests")
}

/// Every sibling edge of a crate's code; `shown` prefixes a file's name.
pub(super) fn edges(sources: &Sources, shown: &str) -> Edges {
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
    code.retain(|file, _| {
        let here = module_of(file);
        let test = |n: usize| is_test_name(&here[n - 1]) || test_modules.contains(&here[..n]);
        !(1..=here.len()).any(test)
    });
    let methods = registry_methods(&code);
    let mut edges = Edges::new();
    for (file, text) in code {
        let here = module_of(file);
        let paths = paths_named(&text).into_iter().map(|path| {
            let target = resolve(&path, &here, &modules);
            (target, path)
        });
        let on_self = registry_blocks(&text).flat_map(|block| methods_called(block, "self"));
        let calls = on_self
            .chain(methods_called(&text, "reg"))
            .map(|(receiver, name)| {
                let target = methods.get(name).cloned();
                (target, format!("{receiver}.{name}(…)"))
            });
        for (target, named) in paths.chain(calls).collect::<Vec<_>>() {
            if let Some(key) = target.and_then(|target| sibling_edge(&here, &target)) {
                edges
                    .entry(key)
                    .or_insert_with(|| format!("{shown}{file}: {named}"));
            }
        }
    }
    edges
}

/// The module that defines each method of `Registry`: the one type whose
/// `impl` is spread over `registry`'s rooms, so a room that calls another
/// room's method (`self.check_key_in_roots(…)`) uses that room.
pub(super) fn registry_methods(code: &BTreeMap<&String, String>) -> BTreeMap<String, Vec<String>> {
    let mut methods = BTreeMap::new();
    for (file, text) in code {
        for block in registry_blocks(text) {
            for rest in block.split("fn ").skip(1) {
                let name = rest
                    .split(|c: char| !is_ident(c))
                    .next()
                    .unwrap_or_default();
                methods.insert(name.to_string(), module_of(file));
            }
        }
    }
    methods
}

/// Each `impl Registry { … }` block of `code`.
pub(super) fn registry_blocks(code: &str) -> impl Iterator<Item = &str> {
    let starts = code.match_indices("impl Registry {");
    starts.map(|(at, _)| &code[at..at + item_end(&code[at + 1..]) + 1])
}

/// The methods `code` calls on `receiver` (`self.name(`; `reg`: what
/// the registry's free functions call the `Registry` they are handed).
pub(super) fn methods_called<'c>(code: &'c str, receiver: &'c str) -> Vec<(&'c str, &'c str)> {
    let dot = format!("{receiver}.");
    let calls = code
        .match_indices(&dot)
        .filter(|(at, _)| !code[..*at].ends_with(is_ident));
    calls
        .filter_map(|(at, _)| {
            let rest = &code[at + dot.len()..];
            let name = rest.split(|c: char| !is_ident(c)).next()?;
            rest[name.len()..]
                .starts_with('(')
                .then_some((receiver, name))
        })
        .collect()
}

/// `from` using `to`, as an edge between the two siblings under their
/// lowest common ancestor; none to an ancestor or a descendant.
pub(super) fn sibling_edge(from: &[String], to: &[String]) -> Option<(String, String, String)> {
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
pub(super) fn circles(edges: &Edges) -> Vec<String> {
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
pub(super) fn reach<'e>(edges: &'e Edges, parent: &str, from: &str) -> BTreeSet<&'e String> {
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
pub(super) fn resolve(
    path: &str,
    here: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
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
pub(super) fn paths_named(code: &str) -> Vec<String> {
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
pub(super) fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
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

pub(super) fn is_path_start(word: &str) -> bool {
    matches!(word, "crate" | "super" | "self")
}

pub(super) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `code` without the items only tests compile (`#[cfg(test)]`,
/// `#[cfg(all(test, …))]`), and the modules so declared (`mod x;`), whose
/// files are test code too.
pub(super) fn drop_test_items(code: &str) -> (String, Vec<String>) {
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
pub(super) fn item_end(code: &str) -> usize {
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
pub(super) fn strip(text: &str) -> String {
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

pub(super) fn starts(c: &[char], i: usize, s: &str) -> bool {
    c[i..].iter().take(s.len()).copied().eq(s.chars())
}

pub(super) fn block_comment_end(c: &[char], mut i: usize) -> usize {
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

pub(super) fn string_end(c: &[char], mut i: usize) -> usize {
    i += 1;
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// A raw string at `i` (`r"…"`, `br#"…"#`): where it ends. `r#type`, a
/// raw identifier, is none.
pub(super) fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
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
pub(super) fn char_end(c: &[char], i: usize) -> Option<usize> {
    match (c[i], c.get(i + 1), c.get(i + 2)) {
        ('\'', Some('\\'), _) => (i + 3..c.len()).find(|&k| c[k] == '\'').map(|k| k + 1),
        ('\'', Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}
