//! `agents mcp`: the registry served over the Model Context Protocol, on
//! stdio, for agent runtimes and IDE agents (built on `rmcp`).
//!
//! The server is the CLI by other means: each tool calls the same library
//! operation a verb calls and answers the view `-o json` prints (as
//! `structuredContent`; a list is wrapped in an object, which MCP
//! requires), with a short summary for people as text. What a tool may do
//! is decided here, once, from how the server was started:
//!
//! * the read tools always; the write tools unless `--read-only`;
//! * the admin operations (types, plugins, import) only with
//!   `--allow-admin`;
//! * **trust never**: consent to a repository's devcontainer is a
//!   person's, given with `agents resource trust` at a terminal. An agent
//!   asking to activate an untrusted environment gets a tool error that
//!   says what the person should run.
//!
//! A refusal is a tool result with `isError: true`, the refusal's text and
//! a machine-readable `kind` ([`kinds`]); protocol errors are kept for
//! malformed requests (an unknown tool, arguments that are not an object).
//!
//! Library calls are blocking; each request's runs in place on its
//! worker of a multi-thread runtime (`block_in_place`) with a registry of
//! its own from a small pool ([`pool`]), so one slow handler call does
//! not stall other requests. At most a few calls per core run at once;
//! the rest wait, bounded, then are refused as `busy` ([`pool`]). Progress of discovery and refresh
//! goes to the client as progress notifications when it asked for them;
//! a cancelled request stops before the registry is written.

mod arguments;
mod following;
mod gate;
mod kinds;
mod pool;
mod resources;
mod roots;
mod server;
mod subscriptions;
mod tools;

use super::{Context, Outcome};

/// `agents mcp [--read-only | --allow-admin] [--watch]`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "An MCP client starts the server itself; for example:\n  \
    {\"mcpServers\": {\"agents\": {\"command\": \"agents\", \"args\": [\"mcp\", \"--home\", \"/path/to/home\"]}}}\n\n\
    It speaks JSON-RPC on stdin and stdout; logs (-v) go to stderr."
)]
pub struct McpArgs {
    /// Serve only the tools that change nothing (lists, shows, trees,
    /// inspect, environment resolution without activation, sandbox
    /// list/show/diff).
    #[arg(long, conflicts_with = "allow_admin")]
    read_only: bool,
    /// Also serve the admin tools: type add/remove, plugin add/remove and
    /// registry import. Trust is never a tool.
    #[arg(long)]
    allow_admin: bool,
    /// Watch the registered resources' locations; a change refreshes them
    /// and tells the clients subscribed to what changed. Not with
    /// --read-only: a refresh writes what it found.
    #[arg(long, conflicts_with = "read_only")]
    watch: bool,
    /// A directory the server may act in (repeatable): registration,
    /// inspect, discovery, refresh, sandboxes, removal, links, import and
    /// type/plugin files are refused outside every root. Default: the
    /// directory the server was started in. A client that declares roots
    /// narrows these further.
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<std::path::PathBuf>,
}

/// Which tools the server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ReadOnly,
    Standard,
    Admin,
}

/// `--root`s, or the working directory; each made real (a usage error
/// when one is not an existing directory).
fn server_roots(
    given: Vec<std::path::PathBuf>,
) -> Result<resource_host::roots::Roots, super::Failure> {
    let dirs = if given.is_empty() {
        vec![std::env::current_dir().map_err(|e| {
            super::Failure::Usage(format!(
                "no --root given and the working directory cannot be read ({e}); pass --root DIR"
            ))
        })?]
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        given.into_iter().map(|d| cwd.join(d)).collect()
    };
    resource_host::roots::Roots::new(dirs).map_err(|e| super::Failure::Usage(format!("--{e}")))
}

/// A test seam's variable, read in debug builds only: a release build
/// answers `None` whatever the environment says (`cfg!` makes the read
/// dead code), so no seam widens a race or shortens a wait there.
fn test_seam(name: &str) -> Option<std::ffi::OsString> {
    if cfg!(debug_assertions) {
        std::env::var_os(name)
    } else {
        None
    }
}

/// Serve until the client closes stdin.
pub fn run(ctx: &Context, args: McpArgs) -> Outcome {
    let mode = match (args.read_only, args.allow_admin) {
        (true, _) => Mode::ReadOnly,
        (false, true) => Mode::Admin,
        (false, false) => Mode::Standard,
    };
    // A home or registry that cannot be opened is said now, on stderr
    // with exit 1, rather than as the first tool's error.
    let ctx = &ctx.acting_as(resource_host::model::Face::Mcp);
    let scope = roots::Scope::new(server_roots(args.roots)?);
    let first = ctx.open()?;
    let pool = pool::Pool::new(ctx.clone(), first, scope);
    log::debug!("serving at most {} calls at once", pool.size());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = runtime.block_on(server::serve(pool.clone(), mode, args.watch));
    drop(pool.drain());
    drop(runtime);
    Ok(served?)
}
