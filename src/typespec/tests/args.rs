//! `cli_args`: names, reserved flags, duplicates, choices and defaults.

use super::*;
use serde_json::json;

/// A root type whose `cli_args` are the given YAML list items.
fn with_args(items: &str) -> String {
    root(&format!("cli_args:\n{items}"))
}

#[test]
fn arguments_keep_their_declared_fields() {
    let spec = parsed(&with_args(
        "  - {name: depth, type: integer, default: 3, description: How deep}\n  \
         - {name: mode, type: choice, choices: [fast, safe], default: safe}\n  \
         - {name: dry-run, type: boolean, default: false}\n",
    ));
    let [depth, mode, dry] = &spec.cli_args[..] else {
        panic!("{:?}", spec.cli_args)
    };
    assert_eq!(
        (depth.arg_type, depth.default.clone()),
        (ArgType::Integer, Some(json!(3)))
    );
    assert_eq!(depth.description, "How deep");
    assert!(!depth.required);
    assert_eq!(mode.choices, vec!["fast", "safe"]);
    assert_eq!(mode.default, Some(json!("safe")));
    assert_eq!(dry.default, Some(json!(false)));
}

#[test]
fn an_argument_name_must_be_lowercase_kebab_case() {
    for bad in ["Path", "config_path", "config--path", "-x", "2nd"] {
        refused(
            &with_args(&format!("  - {{name: '{bad}', type: string}}\n")),
            "cli_args[0].name",
            &["not lowercase kebab-case", "--<name>"],
        );
    }
}

#[test]
fn an_argument_may_not_take_a_name_agents_resource_add_uses() {
    for reserved in RESERVED_ARG_NAMES {
        refused(
            &with_args(&format!("  - {{name: {reserved}, type: string}}\n")),
            "cli_args[0].name",
            &[
                &format!("\"{reserved}\" is reserved"),
                "choose another name",
            ],
        );
    }
}

#[test]
fn a_duplicate_argument_is_refused_naming_both_indices() {
    refused(
        &with_args(
            "  - {name: path, type: path}\n  - {name: url, type: string}\n  - {name: path, type: string}\n",
        ),
        "cli_args[2].name",
        &["duplicate argument \"path\"", "cli_args[0]"],
    );
}

#[test]
fn a_choice_argument_needs_choices() {
    refused(
        &with_args("  - {name: mode, type: choice}\n"),
        "cli_args[0].choices",
        &["needs `choices`"],
    );
    refused(
        &with_args("  - {name: mode, type: choice, choices: []}\n"),
        "cli_args[0].choices",
        &["at least one value"],
    );
}

#[test]
fn choices_must_be_distinct_and_non_empty() {
    refused(
        &with_args("  - {name: mode, type: choice, choices: [fast, safe, fast]}\n"),
        "cli_args[0].choices[2]",
        &["duplicate choice \"fast\"", "choices[0]"],
    );
    refused(
        &with_args("  - {name: mode, type: choice, choices: [fast, '']}\n"),
        "cli_args[0].choices[1]",
        &["empty string"],
    );
}

#[test]
fn only_a_choice_argument_may_have_choices() {
    refused(
        &with_args("  - {name: mode, type: string, choices: [fast]}\n"),
        "cli_args[0].choices",
        &["only a `choice` argument", "`string`"],
    );
}

#[test]
fn a_default_must_match_the_argument_type() {
    let cases = [
        ("string", "5", "must be text"),
        ("string", "true", "must be text"),
        ("path", "''", "non-empty path"),
        ("integer", "'5'", "whole number"),
        ("integer", "1.5", "whole number"),
        ("boolean", "'true'", "true or false"),
        ("boolean", "1", "true or false"),
    ];
    for (arg_type, default, reason) in cases {
        refused(
            &with_args(&format!(
                "  - {{name: x, type: {arg_type}, default: {default}}}\n"
            )),
            "cli_args[0].default",
            &[reason, &format!("`{arg_type}` argument")],
        );
    }
}

#[test]
fn a_choice_default_must_be_one_of_the_choices() {
    refused(
        &with_args("  - {name: mode, type: choice, choices: [fast, safe], default: quick}\n"),
        "cli_args[0].default",
        &["\"quick\" is not one of the choices (fast, safe)"],
    );
}

#[test]
fn a_required_argument_with_a_default_is_refused() {
    refused(
        &with_args("  - {name: branch, type: string, required: true, default: main}\n"),
        "cli_args[0].default",
        &["required argument cannot have a default", "required: false"],
    );
}
