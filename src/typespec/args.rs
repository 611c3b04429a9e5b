//! Registration arguments (`cli_args`): what one type file may declare
//! as `--flags` of `agents resource add TYPE`.
//!
//! An argument becomes a command-line flag, so its name follows the
//! flag's rules (lowercase kebab-case, not a flag the command already
//! has) and is unique within the file. Its `default` is checked against
//! its `type` here and stored as the JSON value the registry will put in
//! the resource's properties, so nothing later re-reads YAML. A
//! contradiction — `required: true` with a `default`, `choices` on a
//! non-`choice` — is refused rather than resolved by picking one side.
//!
//! Uniqueness is per file. A subtype that repeats an inherited name is
//! not a duplicate but an override; the resolver handles that.

use super::raw::RawArg;
use super::{Site, SpecError};
use crate::model::{ArgType, TypeArgument, kebab_problem};
use serde_yaml::Value;

/// Flags `agents resource add` has of its own; an argument may not take
/// one of these names.
pub const RESERVED_ARG_NAMES: [&str; 8] = [
    "name",
    "description",
    "sandbox-strategy",
    "read-only",
    "home",
    "output",
    "verbose",
    "help",
];

/// Check every argument of one file, in order.
pub(super) fn check(raw: Vec<RawArg>, at: &Site<'_>) -> Result<Vec<TypeArgument>, SpecError> {
    let mut args: Vec<TypeArgument> = Vec::with_capacity(raw.len());
    for (i, arg) in raw.into_iter().enumerate() {
        let checked = one(arg, i, at)?;
        if let Some(first) = args.iter().position(|a| a.name == checked.name) {
            return Err(at.refuse(
                format_args!("cli_args[{i}].name"),
                format!(
                    "duplicate argument \"{}\": cli_args[{first}] already declares it",
                    checked.name
                ),
            ));
        }
        args.push(checked);
    }
    Ok(args)
}

fn one(raw: RawArg, i: usize, at: &Site<'_>) -> Result<TypeArgument, SpecError> {
    let path = format!("cli_args[{i}]");
    if let Some(problem) = kebab_problem(&raw.name) {
        return Err(at.refuse(
            format_args!("{path}.name"),
            format!(
                "argument name {:?} is not lowercase kebab-case ({problem}); it becomes the \
                 flag --<name>, e.g. config-path",
                raw.name
            ),
        ));
    }
    if RESERVED_ARG_NAMES.contains(&raw.name.as_str()) {
        return Err(at.refuse(
            format_args!("{path}.name"),
            format!(
                "\"{}\" is reserved: `agents resource add` has its own --{}; choose another \
                 name (reserved: {})",
                raw.name,
                raw.name,
                RESERVED_ARG_NAMES.join(", ")
            ),
        ));
    }
    let choices = choices(&raw, &path, at)?;
    let required = raw.required.unwrap_or(false);
    let default = match raw.default {
        None => None,
        Some(_) if required => {
            return Err(at.refuse(
                format_args!("{path}.default"),
                "a required argument cannot have a default: the user must always give it, so the \
                 default would never apply; remove `default` or set `required: false`",
            ));
        }
        Some(value) => Some(
            default_value(&value, raw.arg_type, &choices)
                .map_err(|reason| at.refuse(format_args!("{path}.default"), reason))?,
        ),
    };
    Ok(TypeArgument {
        name: raw.name,
        arg_type: raw.arg_type,
        required,
        description: raw.description.unwrap_or_default(),
        default,
        choices,
    })
}

/// `choices` belongs to `choice` arguments, which need a non-empty list
/// of distinct, non-empty values.
fn choices(raw: &RawArg, path: &str, at: &Site<'_>) -> Result<Vec<String>, SpecError> {
    match (raw.arg_type, &raw.choices) {
        (ArgType::Choice, None) => Err(at.refuse(
            format_args!("{path}.choices"),
            "a `choice` argument needs `choices`: the list of values it accepts",
        )),
        (ArgType::Choice, Some(list)) if list.is_empty() => Err(at.refuse(
            format_args!("{path}.choices"),
            "a `choice` argument needs at least one value in `choices`",
        )),
        (ArgType::Choice, Some(list)) => {
            for (k, choice) in list.iter().enumerate() {
                if choice.is_empty() {
                    return Err(at.refuse(
                        format_args!("{path}.choices[{k}]"),
                        "a choice cannot be the empty string",
                    ));
                }
                if let Some(first) = list[..k].iter().position(|c| c == choice) {
                    return Err(at.refuse(
                        format_args!("{path}.choices[{k}]"),
                        format!("duplicate choice {choice:?}: already listed at choices[{first}]"),
                    ));
                }
            }
            Ok(list.clone())
        }
        (other, Some(_)) => Err(at.refuse(
            format_args!("{path}.choices"),
            format!(
                "only a `choice` argument has `choices`, and this one is `{}`; remove `choices` \
                 or use `type: choice`",
                other.as_str()
            ),
        )),
        (_, None) => Ok(Vec::new()),
    }
}

/// The default as the JSON value it will be stored as, if it fits the
/// argument's type. No coercion: `5` is not a string default, `"5"` is
/// not an integer one.
fn default_value(
    value: &Value,
    arg_type: ArgType,
    choices: &[String],
) -> Result<serde_json::Value, String> {
    let wrong = |what: &str| {
        format!(
            "the default of a `{}` argument must be {what}, found {}",
            arg_type.as_str(),
            describe(value)
        )
    };
    match (arg_type, value) {
        (ArgType::String, Value::String(s)) => Ok(s.clone().into()),
        (ArgType::String, _) => Err(wrong("text (quote it: \"5\", \"true\")")),
        (ArgType::Path, Value::String(s)) if !s.is_empty() => Ok(s.clone().into()),
        (ArgType::Path, _) => Err(wrong("a non-empty path")),
        (ArgType::Integer, _) => value
            .as_i64()
            .map(serde_json::Value::from)
            .ok_or_else(|| wrong("a whole number that fits in 64 bits")),
        (ArgType::Boolean, Value::Bool(b)) => Ok((*b).into()),
        (ArgType::Boolean, _) => Err(wrong("true or false")),
        (ArgType::Choice, Value::String(s)) if choices.contains(s) => Ok(s.clone().into()),
        (ArgType::Choice, _) => Err(format!(
            "the default {} is not one of the choices ({})",
            describe(value),
            choices.join(", ")
        )),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text {s:?}"),
        Value::Sequence(_) => "a list".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
        Value::Tagged(_) => "a tagged value".to_owned(),
    }
}
