//! The lifecycle on a chosen tool: the one home of which commands `up`,
//! `rebuild`, `stop`, `remove` and the state questions run, and of what
//! their answers mean (module doc of `devcontainer` for the rules).
//!
//! `stop`, `remove` and the state questions always ask the engine: the
//! Dev Containers CLI has no such commands (a container it made is an
//! ordinary container carrying the id label). A container id handed in
//! must look like one (`[A-Za-z0-9][A-Za-z0-9_.-]*`): nothing a caller
//! passes can become an option.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::checked::Checked;
use super::direct::{self, HASH_LABEL};
use super::process::{Call, Finished, shown_stderr};
use super::{Container, DevcontainerError, Timeouts, Tool, UpRequest};

mod with_cli;

/// What an engine's stderr says when it cannot reach its engine.
const ENGINE_DOWN: [&str; 4] = [
    "cannot connect to the docker daemon",
    "is the docker daemon running",
    "cannot connect to podman",
    "unable to connect to podman",
];

/// What an engine's stderr says about an id it does not know.
const MISSING: [&str; 3] = [
    "no such container",
    "no such object",
    "no container with name or id",
];

/// A container as the engine sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerState {
    Running,
    /// Created, exited or paused: it exists and is not running.
    Stopped,
    /// The engine has no container with that id.
    Missing,
}

/// The tools chosen by [`super::Detected::runtime`], the environment to
/// run them in, and the deadlines.
#[derive(Debug, Clone)]
pub struct Runtime {
    cli: Option<PathBuf>,
    engine: PathBuf,
    engine_kind: Tool,
    env: Vec<(OsString, OsString)>,
    timeouts: Timeouts,
}

impl Runtime {
    pub(super) fn new(
        cli: Option<PathBuf>,
        engine: PathBuf,
        engine_kind: Tool,
        env: Vec<(OsString, OsString)>,
        timeouts: Timeouts,
    ) -> Self {
        Self {
            cli,
            engine,
            engine_kind,
            env,
            timeouts,
        }
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// What `up` runs: the CLI, or the engine directly.
    pub fn tool(&self) -> Tool {
        if self.cli.is_some() {
            Tool::DevcontainerCli
        } else {
            self.engine_kind
        }
    }

    /// The engine (docker or podman) and which it is.
    pub fn engine(&self) -> (&Path, Tool) {
        (&self.engine, self.engine_kind)
    }

    /// The container of `req`: the one carrying its id label (started if
    /// stopped), or a new one. The configuration is read and checked
    /// first ([`Checked::load`]); nothing runs if it is refused.
    pub fn up(&self, req: &UpRequest) -> Result<Container, DevcontainerError> {
        check_request(req)?;
        self.up_checked(req, &Checked::load_with(req, &self.env)?)
    }

    /// [`Runtime::up`] with the configuration already checked (the
    /// caller compared its digest with what a person trusted): the
    /// direct mode runs exactly what `checked` read.
    pub fn up_checked(
        &self,
        req: &UpRequest,
        checked: &Checked,
    ) -> Result<Container, DevcontainerError> {
        check_request(req)?;
        match &self.cli {
            Some(cli) => self.up_with_cli(cli, req, checked, false),
            None => self.up_direct(req, checked, false),
        }
    }

    /// A new container for `req` in place of those carrying its id label
    /// (with the CLI: `--remove-existing-container`).
    pub fn rebuild(&self, req: &UpRequest) -> Result<Container, DevcontainerError> {
        check_request(req)?;
        self.rebuild_checked(req, &Checked::load_with(req, &self.env)?)
    }

    /// [`Runtime::rebuild`] with the configuration already checked.
    pub fn rebuild_checked(
        &self,
        req: &UpRequest,
        checked: &Checked,
    ) -> Result<Container, DevcontainerError> {
        check_request(req)?;
        match &self.cli {
            Some(cli) => self.up_with_cli(cli, req, checked, true),
            None => self.up_direct(req, checked, true),
        }
    }

    /// Stops container `id` (`NoSuchContainer` when it is gone).
    pub fn stop(&self, id: &str) -> Result<(), DevcontainerError> {
        check_id(id)?;
        self.engine_output(vec!["stop".into(), id.into()], Some(id), false)
            .map(drop)
    }

    /// Removes container `id`, running or not (`NoSuchContainer` when it
    /// is gone already).
    pub fn remove(&self, id: &str) -> Result<(), DevcontainerError> {
        check_id(id)?;
        self.engine_output(vec!["rm".into(), "-f".into(), id.into()], Some(id), false)
            .map(drop)
    }

    /// Is container `id` running? A missing one is `Ok(false)`; an engine
    /// that does not answer is an error.
    pub fn is_running(&self, id: &str) -> Result<bool, DevcontainerError> {
        Ok(self.state(id)? == ContainerState::Running)
    }

    /// Running, stopped, or missing.
    pub fn state(&self, id: &str) -> Result<ContainerState, DevcontainerError> {
        match self.inspect(id, "{{.State.Running}}") {
            Ok(answer) => match answer.as_str() {
                "true" => Ok(ContainerState::Running),
                "false" => Ok(ContainerState::Stopped),
                other => Err(DevcontainerError::Unexpected {
                    program: self.engine.display().to_string(),
                    args: format!("container inspect {id}"),
                    answer: shown_stderr(other),
                }),
            },
            Err(DevcontainerError::NoSuchContainer { .. }) => Ok(ContainerState::Missing),
            Err(e) => Err(e),
        }
    }

    fn up_direct(
        &self,
        req: &UpRequest,
        checked: &Checked,
        rebuild: bool,
    ) -> Result<Container, DevcontainerError> {
        let plan = direct::plan(checked, req, self.engine_kind)?;
        let container = |id: String, image: String, created: bool| Container {
            id,
            image,
            tool: self.engine_kind,
            workspace_folder: plan.workspace_folder.clone(),
            created,
        };
        let existing = self.labelled(&req.id_label)?;
        if rebuild {
            for id in &existing {
                match self.remove(id) {
                    Ok(()) | Err(DevcontainerError::NoSuchContainer { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        } else if let Some(id) = existing.first() {
            if self.state(id)? != ContainerState::Running {
                self.engine_output(vec!["start".into(), id.into()], Some(id), true)?;
            }
            return Ok(container(
                id.clone(),
                self.inspect(id, "{{.Config.Image}}")?,
                false,
            ));
        }
        // From here on, every container carrying the label is this `up`'s.
        if let Some(build) = &plan.build {
            // The Dockerfile the host checked, on stdin (`-f -`): the
            // engine never reads the file again.
            self.engine_output_fed(build.clone(), None, true, checked.dockerfile.as_deref())?;
        }
        let made = self
            .engine_output(plan.run.clone(), None, true)
            .and_then(|out| {
                let id = out.lines().rev().map(str::trim).find(|l| !l.is_empty());
                id.filter(|id| check_id(id).is_ok())
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        self.call(&self.engine, plan.run.clone(), self.timeouts.up)
                            .unexpected(&out)
                    })
            })
            .and_then(|id| {
                for argv in &plan.post_create {
                    self.engine_output(plan.exec_args(&id, argv), None, true)?;
                }
                Ok(id)
            });
        match made {
            Ok(id) => Ok(container(id, plan.image.clone(), true)),
            Err(e) => {
                self.discard_new(&req.id_label, &[]);
                Err(e)
            }
        }
    }

    /// Removes the containers carrying `label` that are not in `before`
    /// (those a failed `up` made). A removal that fails is logged: the
    /// `up`'s own error is the one returned.
    fn discard_new(&self, label: &str, before: &[String]) {
        let now = match self.labelled(label) {
            Ok(now) => now,
            Err(e) => {
                log::warn!(
                    "cannot list the containers labelled {label} to remove what a failed up made: {e}"
                );
                return;
            }
        };
        for id in now.iter().filter(|id| !before.contains(id)) {
            match self.remove(id) {
                Ok(()) | Err(DevcontainerError::NoSuchContainer { .. }) => {}
                Err(e) => log::warn!("cannot remove container {id}, made by a failed up: {e}"),
            }
        }
    }

    /// Ids of the containers carrying `label`, newest first.
    fn labelled(&self, label: &str) -> Result<Vec<String>, DevcontainerError> {
        let args = ["ps", "-a", "-q", "--no-trunc", "--filter"]
            .into_iter()
            .map(OsString::from)
            .chain([format!("label={label}").into()])
            .collect();
        let out = self.engine_output(args, None, false)?;
        Ok(out
            .lines()
            .map(str::trim)
            .filter(|l| check_id(l).is_ok())
            .map(str::to_owned)
            .collect())
    }

    /// `container inspect -f FORMAT id`, its answer trimmed.
    fn inspect(&self, id: &str, format: &str) -> Result<String, DevcontainerError> {
        check_id(id)?;
        let args = ["container", "inspect", "-f", format, id]
            .into_iter()
            .map(OsString::from)
            .collect();
        Ok(self.engine_output(args, Some(id), false)?.trim().to_owned())
    }

    /// The engine's stdout for `args`, or its failure read: a missing
    /// container (when about `id`), an engine not running, or a `Tool`
    /// error.
    fn engine_output(
        &self,
        args: Vec<OsString>,
        id: Option<&str>,
        long: bool,
    ) -> Result<String, DevcontainerError> {
        self.engine_output_fed(args, id, long, None)
    }

    /// [`Runtime::engine_output`] with `input` on the engine's stdin.
    fn engine_output_fed(
        &self,
        args: Vec<OsString>,
        id: Option<&str>,
        long: bool,
        input: Option<&[u8]>,
    ) -> Result<String, DevcontainerError> {
        let limit = if long {
            self.timeouts.up
        } else {
            self.timeouts.quick
        };
        let mut call = self.call(&self.engine, args, limit);
        call.input = input;
        let done: Finished = call.run()?;
        if done.status.success() {
            return Ok(done.stdout);
        }
        let lower = done.stderr.to_lowercase();
        if let Some(id) = id
            && MISSING.iter().any(|m| lower.contains(m))
        {
            return Err(DevcontainerError::NoSuchContainer { id: id.to_owned() });
        }
        if ENGINE_DOWN.iter().any(|m| lower.contains(m)) {
            return Err(DevcontainerError::EngineNotRunning {
                program: self.engine.clone(),
                reason: shown_stderr(&done.stderr),
                what_to_do: "start it again (docker: `sudo systemctl start docker` or Docker Desktop; podman: `podman machine start` where it runs in a machine)".into(),
            });
        }
        Err(call.failed(&done))
    }

    fn call<'a>(
        &'a self,
        program: &'a Path,
        args: Vec<OsString>,
        limit: std::time::Duration,
    ) -> Call<'a> {
        Call {
            program,
            args,
            env: &self.env,
            limit,
            input: None,
            cwd: None,
        }
    }
}

/// A container id or name as engines write them; nothing else is passed
/// to an engine (an id starting `-` would be an option).
fn check_id(id: &str) -> Result<(), DevcontainerError> {
    let mut chars = id.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if plain {
        Ok(())
    } else {
        Err(DevcontainerError::Request(format!(
            "{} is not a container id (letters, digits, '_', '.', '-', starting with a letter or digit)",
            crate::text::quote(id)
        )))
    }
}

fn check_request(req: &UpRequest) -> Result<(), DevcontainerError> {
    if !req.repository.is_absolute() || !req.workspace.starts_with(&req.repository) {
        return Err(DevcontainerError::Request(format!(
            "the repository {} must be an absolute path holding the workspace {}",
            crate::text::escape_line(&req.repository.display().to_string()),
            crate::text::escape_line(&req.workspace.display().to_string())
        )));
    }
    if !req.workspace.is_absolute() || !req.workspace.is_dir() {
        return Err(DevcontainerError::Request(format!(
            "the workspace {} must be an existing directory, named by an absolute path",
            crate::text::escape_line(&req.workspace.display().to_string())
        )));
    }
    let key = req.id_label.split_once('=').map(|(k, _)| k);
    match key {
        Some(key)
            if !key.is_empty()
                && key != HASH_LABEL
                && key.chars().all(|c| c.is_ascii_graphic() && c != ',') =>
        {
            Ok(())
        }
        _ => Err(DevcontainerError::Request(format!(
            "the id label {} must be name=value with a plain name other than {HASH_LABEL} (e.g. agents.resource=<ULID>)",
            crate::text::quote(&req.id_label)
        ))),
    }
}
