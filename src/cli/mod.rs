//! The `agents` command line: clap definitions, one file per verb group,
//! and the edge where library errors become `agents: error: …` and exit
//! codes (0 ok, 1 refused or failed, 2 usage).
//!
//! A verb parses its arguments, calls one library operation and prints the
//! result; nothing here decides what is allowed.

mod add;
mod authoring;
mod distribution;
mod environments;
mod events;
mod keeping;
mod keys;
mod logger;
mod mcp;
mod output;
mod plugins;
mod registry;
mod resources;
mod sandboxes;
mod types;

use clap::{Command, Parser, Subcommand};
use output::Format;
use resource_host::home::Home;
use resource_host::model::{Actor, Face};
use resource_host::plugin::Limits;
use resource_host::registry::Registry;
use resource_host::text::escape_line;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(
    name = "agents",
    version,
    about = "Register resources and resource types; run their WebAssembly handlers sandboxed",
    after_help = "Examples:\n  \
        agents resource type list\n  \
        agents resource add git-checkout local/api-repo --path /repos/api --branch main\n  \
        agents resource tree local/api-repo\n\n\
        The home is --home, else $AGENTS_HOME, else $XDG_DATA_HOME/agents \
        (~/.local/share/agents); the registry is its registry.db unless --registry \
        (or $AGENTS_REGISTRY) names a PostgreSQL server or another SQLite file."
)]
pub struct Cli {
    /// Home directory holding the registry (registry.db), plugins and caches.
    #[arg(long, global = true, env = "AGENTS_HOME", value_name = "DIR")]
    home: Option<PathBuf>,
    /// The registry: postgres://user@host:5432/db?sslmode=require for a
    /// team's shared server, or sqlite:///path/registry.db (default: the
    /// home's registry.db). Plugins' compile cache, sandboxes and other
    /// local files stay in the home.
    #[arg(long, global = true, env = "AGENTS_REGISTRY", value_name = "URL")]
    registry: Option<String>,
    /// Log more (-v info, -vv debug, -vvv trace); logs go to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Output format: tables and trees for people, json or yaml for programs.
    #[arg(short, long, global = true, value_enum, default_value_t = Format::Table)]
    output: Format,
    /// Wall-clock limit for one handler call, in seconds (0.005 to 86400).
    #[arg(long, global = true, env = "AGENTS_HANDLER_TIMEOUT", value_name = "SECONDS",
          value_parser = parse_timeout,
          default_value_t = Limits::default().timeout.as_secs_f64())]
    handler_timeout: f64,
    /// Memory limit for one handler call, in MiB (16 to 4096).
    #[arg(long, global = true, env = "AGENTS_HANDLER_MEMORY", value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(*Limits::MEMORY_MIB.start()..=*Limits::MEMORY_MIB.end()),
          default_value_t = Limits::default().memory_bytes / (1024 * 1024))]
    handler_memory: u64,
    /// The most children one handler answer may hold (a repository's
    /// branches and tags are one answer).
    #[arg(long, global = true, env = "AGENTS_HANDLER_MAX_CHILDREN", value_name = "N",
          default_value_t = resource_host::plugin::DEFAULT_MAX_CHILDREN,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000_000))]
    handler_max_children: usize,
    #[command(subcommand)]
    command: Verb,
}

#[derive(Debug, Subcommand)]
enum Verb {
    /// Resources and resource types.
    #[command(subcommand)]
    Resource(resources::ResourceCommand),
    /// Handler components (.wasm) in the plugin store.
    #[command(subcommand)]
    Plugin(plugins::PluginCommand),
    /// Project settings: where the project's tools run.
    #[command(subcommand)]
    Project(environments::ProjectCommand),
    /// Plan settings: where a plan's tools run.
    #[command(subcommand)]
    Plan(environments::PlanCommand),
    /// Execution environments: where a tool acting on a resource runs.
    #[command(subcommand)]
    Env(environments::EnvCommand),
    /// Sandboxes: private copies of a resource to change, checkpoint, roll back and apply.
    #[command(subcommand)]
    Sandbox(sandboxes::SandboxCommand),
    /// The registry itself: export, import (move or back up its data) and info.
    #[command(subcommand)]
    Registry(registry::RegistryCommand),
    /// The event log: every change, who made it and through which face; prune it.
    #[command(after_help = "Examples:\n  agents events --since 120\n  \
        agents events --resource local/api-repo --below\n  \
        agents events --actor mcp --op link.linked -o json\n  \
        agents events prune --before 2026-09-01")]
    Events(events::EventsArgs),
    /// Serve the registry to agent runtimes over the Model Context Protocol (stdio).
    Mcp(mcp::McpArgs),
    /// Print a shell completion script (e.g. `agents completions bash > /etc/bash_completion.d/agents`).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
}

/// Parse the command line, run it, and turn the outcome into an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    logger::install(cli.verbose);
    let outcome = run(cli);
    logger::finish();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Clap(err)) => usage_error(err),
        Err(Failure::Usage(message)) => {
            eprintln!("{} {message}", output::error_prefix());
            ExitCode::from(2)
        }
        Err(Failure::Refused(err)) => {
            // One line, escaped: a refusal may quote a handler's words.
            let message = resource_host::text::error_chain(&*err);
            eprintln!("{} {}", output::error_prefix(), escape_line(&message));
            ExitCode::from(1)
        }
    }
}

/// How a verb failed: the input was malformed (exit 2, clap's own error or
/// ours), or the library refused or failed (exit 1).
#[derive(Debug)]
pub enum Failure {
    Clap(clap::Error),
    Usage(String),
    Refused(Box<dyn std::error::Error>),
}

impl<E: std::error::Error + 'static> From<E> for Failure {
    fn from(err: E) -> Self {
        Failure::Refused(Box::new(err))
    }
}

type Outcome = Result<(), Failure>;

fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let _ = write!(
        std::io::stderr(),
        "{} {}",
        output::error_prefix(),
        clap_message(&err)
    );
    ExitCode::from(2)
}

/// clap's rendering of `err` without its own `error: ` prefix (ours,
/// [`output::error_prefix`], is printed instead).
fn clap_message(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    match rendered.strip_prefix("error: ") {
        Some(text) => text.to_owned(),
        None => rendered,
    }
}

/// One of the global options (`-o`, `-v`) as [`Cli`] declares it: the
/// runtime-built command of `resource add TYPE` takes the same ones,
/// declared once.
fn global_arg(id: &str) -> clap::Arg {
    <Cli as clap::CommandFactory>::command()
        .get_arguments()
        .find(|a| a.get_id() == id)
        .unwrap_or_else(|| unreachable!("Cli declares --{id}"))
        .clone()
        .global(false)
        // No default here: an `-o` given before `resource add` holds
        // unless one after TYPE overrides it.
        .default_value(None::<&str>)
        // Listed where the command adds it, with its other options.
        .help_heading("Options")
        .display_order(None)
}

/// `--handler-timeout`: seconds within [`Limits::TIMEOUT_SECS`] (a usage
/// error otherwise, before anything runs).
fn parse_timeout(text: &str) -> Result<f64, String> {
    let range = Limits::TIMEOUT_SECS;
    match text.trim().parse::<f64>() {
        Ok(secs) if range.contains(&secs) => Ok(secs),
        _ => Err(format!(
            "{text:?} is not a number of seconds from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

fn run(cli: Cli) -> Outcome {
    let limits = Limits {
        timeout: Duration::from_secs_f64(cli.handler_timeout),
        memory_bytes: cli.handler_memory * 1024 * 1024,
        answer: resource_host::plugin::AnswerBounds {
            max_children: cli.handler_max_children,
            ..Default::default()
        },
        ..Limits::default()
    };
    let ctx = Context {
        home: cli.home,
        registry: cli.registry,
        format: cli.output,
        limits,
        face: Face::Cli,
    };
    match cli.command {
        Verb::Resource(cmd) => resources::run(&ctx, cmd),
        Verb::Plugin(cmd) => plugins::run(&ctx, cmd),
        Verb::Sandbox(cmd) => sandboxes::run(&ctx, cmd),
        Verb::Registry(cmd) => registry::run(&ctx, cmd),
        Verb::Project(cmd) => environments::run_project(&ctx, cmd),
        Verb::Plan(cmd) => environments::run_plan(&ctx, cmd),
        Verb::Env(cmd) => environments::run_env(&ctx, cmd),
        Verb::Events(args) => events::run(&ctx, args),
        Verb::Mcp(args) => mcp::run(&ctx, args),
        Verb::Completions { shell } => completions(&ctx, shell),
    }
}

/// Print the completion script for `shell`. `resource add` completes the
/// types that can be added and each type's own flags: those of the
/// registry (`--registry`, or the home's when it exists), else the
/// built-in types.
fn completions(ctx: &Context, shell: clap_complete::Shell) -> Outcome {
    let registry = match ctx.home() {
        Ok(home) if ctx.registry.is_some() || home.database().exists() => ctx.open()?,
        _ => Registry::open_in_memory()?,
    };
    let forms = add::addable_forms(&registry)?;
    let mut cmd = <Cli as clap::CommandFactory>::command().mut_subcommand("resource", |r| {
        r.mut_subcommand("add", |add| {
            Command::new("add")
                .about(add.get_about().cloned().unwrap_or_default())
                .subcommands(forms.iter().map(add::command))
        })
    });
    clap_complete::generate(shell, &mut cmd, "agents", &mut std::io::stdout());
    Ok(())
}

/// What every verb gets: where the registry is and how to print.
#[derive(Debug, Clone)]
pub struct Context {
    home: Option<PathBuf>,
    registry: Option<String>,
    format: Format,
    limits: Limits,
    /// The face the registry is opened through (recorded as the
    /// provenance of what it registers and links).
    face: Face,
}

impl Context {
    /// The same, acting through `face` (`agents mcp`: `mcp`; `resource
    /// watch`: `watch`).
    pub fn acting_as(&self, face: Face) -> Self {
        Self {
            face,
            ..self.clone()
        }
    }

    /// The home: `--home`/`$AGENTS_HOME`, else the XDG data dir.
    fn home(&self) -> Result<Home, Failure> {
        if let Some(dir) = &self.home {
            return Ok(Home::new(dir));
        }
        match resource_host::front_end::default_home() {
            Some(dir) => Ok(Home::new(dir)),
            None => Err(Failure::Usage(
                "no home directory: pass --home DIR or set AGENTS_HOME".to_owned(),
            )),
        }
    }

    fn open(&self) -> Result<Registry, Failure> {
        self.open_with(|_| {})
    }

    /// [`Context::open`] with its options adjusted by `adjust`.
    fn open_with(
        &self,
        adjust: impl FnOnce(&mut resource_host::registry::Options),
    ) -> Result<Registry, Failure> {
        let home = self.home()?;
        log::debug!("registry home: {}", home.root().display());
        let registry = match self.registry.as_deref().filter(|r| !r.is_empty()) {
            Some(text) => Some(
                resource_host::RegistryLocation::parse(text)
                    .map_err(|e| Failure::Usage(e.to_string()))?,
            ),
            None => None,
        };
        let mut options = resource_host::front_end::options(registry, self.limits.clone());
        // The OS user at a terminal; an MCP client names itself (the MCP
        // face fills it in from `clientInfo`).
        let name = match self.face {
            Face::Mcp => String::new(),
            _ => options
                .person
                .as_ref()
                .map(|p| p.user.clone())
                .unwrap_or_default(),
        };
        options.actor = Actor::new(self.face, name);
        adjust(&mut options);
        Ok(Registry::open_with(&home, options)?)
    }
}
