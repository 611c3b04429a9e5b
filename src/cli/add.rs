//! `agents resource add TYPE [NAME] [flags]`: the one verb whose flags
//! depend on its argument. The static parser takes everything after TYPE
//! as raw text; here the registry's [`RegistrationForm`] for TYPE becomes a
//! real clap [`Command`] (built at runtime, one flag per `cli_args` entry),
//! which parses the rest — so `--flag=value`, `--help`, errors and
//! completions behave like every other verb. Syntax is clap's; the rules
//! (value types, paths, defaults) stay the registry's (`registry::args`).
//!
//! A type's texts — its description, an argument's description, default
//! and choices — are the type file's, so they reach help and completion
//! scripts escaped: descriptions and defaults through `escape_line`, and a
//! choice that is not a plain word ([`plain_word`]) is hidden from help,
//! errors and completions (it is still accepted when typed) — in a bash
//! script a choice is a word of `compgen -W "…"`, where `$(…)`, a quote or
//! a blank would be run or split.

use super::output::{Format, emit};
use super::{Context, Failure, Outcome};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint};
use resource_host::model::{ArgType, SandboxStrategy, TypeArgument};
use resource_host::registry::{NewResource, RegistrationForm, Registry};
use resource_host::text::escape_line;

/// The form of each type a person can add: what `resource add` completes
/// and `register_resource`'s input schema offers (MCP).
pub fn addable_forms(registry: &Registry) -> Result<Vec<RegistrationForm>, Failure> {
    let mut forms = Vec::new();
    for ty in registry.list_types(None)? {
        if ty.is_user_addable() {
            forms.push(registry.registration_form(ty.name.as_str())?);
        }
    }
    Ok(forms)
}

/// Run `add TYPE REST…`.
pub fn run(ctx: &Context, type_name: String, rest: Vec<String>) -> Outcome {
    if type_name == "--help" || type_name == "-h" {
        // clap's own help is off for `add` so that `add TYPE --help` can
        // show the type's flags; without a type, show the verb's help.
        let mut cmd = <super::Cli as clap::CommandFactory>::command();
        let add = cmd
            .find_subcommand_mut("resource")
            .and_then(|r| r.find_subcommand_mut("add"))
            .map(|a| a.clone().bin_name("agents resource add"));
        if let Some(mut add) = add {
            let help = add.render_long_help().to_string();
            return emit(Format::Table, &(), || help);
        }
    }
    let mut registry = ctx.open()?;
    let form = registry.registration_form(&type_name)?;
    let mut command = command(&form);
    let bin = command.get_name().to_owned();
    let matches = command
        .try_get_matches_from_mut(std::iter::once(bin).chain(rest))
        .map_err(|e| with_flag_list(e, &form))?;
    super::logger::raise(matches.get_count("verbose"));
    let format = matches
        .get_one::<Format>("output")
        .copied()
        .unwrap_or(ctx.format);
    let request = request(&form, &matches);
    // A malformed name is a usage error, as for every NAME_OR_ID.
    if let Some(name) = &request.name
        && let Err(refused) = resource_host::model::ResourceName::parse_chosen(name)
    {
        return Err(Failure::Usage(refused.to_string()));
    }
    let mut progress = super::output::Progress::new("discovering");
    let resource = registry.register_resource(
        request,
        resource_host::registry::RegisterOptions {
            progress: Some(&mut |p| progress.show(p)),
        },
    )?;
    progress.done();
    emit(format, &resource, || {
        format!(
            "registered {} ({}) id {}\n",
            resource.label(),
            resource.resource_type_name,
            resource.resource_id
        )
    })
}

/// The command line of `agents resource add TYPE`: NAME, one flag per
/// argument of the type, and the options every registration has.
pub fn command(form: &RegistrationForm) -> Command {
    let strategies: Vec<&'static str> = SandboxStrategy::ALL.iter().map(|s| s.as_str()).collect();
    Command::new(form.type_name.to_string())
        .bin_name(format!("agents resource add {}", form.type_name))
        .about(format!(
            "Register a resource of type {}: {}",
            form.type_name,
            escape_line(&form.description)
        ))
        .disable_help_flag(true)
        .arg(
            Arg::new("name")
                .value_name("NAME")
                .help("The resource's namespaced name (e.g. local/api-repo); optional"),
        )
        .next_help_heading("Type flags")
        .args(form.args.iter().map(type_flag))
        .next_help_heading("Options")
        .arg(
            Arg::new("description")
                .long("description")
                .value_name("TEXT")
                .help("One line for people"),
        )
        .arg(
            Arg::new("sandbox-strategy")
                .long("sandbox-strategy")
                .value_name("STRATEGY")
                .value_parser(PossibleValuesParser::new(strategies))
                .help(format!(
                    "Override the type's sandbox strategy ({})",
                    form.sandbox_strategy
                )),
        )
        .arg(
            Arg::new("read-only")
                .long("read-only")
                .action(ArgAction::SetTrue)
                .help("Register the resource read-only"),
        )
        // The global options, as the top-level command declares them (a
        // global option does not reach a command built at runtime).
        .arg(super::global_arg("output"))
        .arg(super::global_arg("verbose"))
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help("Print help"),
        )
}

/// One `cli_args` entry as a flag: `--name <type>`.
fn type_flag(a: &TypeArgument) -> Arg {
    let mut help = escape_line(&a.description).into_owned();
    if let Some(default) = &a.default {
        help.push_str(&format!(
            " [default: {}]",
            escape_line(&default.to_string())
        ));
    }
    let arg = Arg::new(a.name.clone())
        .long(a.name.clone())
        .value_name(a.arg_type.as_str())
        .required(a.required && a.default.is_none())
        .help(help.trim().to_owned());
    match a.arg_type {
        // A bare `--flag` means true; `--flag=false` says false.
        ArgType::Boolean => arg
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_parser(PossibleValuesParser::new(["true", "false"])),
        ArgType::Choice => arg.value_parser(PossibleValuesParser::new(
            a.choices
                .iter()
                .map(|c| PossibleValue::new(c.clone()).hide(!plain_word(c))),
        )),
        ArgType::Path => arg.value_hint(ValueHint::AnyPath),
        ArgType::String | ArgType::Integer => arg,
    }
}

/// Is `choice` safe to show and to offer in a completion script: letters,
/// digits and `._+:/@%,=-`, not starting with `-`? (No blank, quote,
/// `$`, backquote, backslash, brace, `~` or control character, which a
/// shell would expand, split or run, or a terminal obey.)
fn plain_word(choice: &str) -> bool {
    !choice.is_empty()
        && !choice.starts_with('-')
        && choice
            .chars()
            .all(|c| c.is_alphanumeric() || "._+:/@%,=-".contains(c))
}

/// The registration the parsed flags ask for.
fn request(form: &RegistrationForm, m: &ArgMatches) -> NewResource {
    let text = |id: &str| m.get_one::<String>(id).cloned();
    NewResource {
        type_name: form.type_name.to_string(),
        name: text("name"),
        args: form
            .args
            .iter()
            .filter_map(|a| text(&a.name).map(|v| (a.name.clone(), v)))
            .collect(),
        description: text("description"),
        sandbox_strategy: text("sandbox-strategy"),
        read_only: m.get_flag("read-only"),
        base_dir: std::env::current_dir().ok(),
    }
}

/// An unknown flag's error, plus the flags this type does take.
fn with_flag_list(err: clap::Error, form: &RegistrationForm) -> Failure {
    if err.kind() != clap::error::ErrorKind::UnknownArgument {
        return Failure::Clap(err);
    }
    let flags: Vec<String> = form.args.iter().map(|a| format!("--{}", a.name)).collect();
    let valid = if flags.is_empty() {
        "none (this type takes no arguments)".to_owned()
    } else {
        flags.join(", ")
    };
    Failure::Usage(format!(
        "{}\nthe flags of type {}: {valid}",
        super::clap_message(&err).trim_end(),
        form.type_name
    ))
}
