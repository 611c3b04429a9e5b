//! A devcontainer resource's configuration, read as the Dev Containers
//! CLI will read it: what `up` is asked for the resource, and the
//! configuration checked (`devcontainer::Checked`). Shared by
//! `environments`, which activates only what was checked and trusted, and
//! `trust`, which shows a person what activation will do and records
//! their decision about exactly that.

use crate::devcontainer::{self, Checked, DevcontainerError, UpRequest};
use crate::model::Resource;
use crate::registry::{EnvironmentsError, Registry, RegistryError};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How the registry finds the container tools: the `PATH` to look on and
/// the variables the engine may need (`devcontainer::ENGINE_ENV_VARS`).
/// The library reads no environment: the CLI hands its own in.
#[derive(Debug, Clone, Default)]
pub struct ContainerTools {
    pub search_path: Option<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

impl ContainerTools {
    /// The environment the tools run in (and so the one `${localEnv:…}`
    /// reads): `PATH`, then the variables handed in.
    pub fn cli_env(&self) -> Vec<(OsString, OsString)> {
        let mut vars = vec![(
            OsString::from("PATH"),
            self.search_path.clone().unwrap_or_default(),
        )];
        vars.extend(self.env.iter().filter(|(k, _)| k != "PATH").cloned());
        vars
    }
}

impl Registry {
    /// What `up` is asked for `resource`, and its configuration checked
    /// (a refusal is `ContainerFailed` naming `operation`).
    pub(crate) fn checked_config(
        &self,
        resource: &Resource,
        operation: &'static str,
    ) -> Result<(UpRequest, Checked), RegistryError> {
        let req = up_request(self.home.as_deref(), resource)?;
        let req = req.ok_or_else(|| EnvironmentsError::ContainerRefused {
            resource: resource.label(),
            operation,
            reason: "it has no location (the workspace its configuration is in)".into(),
        })?;
        let checked = Checked::load_with(&req, &self.container_tools.cli_env())
            .map_err(|source| container_failed(resource, operation, source))?;
        Ok((req, checked))
    }
}

/// What `up` is asked for `resource` (`None`: it has no location): the
/// workspace is its location; the configuration its `config-path`
/// property (checked when it was discovered), else
/// `.devcontainer/devcontainer.json` there; the repository the git work
/// tree holding the workspace, found on the filesystem (never from the
/// registered resources above it: who registered or linked what decides
/// nothing about where a repository ends); the private folder
/// `<home>/containers/<id>` when there is a home.
fn up_request(
    home: Option<&Path>,
    resource: &Resource,
) -> Result<Option<UpRequest>, RegistryError> {
    let Some(location) = resource.location.as_deref() else {
        return Ok(None);
    };
    let workspace = PathBuf::from(location);
    let config_path = resource
        .properties
        .get("config-path")
        .and_then(|v| v.as_str());
    let config = workspace.join(config_path.unwrap_or(".devcontainer/devcontainer.json"));
    let repository = devcontainer::repository_of(&workspace);
    Ok(Some(UpRequest {
        workspace,
        config,
        repository,
        id_label: format!("agents.resource={}", resource.resource_id),
        private_dir: home.map(|h| h.join("containers").join(resource.resource_id.to_string())),
    }))
}

/// The refusal of `operation` on `resource` that the devcontainer tools
/// or the configuration's check answered with `source`.
pub(in crate::registry) fn container_failed(
    resource: &Resource,
    operation: &'static str,
    source: DevcontainerError,
) -> RegistryError {
    EnvironmentsError::ContainerFailed {
        resource: resource.label(),
        operation,
        source: Box::new(source),
    }
    .into()
}
