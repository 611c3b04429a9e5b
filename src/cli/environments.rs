//! `agents project context …`, `agents plan …` and `agents env resolve`:
//! where tools run (the reference's six-level routing).

use super::output::{emit, fields};
use super::{Context, Outcome};
use clap::{Args, Subcommand};
use resource_host::model::ResourceKey;
use resource_host::model::SettingScope;
use resource_host::registry::{DEFAULT_PLAN, EnvironmentKey, SettingView, ToolRequest};
use resource_host::routing::{Priority, Route};

/// `--execution-environment R --execution-env-priority P`.
#[derive(Debug, Args)]
pub struct SettingArgs {
    /// A container-instance (or subtype) by name or id, or `host`.
    #[arg(long, value_name = "RESOURCE", value_parser = parse_environment)]
    execution_environment: EnvironmentKey,
    /// override: beats a detected devcontainer; fallback: only when none is detected.
    #[arg(long, value_name = "PRIORITY", value_parser = parse_priority)]
    execution_env_priority: Priority,
}

#[derive(Debug, Subcommand)]
pub enum ProjectCommand {
    /// The project's settings (the project is this registry's home).
    #[command(subcommand)]
    Context(ContextCommand),
}

#[derive(Debug, Subcommand)]
pub enum ContextCommand {
    /// Set where the project's tools run (routing levels 2 and 5).
    #[command(after_help = "Examples:\n  agents project context set \
        --execution-environment local/api-dev --execution-env-priority fallback")]
    Set(SettingArgs),
    /// Show the project's setting.
    Show,
    /// Remove the project's setting.
    Unset,
}

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Set where a plan's tools run (routing levels 1 and 4).
    #[command(
        after_help = "Without --plan the setting is the default plan's, which \
        `agents env resolve` uses when it is given no --plan.\n\n\
        Examples:\n  agents plan use --execution-environment local/api-dev \
        --execution-env-priority override\n  \
        agents plan use --plan nightly --execution-environment host --execution-env-priority fallback"
    )]
    Use {
        #[command(flatten)]
        setting: SettingArgs,
        /// The plan (default: the default plan).
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
    },
    /// Show one plan's setting, or every stored setting.
    Show {
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
    },
    /// Remove a plan's setting.
    Unset {
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum EnvCommand {
    /// Where a tool acting on RESOURCE runs, and which level decided.
    #[command(
        after_help = "Levels, highest first: 1 the plan's setting with priority \
        override, 2 the project's with override, 3 the nearest-ancestor devcontainer, 4 the \
        plan's with fallback, 5 the project's with fallback, 6 the host. --tool-env \
        specific:NAME beats them all; required:container refuses the host; \
        preferred:container is a hint.\n\n\
        Examples:\n  agents env resolve local/api-repo\n  \
        agents env resolve local/api-repo --plan nightly --tool-env required:container"
    )]
    Resolve {
        #[arg(value_name = "RESOURCE", value_parser = super::keys::key_arg)]
        key: ResourceKey,
        /// The plan whose setting applies (default: the default plan).
        #[arg(long, value_name = "NAME")]
        plan: Option<String>,
        /// The tool's preference: required:container, preferred:container or specific:NAME.
        #[arg(long, value_name = "PREFERENCE", value_parser = ToolRequest::parse)]
        tool_env: Option<ToolRequest>,
        /// Also make the environment ready, as running a tool would: a
        /// devcontainer that is not running is built and started.
        #[arg(long)]
        activate: bool,
    },
}

fn parse_environment(text: &str) -> Result<EnvironmentKey, String> {
    EnvironmentKey::parse(text).map_err(|e| e.to_string())
}

fn parse_priority(text: &str) -> Result<Priority, String> {
    Priority::parse(text).ok_or_else(|| "use override or fallback".to_owned())
}

fn plan_scope(plan: Option<String>) -> SettingScope {
    SettingScope::Plan(plan.unwrap_or_else(|| DEFAULT_PLAN.to_owned()))
}

pub fn run_project(ctx: &Context, cmd: ProjectCommand) -> Outcome {
    let ProjectCommand::Context(cmd) = cmd;
    match cmd {
        ContextCommand::Set(args) => set(ctx, SettingScope::Project, args),
        ContextCommand::Show => show(ctx, &SettingScope::Project),
        ContextCommand::Unset => unset(ctx, &SettingScope::Project),
    }
}

pub fn run_plan(ctx: &Context, cmd: PlanCommand) -> Outcome {
    match cmd {
        PlanCommand::Use { setting, plan } => set(ctx, plan_scope(plan), setting),
        PlanCommand::Show { plan: Some(plan) } => show(ctx, &SettingScope::Plan(plan)),
        PlanCommand::Show { plan: None } => {
            let all = ctx.open()?.environment_settings()?;
            emit(ctx.format, &all, || {
                if all.is_empty() {
                    return "no execution environments are set\n".to_owned();
                }
                all.iter().map(setting_line).collect()
            })
        }
        PlanCommand::Unset { plan } => unset(ctx, &plan_scope(plan)),
    }
}

pub fn run_env(ctx: &Context, cmd: EnvCommand) -> Outcome {
    let EnvCommand::Resolve {
        key,
        plan,
        tool_env,
        activate,
    } = cmd;
    let mut registry = ctx.open()?;
    let tool = tool_env.unwrap_or_default();
    if !activate {
        let route = registry.resolve_environment(&key, plan.as_deref(), &tool)?;
        return emit(ctx.format, &route, || route_text(&route));
    }
    let (route, container) = registry.enter_environment(&key, plan.as_deref(), &tool)?;
    let shown = super::output::WithContainer {
        view: &route,
        container: container.clone(),
    };
    emit(ctx.format, &shown, || {
        let mut text = route_text(&route);
        if let Some(c) = &container {
            text.push_str(&format!(
                "container:    {} ({})\n",
                c.container_id.as_deref().unwrap_or("-"),
                c.state
            ));
        }
        text
    })
}

fn set(ctx: &Context, scope: SettingScope, args: SettingArgs) -> Outcome {
    let view = ctx.open()?.set_environment(
        scope,
        &args.execution_environment,
        args.execution_env_priority,
    )?;
    emit(ctx.format, &view, || format!("set {}", setting_line(&view)))
}

fn show(ctx: &Context, scope: &SettingScope) -> Outcome {
    let view = ctx.open()?.environment_setting(scope)?;
    emit(ctx.format, &view, || match &view {
        Some(v) => setting_line(v),
        None => format!("{scope}: no execution environment is set\n"),
    })
}

fn unset(ctx: &Context, scope: &SettingScope) -> Outcome {
    let removed = ctx.open()?.unset_environment(scope)?;
    let text = if removed {
        format!("{scope}: execution environment unset\n")
    } else {
        format!("{scope}: no execution environment was set\n")
    };
    emit(
        ctx.format,
        &serde_json::json!({ "removed": removed }),
        || text,
    )
}

fn setting_line(v: &SettingView) -> String {
    let whose = match &v.plan {
        Some(plan) => format!("plan {plan}"),
        None => "project".to_owned(),
    };
    format!(
        "{whose}: {} (priority {})\n",
        v.environment,
        v.priority.as_str()
    )
}

fn route_text(route: &Route) -> String {
    let mut pairs = vec![
        ("environment", route.environment.to_string()),
        ("decided by", route.level.describe().to_owned()),
        ("why", route.reason.clone()),
    ];
    if let Some(hint) = &route.hint {
        pairs.push(("hint", hint.clone()));
    }
    if let Some(trust) = &route.trust {
        let text = match &trust.why {
            None => "trusted: it may be activated".to_owned(),
            Some(why) => format!("NOT TRUSTED — {why}"),
        };
        pairs.push(("trust", text));
    }
    fields(&pairs)
}
