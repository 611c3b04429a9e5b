//! The scanner's own tests, on crates written here: each rule it relies on
//! can fail.

use super::scan::{Edges, Sources, circles, edges, module, module_of, paths_named, resolve, strip};
use std::collections::BTreeSet;

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
fn a_registry_method_another_room_defines_is_a_use_of_that_room() {
    let sources = crate_of(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;"),
        (
            "a.rs",
            "impl Registry {\n    fn ask(&self) { self.answer() }\n}",
        ),
        (
            "b.rs",
            "use crate::a::X;\nimpl Registry {\n    fn answer(&self) {}\n}",
        ),
        // Only `self` in an `impl Registry`, and `reg`, are a Registry.
        (
            "c.rs",
            "impl Other {\n    fn f(&self) { self.answer() }\n}\nfn g() { x.ask() }",
        ),
    ]);
    let circle = "circle among crate's children: a, b\n    \
                  a → b (src/a.rs: self.answer(…))\n    \
                  b → a (src/b.rs: crate::a::X)";
    assert_eq!(circles(&edges(&sources, "src/")), [circle]);
    let sources = crate_of(&[
        ("lib.rs", "mod a;\nmod b;"),
        ("a.rs", "impl Registry {\n    fn ask(&self) {}\n}"),
        ("b.rs", "fn f(reg: &Registry) { reg.ask() }"),
    ]);
    let edge = ("crate".to_string(), "b".to_string(), "a".to_string());
    assert_eq!(edges(&sources, "src/")[&edge], "src/b.rs: reg.ask(…)");
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
