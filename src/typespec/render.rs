//! [`TypeSpec`] → the text of a type file: the inverse of
//! [`parse_type_file`](super::parse_type_file), for a registry that keeps
//! declared specs, not the files they came from, and must hand a type on
//! (`agents registry export`).
//!
//! The text says exactly what the spec declares — a field left to
//! inheritance stays out, `*_replace` appears only when set — in the
//! order of the spec's `ResourceTypeSpec` table, so reading it back gives
//! an equal spec (the tests hold every built-in type and the examples to
//! that). It is plain YAML a person can save and `type add`.

use crate::model::{
    AutoDiscovery, Equivalence, HandlerRef, ResourceKind, SandboxStrategy, TypeArgument,
    TypeCapabilitiesDecl, TypeName, TypeSpec,
};
use serde::Serialize;

/// The type-file mapping, field by field as `raw::RawTypeSpec` reads it.
#[derive(Serialize)]
struct Rendered<'a> {
    name: &'a TypeName,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_kind: Option<ResourceKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox_strategy: Option<SandboxStrategy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_addable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    built_in: Option<bool>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    cli_args: &'a [TypeArgument],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    parent_types: &'a [TypeName],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    child_types: &'a [TypeName],
    #[serde(skip_serializing_if = "Option::is_none")]
    handler: Option<&'a HandlerRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    capabilities: Option<&'a TypeCapabilitiesDecl>,
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_discovery: Option<&'a AutoDiscovery>,
    #[serde(skip_serializing_if = "Option::is_none")]
    equivalence: Option<&'a Equivalence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inherits: Option<&'a TypeName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cli_args_replace: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_types_replace: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    child_types_replace: Option<bool>,
}

/// The YAML text of `spec` as a type file (a catalogue entry's text when
/// the spec is built in: `built_in: true` is then written).
pub fn render_type_file(spec: &TypeSpec) -> String {
    let set = |flag: bool| flag.then_some(true);
    let rendered = Rendered {
        name: &spec.name,
        description: spec.description.as_deref(),
        resource_kind: spec.kind,
        sandbox_strategy: spec.sandbox_strategy,
        user_addable: spec.user_addable,
        built_in: set(spec.built_in),
        cli_args: &spec.cli_args,
        parent_types: &spec.parent_types,
        child_types: &spec.child_types,
        handler: spec.handler.as_ref(),
        capabilities: Some(&spec.capabilities).filter(|c| **c != TypeCapabilitiesDecl::default()),
        auto_discovery: spec.auto_discovery.as_ref(),
        equivalence: spec.equivalence.as_ref(),
        inherits: spec.inherits.as_ref(),
        cli_args_replace: set(spec.replace.cli_args),
        parent_types_replace: set(spec.replace.parent_types),
        child_types_replace: set(spec.replace.child_types),
    };
    serde_yaml::to_string(&rendered)
        .unwrap_or_else(|e| unreachable!("a type spec renders as YAML: {e}"))
}

#[cfg(test)]
mod tests {
    use super::super::{parse_catalogue, parse_type_file};
    use super::*;

    #[track_caller]
    fn round_trips(yaml: &str) {
        let spec = parse_type_file(yaml, "t.yaml").unwrap();
        let text = render_type_file(&spec);
        let again = parse_type_file(&text, "rendered")
            .unwrap_or_else(|e| panic!("the rendered text is refused: {e}\n{text}"));
        assert_eq!(again, spec, "{text}");
    }

    #[test]
    fn every_built_in_type_reads_back_equal_from_its_rendered_text() {
        let specs = crate::builtin::specs();
        assert!(specs.len() > 10);
        let text: String = specs
            .iter()
            .map(|s| {
                let one = render_type_file(s);
                let mut lines = one.lines();
                let mut entry = format!("- {}\n", lines.next().unwrap());
                for line in lines {
                    entry.push_str(&format!("  {line}\n"));
                }
                entry
            })
            .collect();
        let again = parse_catalogue(&text, "rendered").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(again, specs);
    }

    #[test]
    fn the_spec_examples_and_every_field_read_back_equal() {
        round_trips(include_str!("../../tests/data/python-package.yaml"));
        round_trips(include_str!("../../types/sqlite-database.yaml"));
        round_trips(
            "name: acme/full\ndescription: 'quotes '' and: colons # here'\n\
             inherits: fs-directory\nuser_addable: false\nsandbox_strategy: none\n\
             cli_args_replace: true\nparent_types_replace: true\n\
             cli_args:\n  - {name: path, type: path, required: true, description: where}\n\
             \x20 - {name: level, type: integer, default: 3}\n\
             \x20 - {name: tag, type: string, default: \"5\"}\n\
             \x20 - {name: fast, type: boolean, default: false}\n\
             \x20 - {name: mode, type: choice, choices: [a, 'yes'], default: 'yes'}\n\
             parent_types: [git-checkout]\nhandler: {module: acme.x, class: X}\n\
             capabilities: {write: true}\n\
             auto_discovery: {enabled: true, rules: [{type: fs-file, pattern: '*.py'}]}\n",
        );
        round_trips(
            "name: acme/same\nresource_kind: virtual\nchild_types: [fs-file]\n\
             equivalence: {links: [fs-file], match: [size], where: {kind: [a, b]}}\n",
        );
    }

    #[test]
    fn a_field_left_to_inheritance_stays_out_of_the_text() {
        let spec = parse_type_file("name: acme/sub\ninherits: fs-directory\n", "t").unwrap();
        assert_eq!(
            render_type_file(&spec),
            "name: acme/sub\ninherits: fs-directory\n"
        );
    }
}
