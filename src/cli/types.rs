//! `agents resource type …`: add, list, show, explain, remove.

use super::output::{self, emit, fields, list, or_dash, table};
use super::{Context, Failure, Outcome};
use clap::Subcommand;
use resource_host::model::{ResolvedType, ResourceKind, Sourced, TypeArgument, TypeName};
use resource_host::registry::{RegisterTypeOptions, Registry, TypeView};
use resource_host::text::escape_line;
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum TypeCommand {
    /// Register a custom type from a YAML file.
    #[command(after_help = "Examples:\n  \
        agents resource type add types/python-package.yaml\n  \
        agents resource type add --config ./types/my-db-type.yaml\n  \
        agents resource type add --replace types/python-package.yaml\n\n\
        A type that is already registered is refused unless --replace is given; a \
        replacement is refused when it would break a subtype, a registered resource \
        or an existing link.")]
    Add {
        /// The type file (YAML).
        #[arg(
            value_name = "FILE",
            required_unless_present = "config",
            conflicts_with = "config"
        )]
        file: Option<PathBuf>,
        /// The type file (YAML), as a flag.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Replace a registered type of the same name.
        #[arg(long)]
        replace: bool,
    },
    /// List types (all, or one namespace; `builtin` for the built-ins).
    #[command(after_help = "Examples:\n  agents resource type list\n  \
        agents resource type list --namespace myteam\n  agents resource type list -o json")]
    List {
        #[arg(long, value_name = "NS")]
        namespace: Option<String>,
    },
    /// Show a type as it is in effect (after inheritance).
    #[command(after_help = "Examples:\n  agents resource type show git-checkout\n  \
        agents resource type show myteam/python-package -o yaml")]
    Show { name: String },
    /// Show a type after inheritance, saying where each field and list item came from.
    #[command(after_help = "Examples:\n  agents resource type explain devcontainer-instance")]
    Explain { name: String },
    /// Remove a custom type no subtype, resource or other type uses.
    #[command(after_help = "Examples:\n  agents resource type remove myteam/python-package")]
    Remove { name: String },
}

pub fn run(ctx: &Context, cmd: TypeCommand) -> Outcome {
    let mut registry = ctx.open()?;
    match cmd {
        TypeCommand::Add {
            file,
            config,
            replace,
        } => {
            let path = file.or(config).unwrap_or_default();
            let mut options = RegisterTypeOptions::default();
            options.replace = replace;
            let view = registry.register_type(&path, options)?;
            emit(ctx.format, &view, || {
                format!("registered type {} (from {})\n", view.name, path.display())
            })
        }
        TypeCommand::List { namespace } => {
            let views = registry.list_types(namespace.as_deref())?;
            emit(ctx.format, &views, || type_table(&views))
        }
        TypeCommand::Show { name } => {
            let view = registry.show_type(&name)?;
            let identities = identity_types(&registry)?;
            emit(ctx.format, &view, || show(&view, &identities))
        }
        TypeCommand::Explain { name } => {
            let view = registry.resolved_type(&name)?;
            let identities = identity_types(&registry)?;
            emit(ctx.format, &view, || explain(&view, &identities))
        }
        TypeCommand::Remove { name } => {
            registry.remove_type(&name)?;
            emit(ctx.format, &serde_json::json!({ "removed": name }), || {
                format!("removed type {name}\n")
            })
        }
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_owned()
}

fn type_table(views: &[TypeView]) -> String {
    let rows: Vec<Vec<String>> = views
        .iter()
        .map(|v| {
            vec![
                v.name.to_string(),
                v.kind().to_string(),
                v.sandbox_strategy().to_string(),
                yes_no(v.is_user_addable()),
                or_dash(v.inherits()),
                or_dash(v.handler_ref()),
            ]
        })
        .collect();
    table(
        &["NAME", "KIND", "SANDBOX", "ADDABLE", "INHERITS", "HANDLER"],
        &rows,
    )
}

/// One registration argument as a flag: `--name <type> (required) …  description`,
/// escaped: the default, the choices and the description are the type
/// file's text.
pub(super) fn arg_line(a: &TypeArgument) -> String {
    escape_line(&raw_arg_line(a)).into_owned()
}

fn raw_arg_line(a: &TypeArgument) -> String {
    let mut text = format!("--{} <{}>", a.name, a.arg_type.as_str());
    if a.required {
        text.push_str(" (required)");
    }
    if let Some(d) = &a.default {
        text.push_str(&format!(" [default: {d}]"));
    }
    if !a.choices.is_empty() {
        text.push_str(&format!(" [one of: {}]", a.choices.join(", ")));
    }
    if !a.description.is_empty() {
        text.push_str(&format!("  {}", a.description));
    }
    text
}

/// The virtual types: a parent of one of those is an identity its
/// members are linked below, not a place the type is found in.
fn identity_types(registry: &Registry) -> Result<HashSet<TypeName>, Failure> {
    Ok(registry
        .list_types(None)?
        .iter()
        .filter(|t| t.kind() == ResourceKind::Virtual)
        .map(|t| t.name.clone())
        .collect())
}

/// A parent type as text, a virtual one said to be an identity.
fn parent_text(t: &TypeName, identities: &HashSet<TypeName>) -> String {
    if identities.contains(t) {
        format!("{t} (virtual identity)")
    } else {
        t.to_string()
    }
}

fn show(v: &TypeView, identities: &HashSet<TypeName>) -> String {
    let mut text = fields(&[
        ("name", v.name.to_string()),
        ("description", v.description().to_owned()),
        ("resource_kind", v.kind().to_string()),
        ("sandbox_strategy", v.sandbox_strategy().to_string()),
        ("user_addable", yes_no(v.is_user_addable())),
        ("built_in", yes_no(v.built_in)),
        ("inherits", or_dash(v.inherits())),
        ("handler", or_dash(v.handler_ref())),
        (
            "parent_types",
            list(v.parent_type_names().map(|t| parent_text(t, identities))),
        ),
        ("child_types", list(v.child_type_names())),
        ("capabilities", list(v.type_capabilities().enabled())),
        ("source", v.origin.source.clone()),
    ]);
    text.push_str(&output::bold("cli_args:"));
    text.push('\n');
    if v.cli_args.is_empty() {
        text.push_str("  (none)\n");
    }
    for a in v.args() {
        text.push_str(&format!("  {}\n", arg_line(a)));
    }
    if let Some(auto) = v.discovery() {
        text.push_str(&format!(
            "{} {}\n",
            output::bold("auto_discovery:"),
            if auto.enabled { "enabled" } else { "disabled" }
        ));
        for r in &auto.rules {
            text.push_str(&format!("  {}  {}\n", r.type_name, escape_line(&r.pattern)));
        }
    }
    if let Some(eq) = v.equivalence_config() {
        text.push_str(&format!(
            "{} links {}; match on {}\n",
            output::bold("equivalence:"),
            list(&eq.links),
            escape_line(&eq.match_on.join(", "))
        ));
    }
    text
}

/// "(from X)" for an inherited value, "(default)" for a resolver default,
/// nothing for the type's own.
fn origin<T>(s: &Sourced<T>, own: &resource_host::model::TypeName) -> String {
    match &s.from {
        Some(from) if from == own => String::new(),
        Some(from) => format!("  (from {from})"),
        None => "  (default)".to_owned(),
    }
}

fn explain(v: &ResolvedType, identities: &HashSet<TypeName>) -> String {
    let own = &v.name;
    let chain = v
        .chain
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" → ");
    let cap = |name: &str, s: &Sourced<bool>| format!("{name}={}{}", s.value, origin(s, own));
    let mut text = fields(&[
        ("name", v.name.to_string()),
        ("chain", chain),
        (
            "description",
            format!("{}{}", v.description.value, origin(&v.description, own)),
        ),
        (
            "resource_kind",
            format!("{}{}", v.kind.value, origin(&v.kind, own)),
        ),
        (
            "sandbox_strategy",
            format!(
                "{}{}",
                v.sandbox_strategy.value,
                origin(&v.sandbox_strategy, own)
            ),
        ),
        (
            "user_addable",
            format!(
                "{}{}",
                yes_no(v.user_addable.value),
                origin(&v.user_addable, own)
            ),
        ),
        (
            "handler",
            v.handler.as_ref().map_or_else(
                || "-  (default)".to_owned(),
                |h| format!("{}{}", h.value, origin(h, own)),
            ),
        ),
    ]);
    text.push_str(&output::bold("capabilities:"));
    text.push('\n');
    for (name, s) in v.capabilities.named() {
        text.push_str(&format!("  {}\n", cap(name, s)));
    }
    let mut section = |title: &str, items: Vec<(String, String)>| {
        text.push_str(&output::bold(&format!("{title}:")));
        text.push('\n');
        if items.is_empty() {
            text.push_str("  (none)\n");
        }
        for (item, from) in items {
            text.push_str(&format!("  {}{from}\n", escape_line(&item)));
        }
    };
    section(
        "cli_args",
        v.cli_args
            .iter()
            .map(|a| (arg_line(&a.value), origin(a, own)))
            .collect(),
    );
    section(
        "parent_types",
        v.parent_types
            .iter()
            .map(|t| (parent_text(&t.value, identities), origin(t, own)))
            .collect(),
    );
    section(
        "child_types",
        v.child_types
            .iter()
            .map(|t| (t.value.to_string(), origin(t, own)))
            .collect(),
    );
    if let Some(auto) = &v.auto_discovery {
        section(
            "auto_discovery",
            auto.value
                .rules
                .iter()
                .map(|r| (format!("{}  {}", r.type_name, r.pattern), origin(auto, own)))
                .collect(),
        );
    }
    text
}
