//! `agents resource add TYPE [NAME] [flags]`: the one verb whose flags
//! depend on its argument. clap takes everything after TYPE as raw text;
//! here it is split into NAME, the verb's own options and the type's
//! flags, which the registry then checks against the type's `cli_args`
//! (`registry::args`) — syntax here, rules there.

use super::output::{self, Format, emit};
use super::types;
use super::{Context, Failure, Outcome};
use resource_host::model::ArgType;
use resource_host::registry::{NewResource, TypeView};

/// `add TYPE [NAME] [flags]`: the flags depend on the type, so they are
/// parsed here against the type's arguments once it is known.
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
    let ty = registry.show_type(&type_name)?;
    let mut request = NewResource {
        type_name,
        base_dir: std::env::current_dir().ok(),
        ..NewResource::default()
    };
    let mut format = ctx.format;
    let mut tokens = rest.into_iter();
    while let Some(token) = tokens.next() {
        let Some(flag) = token.strip_prefix("--").or_else(|| short(&token)) else {
            if request.name.is_some() {
                return Err(Failure::Usage(format!(
                    "unexpected argument {token:?}: NAME was already given ({})",
                    request.name.unwrap_or_default()
                )));
            }
            request.name = Some(token);
            continue;
        };
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f.to_owned(), Some(v.to_owned())),
            None => (flag.to_owned(), None),
        };
        let is_bool = matches!(
            flag.as_str(),
            "read-only" | "verbose" | "vv" | "vvv" | "help"
        ) || ty
            .cli_args
            .iter()
            .any(|a| a.name == flag && a.arg_type == ArgType::Boolean);
        let value = match (inline, is_bool) {
            (Some(v), _) => v,
            (None, true) => "true".to_owned(),
            (None, false) => tokens.next().ok_or_else(|| {
                Failure::Usage(format!("--{flag} needs a value (--{flag} VALUE)"))
            })?,
        };
        match flag.as_str() {
            "help" => return emit(Format::Table, &(), || type_help(&ty)),
            "description" => request.description = Some(value),
            "sandbox-strategy" => request.sandbox_strategy = Some(value),
            "read-only" => request.read_only = value == "true",
            "output" => format = parse_format(&value)?,
            "verbose" => raise_log_level(1),
            "vv" => raise_log_level(2),
            "vvv" => raise_log_level(3),
            _ => request.args.push((flag, value)),
        }
    }
    let resource = registry.register_resource(request)?;
    emit(format, &resource, || {
        format!(
            "registered {} ({}) id {}\n",
            resource.label(),
            resource.resource_type_name,
            resource.resource_id
        )
    })
}

/// `-o` and `-v` may follow the type's flags too.
fn short(token: &str) -> Option<&'static str> {
    match token {
        "-o" => Some("output"),
        "-v" => Some("verbose"),
        "-vv" => Some("vv"),
        "-vvv" => Some("vvv"),
        "-h" => Some("help"),
        _ => None,
    }
}

/// `-v` given after the type's flags: log `steps` levels more than warn.
fn raise_log_level(steps: usize) {
    let level = [
        log::LevelFilter::Info,
        log::LevelFilter::Debug,
        log::LevelFilter::Trace,
    ][steps.clamp(1, 3) - 1];
    log::set_max_level(log::max_level().max(level));
}

fn parse_format(text: &str) -> Result<Format, Failure> {
    <Format as clap::ValueEnum>::from_str(text, true).map_err(|_| {
        Failure::Usage(format!(
            "invalid output format {text:?}: use table, json or yaml"
        ))
    })
}

fn type_help(ty: &TypeView) -> String {
    let mut text = format!(
        "Register a resource of type {}: {}\n\nUsage: agents resource add {} [NAME] [FLAGS]\n\n",
        ty.name, ty.description, ty.name
    );
    text.push_str(&output::bold("Type flags:"));
    text.push('\n');
    if ty.cli_args.is_empty() {
        text.push_str("  (none)\n");
    }
    for a in &ty.cli_args {
        text.push_str(&format!("  {}\n", types::arg_line(a)));
    }
    text.push_str(&format!(
        "\n{}\n  --description <TEXT>\n  --sandbox-strategy <STRATEGY>  (default: {})\n  \
         --read-only\n",
        output::bold("Options:"),
        ty.sandbox_strategy
    ));
    text
}
