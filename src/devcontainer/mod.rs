//! Devcontainers as a library: the one home of how a `devcontainer.json`
//! becomes a running container, and of how that container is stopped,
//! removed, asked about and rebuilt. No
//! registry, no CLI: the caller records states, ids and hashes.
//!
//! **Which tool.** [`detect`] looks on the `PATH` it is handed (the
//! library never reads or changes the process's environment) for the Dev
//! Containers CLI (`devcontainer`, npm `@devcontainers/cli`, the reference
//! implementation of `devcontainer.json`), `docker` and `podman`, and asks
//! each whether it answers (`devcontainer --version`; `docker|podman
//! version --format '{{.Server.Version}}'`: a client whose engine is not
//! reachable is *present but not running*, reported as such). The CLI is
//! preferred (it needs an engine too, so both are looked for), then docker,
//! then podman. [`Detected::runtime`] turns the finding into a [`Runtime`]
//! or into a refusal that says what to install or start.
//!
//! **Without the CLI** (docker or podman directly) only what needs no more
//! than the engine is done: `image` or `build.dockerfile`/`context`/`args`,
//! the workspace mount (`workspaceMount`, or the workspace bind-mounted at
//! `/workspaces/<basename>` as the CLI does), `workspaceFolder`,
//! `containerEnv`, `containerUser`, `runArgs`, `overrideCommand` (the
//! CLI's keep-alive command, copied from its source) and
//! `postCreateCommand` (run as `remoteUser`). A configuration that says
//! more (features, Docker Compose, other lifecycle commands, `mounts`, …,
//! an unknown key, a variable other than the workspace ones) is refused
//! with a message naming the keys and how to get the CLI: a container that
//! silently lacks what its configuration asks for is worse than none.
//! `remoteEnv` is read ([`DevcontainerConfig::remote_env`]) but not
//! applied by `up`, with either tool: it is for the processes a caller
//! starts in the container.
//!
//! **Checked first.** Every `up` and `rebuild` starts from a [`Checked`]
//! configuration: read inside the request's repository by descriptor
//! (`files`: no symlink followed, regular files only, non-blocking,
//! bounded), parsed by the one JSONC parser the detection uses too, and
//! refused — before any tool runs — when it names a file outside the
//! repository or a value that would become an option (`checked`). Its
//! [`Checked::digest`] is what a person's trust is bound to, and
//! [`Summary`] what they are shown (`summary`, `options`); whether a
//! person trusted it is the registry's question, not this module's.
//!
//! **One container per id label.** `up` first looks for a container
//! carrying the request's id label (`agents.resource=<ULID>`): a running
//! one is returned as it is, a stopped one is started (its
//! `postCreateCommand` already ran), as the CLI does. Otherwise it
//! creates one, labelled also `agents.config-hash=<hash>` (direct mode).
//! Whether a container is out of date is the caller's question
//! ([`Checked::config_hash`] against what it recorded); [`Runtime::rebuild`] is
//! the answer. A failure at any step of an `up` removes the containers
//! that `up` created (found by the label: none carried it before) and
//! returns the tool's error; built images stay (they are cache).
//!
//! **Processes.** Fixed argv, no shell on the host, stdin closed, a
//! cleared environment (`PATH` and what the caller hands in:
//! [`ENGINE_ENV_VARS`] names what an engine may need), output bounded,
//! every call under a deadline ([`Timeouts`]): on expiry the tool's whole
//! process group is killed. What a tool printed is untrusted: errors carry
//! the tail of its stderr, cut and escaped.

mod checked;
mod commands;
pub mod compose;
mod config;
mod coverage;
mod detect;
mod direct;
mod files;
mod jsonc;
mod options;
mod process;
mod runtime;
mod summary;
pub mod variables;

pub use checked::{Checked, LIFECYCLE, Mode};
pub use config::{BuildConfig, DevcontainerConfig, LifecycleCommand};
pub use coverage::{ABSENT, CoveredFile};
pub use detect::{Detected, ENGINE_ENV_VARS, Found, Status, ToolsOnPath, detect, detect_with};
pub use files::{MAX_FILE, config_inside, repository_of};
pub use jsonc::{parse_jsonc, strip_jsonc};
pub use runtime::{ContainerState, Runtime};
pub use summary::{Item, Section, Summary};

use std::path::PathBuf;
use std::time::Duration;

/// What runs the lifecycle: the Dev Containers CLI (on docker or podman),
/// or an engine directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    DevcontainerCli,
    Docker,
    Podman,
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tool::DevcontainerCli => "devcontainer-cli",
            Tool::Docker => "docker",
            Tool::Podman => "podman",
        })
    }
}

/// What `up` is asked for: the workspace folder (absolute, on the host),
/// its `devcontainer.json`, the repository both lie in (what the
/// configuration may read: `files`; [`repository_of`] finds it), and the
/// label (`name=value`) that identifies the container
/// (`agents.resource=<ULID>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpRequest {
    pub workspace: PathBuf,
    pub config: PathBuf,
    pub repository: PathBuf,
    pub id_label: String,
    /// A private folder of the caller's (the registry gives
    /// `<home>/containers/<id>`) where the checked configuration is
    /// copied for the Dev Containers CLI (`--override-config`), so the CLI
    /// runs the bytes that were checked, not whatever the file holds by
    /// then; `None` hands the CLI the file itself.
    pub private_dir: Option<PathBuf>,
}

/// A container `up` made or found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Container {
    /// The engine's id for it.
    pub id: String,
    /// The image it runs (a name, or the `agents-devcontainer-<hash>` tag
    /// of one built here).
    pub image: String,
    pub tool: Tool,
    /// Where the workspace is inside it.
    pub workspace_folder: String,
    /// Did this `up` create it (false: it existed with the id label, and
    /// was started if it was stopped)?
    pub created: bool,
}

/// How long each kind of call may take before its process group is killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `up` and `rebuild`: each build, pull, start and `postCreateCommand`
    /// (and the CLI's whole `up`). Default 30 minutes.
    pub up: Duration,
    /// Everything else: detection probes, `stop`, `remove`, inspections.
    /// Default 60 seconds.
    pub quick: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            up: Duration::from_secs(30 * 60),
            quick: Duration::from_secs(60),
        }
    }
}

/// Why a devcontainer operation failed. Text that came from a tool
/// (`stderr`, `reason`, `message`) is already cut and escaped.
#[derive(Debug, thiserror::Error)]
pub enum DevcontainerError {
    /// Nothing usable to run containers with.
    #[error("no container runtime: {what_to_install}")]
    NoRuntime { what_to_install: String },
    /// An engine client is installed but its engine does not answer.
    #[error("{} is installed but its engine does not answer ({reason}); {what_to_do}", program.display())]
    EngineNotRunning {
        program: PathBuf,
        reason: String,
        what_to_do: String,
    },
    /// The `devcontainer.json` cannot be read, or says what the chosen
    /// tool cannot do.
    #[error("{}: {reason}", path.display())]
    Config { path: PathBuf, reason: String },
    /// What the caller asked is malformed (a relative workspace, a label
    /// without `=`, an id that could be read as an option).
    #[error("{0}")]
    Request(String),
    /// The engine has no container with this id.
    #[error("no container {id:?}: it was removed (or never existed)")]
    NoSuchContainer { id: String },
    /// A tool ran and failed.
    #[error("`{program} {args}` failed ({status}): {stderr}")]
    Tool {
        program: String,
        args: String,
        status: String,
        stderr: String,
    },
    /// A tool succeeded but answered what cannot be read.
    #[error("`{program} {args}` answered what is not understood: {answer}")]
    Unexpected {
        program: String,
        args: String,
        answer: String,
    },
    /// A tool did not finish in time; its process group was killed.
    #[error("`{program} {args}` did not finish within {}s and was killed (raise the timeout if it is only slow){}", limit.as_secs_f64(), if stderr.is_empty() { String::new() } else { format!("; its last output: {stderr}") })]
    Timeout {
        program: String,
        args: String,
        limit: Duration,
        stderr: String,
    },
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests;
