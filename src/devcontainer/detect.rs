//! Which container tools are here: the one home of how the Dev Containers
//! CLI, docker and podman are found on a `PATH` and asked whether they
//! answer, and of what to tell a person when none does.
//!
//! The `PATH` is handed in (the library never reads the process's
//! environment); only its absolute entries are searched, the first
//! executable file of a name wins, as a shell would find it. Every probe
//! runs under the quick timeout. An engine that answers
//! `version --format '{{.Server.Version}}'` is reachable (docker: its
//! daemon; podman: a local engine answers with its own version); one that
//! fails is *present but not running*, kept with the reason it gave.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::process::{Call, shown_stderr};
use super::runtime::Runtime;
use super::{DevcontainerError, Timeouts, Tool};
use crate::text::{escape_line, excerpt};

/// Variables an engine or the CLI may need, for a caller to pass on from
/// its own environment when set ([`detect_with`]): the user's docker
/// configuration and contexts (`HOME`, `DOCKER_*`), podman's rootless
/// storage and connections (`XDG_*`, `CONTAINER_*`), proxies for pulls.
pub const ENGINE_ENV_VARS: &[&str] = &[
    "HOME",
    "USER",
    "TMPDIR",
    "DOCKER_HOST",
    "DOCKER_CONTEXT",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
    "CONTAINER_HOST",
    "CONTAINER_CONNECTION",
    "CONTAINERS_CONF",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
];

const INSTALL_ENGINE: &str = "Docker Engine (https://docs.docker.com/engine/install/) or Podman (https://podman.io/docs/installation)";
const INSTALL_CLI: &str =
    "the Dev Containers CLI (`npm install -g @devcontainers/cli`, which needs Node.js)";

/// One program found on the `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub status: Status,
}

/// Whether a found program answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// It answered with this version (an engine: its server's).
    Ready { version: String },
    /// It is there but did not answer (an engine: not running); why,
    /// escaped.
    NotReady { reason: String },
}

/// What [`detect`] found. A report: [`Detected::runtime`] chooses.
#[derive(Debug, Clone)]
pub struct Detected {
    pub devcontainer_cli: Option<Found>,
    pub docker: Option<Found>,
    pub podman: Option<Found>,
    env: Vec<(OsString, OsString)>,
}

/// Looks for the tools on `search_path` with nothing else in their
/// environment (see [`detect_with`] to hand in [`ENGINE_ENV_VARS`]).
pub fn detect(search_path: &OsStr) -> Detected {
    detect_with(search_path, &[], Timeouts::default().quick)
}

/// Looks for the tools on `search_path`; the probes (and later the
/// [`Runtime`]) run with `PATH=search_path` and `env` (a `PATH` in it is
/// ignored), each under `limit`.
pub fn detect_with(search_path: &OsStr, env: &[(OsString, OsString)], limit: Duration) -> Detected {
    let mut vars: Vec<(OsString, OsString)> = vec![("PATH".into(), search_path.to_owned())];
    vars.extend(env.iter().filter(|(k, _)| k != "PATH").cloned());
    let probe = |name: &str, args: &[&str], server: bool| {
        let path = find_program(search_path, name)?;
        let call = Call {
            program: &path,
            args: args.iter().map(OsString::from).collect(),
            env: &vars,
            limit,
            input: None,
            cwd: None,
        };
        let status = match call.run() {
            Ok(done) => {
                let version = done.stdout.lines().next().unwrap_or("").trim();
                let version = escape_line(&excerpt(version, 80)).into_owned();
                if done.status.success() && !version.is_empty() {
                    Status::Ready { version }
                } else if !done.stderr.trim().is_empty() {
                    Status::NotReady {
                        reason: shown_stderr(&done.stderr),
                    }
                } else {
                    Status::NotReady {
                        reason: format!(
                            "{} with no {}",
                            done.status,
                            if server { "server version" } else { "version" }
                        ),
                    }
                }
            }
            Err(e) => Status::NotReady {
                reason: e.to_string(),
            },
        };
        Some(Found { path, status })
    };
    let server = ["version", "--format", "{{.Server.Version}}"];
    Detected {
        devcontainer_cli: probe("devcontainer", &["--version"], false),
        docker: probe("docker", &server, true),
        podman: probe("podman", &server, true),
        env: vars.clone(),
    }
}

/// The first executable regular file `name` in an absolute entry of
/// `search_path` (symlinks followed, as `npm`'s are).
fn find_program(search_path: &OsStr, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(search_path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Which tools are on a `PATH`, found without running any of them: what
/// a trust summary names as the tool that would run a configuration
/// (the one used is the first of them that answers, as [`detect`] finds).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolsOnPath {
    pub devcontainer_cli: Option<PathBuf>,
    pub docker: Option<PathBuf>,
    pub podman: Option<PathBuf>,
}

impl ToolsOnPath {
    pub fn find(search_path: &OsStr) -> Self {
        Self {
            devcontainer_cli: find_program(search_path, "devcontainer"),
            docker: find_program(search_path, "docker"),
            podman: find_program(search_path, "podman"),
        }
    }

    /// In a sentence, for a person.
    pub fn describe(&self) -> String {
        let shown = |p: &Path| escape_line(&p.display().to_string()).into_owned();
        let engine = self
            .docker
            .as_deref()
            .map(|p| format!("docker ({})", shown(p)))
            .or_else(|| {
                self.podman
                    .as_deref()
                    .map(|p| format!("podman ({})", shown(p)))
            });
        match (&self.devcontainer_cli, engine) {
            (Some(cli), Some(engine)) => format!(
                "the Dev Containers CLI ({}) on {engine}: it runs everything the configuration \
                 says, initializeCommand on the host included",
                shown(cli)
            ),
            (None, Some(engine)) => format!(
                "{engine} directly (no Dev Containers CLI on PATH): what it cannot do is refused \
                 at activation; install the CLI and all of the above runs"
            ),
            (_, None) => "none on PATH now (no docker or podman); the Dev Containers CLI, docker \
                 or podman found at activation runs it"
                .to_owned(),
        }
    }
}

fn ready(found: &Option<Found>) -> Option<&Path> {
    match found {
        Some(Found {
            path,
            status: Status::Ready { .. },
        }) => Some(path),
        _ => None,
    }
}

impl Detected {
    /// What `up` would run with: the CLI when it and an engine answer,
    /// else docker, else podman; `None` when nothing usable is here.
    pub fn tool(&self) -> Option<Tool> {
        self.runtime().ok().map(|r| r.tool())
    }

    /// The runtime to use (default [`Timeouts`]), or a refusal saying
    /// what to install or start.
    pub fn runtime(&self) -> Result<Runtime, DevcontainerError> {
        let engine = ready(&self.docker)
            .map(|p| (p, Tool::Docker))
            .or_else(|| ready(&self.podman).map(|p| (p, Tool::Podman)));
        let Some((engine, kind)) = engine else {
            return Err(self.refusal());
        };
        let cli = ready(&self.devcontainer_cli).map(Path::to_path_buf);
        Ok(Runtime::new(
            cli,
            engine.to_path_buf(),
            kind,
            self.env.clone(),
            Timeouts::default(),
        ))
    }

    /// What is missing, for people: `None` when a runtime is usable.
    pub fn problem(&self) -> Option<String> {
        self.runtime().err().map(|e| e.to_string())
    }

    fn refusal(&self) -> DevcontainerError {
        let silent = |found: &Option<Found>| match found {
            Some(Found {
                path,
                status: Status::NotReady { reason },
            }) => Some((path.clone(), reason.clone())),
            _ => None,
        };
        let podman_hint =
            "check that `podman info` works (on macOS or Windows: `podman machine start`)";
        match (silent(&self.docker), silent(&self.podman)) {
            (Some((program, reason)), podman) => DevcontainerError::EngineNotRunning {
                program,
                reason,
                what_to_do: format!(
                    "start the Docker daemon (`sudo systemctl start docker`, or open Docker Desktop) or point DOCKER_HOST at a running one{}",
                    podman.map_or(String::new(), |(p, why)| format!(
                        "; podman ({}) does not answer either ({why}): {podman_hint}",
                        p.display()
                    ))
                ),
            },
            (None, Some((program, reason))) => DevcontainerError::EngineNotRunning {
                program,
                reason,
                what_to_do: podman_hint.to_owned(),
            },
            (None, None) => {
                let what_to_install = match &self.devcontainer_cli {
                    Some(cli) => format!(
                        "the Dev Containers CLI is installed ({}) but runs containers with docker or podman, and neither is on PATH: install {INSTALL_ENGINE}",
                        cli.path.display()
                    ),
                    None => format!(
                        "neither the Dev Containers CLI nor docker nor podman is on PATH: install a container engine, {INSTALL_ENGINE}, and for everything devcontainer.json can say {INSTALL_CLI}; an engine alone runs configurations that name an image or a Dockerfile"
                    ),
                };
                DevcontainerError::NoRuntime { what_to_install }
            }
        }
    }
}

/// One line per tool: its version and path, or why it is not usable.
impl std::fmt::Display for Detected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, found) in [
            ("devcontainer", &self.devcontainer_cli),
            ("docker", &self.docker),
            ("podman", &self.podman),
        ] {
            match found {
                None => writeln!(f, "{name}: not found")?,
                Some(Found { path, status }) => {
                    let path = escape_line(&path.display().to_string()).into_owned();
                    match status {
                        Status::Ready { version } => writeln!(f, "{name}: {version} ({path})")?,
                        Status::NotReady { reason } => {
                            writeln!(f, "{name}: installed ({path}) but not answering: {reason}")?
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
