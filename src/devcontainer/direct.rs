//! The direct mode's plan: the one home of which parts of a
//! `devcontainer.json` docker or podman can do alone, and of the exact
//! argv that does them. Pure: the runtime runs what this returns.
//!
//! As the CLI, the git work tree holding the workspace is mounted at
//! `/workspaces/<its name>` and the workspace folder is the workspace's
//! place in it; the Dockerfile is the one the host checked, handed on
//! stdin (`build -f -`), never read again from the repository (so a
//! Dockerfile-specific `<name>.dockerignore` is not used: the context's
//! `.dockerignore` is). What the Dev Containers CLI would do differently,
//! on purpose: `postCreateCommand`'s object form runs one after the other;
//! the user's UID is not patched into the image (`updateRemoteUserUID`).
//! Everything else the configuration says is refused (module doc of
//! `devcontainer`), and so is a variable other than the four workspace
//! ones (`${localEnv:…}` needs the caller's environment, which this
//! library does not read).

use std::ffi::OsString;
use std::path::Path;

use super::checked::Checked;
use super::config::LifecycleCommand;
use super::{DevcontainerError, Tool, UpRequest};

/// The label with the configuration's hash.
pub(super) const HASH_LABEL: &str = "agents.config-hash";

/// The CLI's keep-alive (`spawnDevContainer` in the CLI's
/// `src/spec-node/singleContainer.ts`, with no feature entrypoints): the
/// image's entrypoint is replaced by `/bin/sh`, which stays up and exits on
/// SIGTERM (`wait $!` lets the trap run; a plain `sleep` would not).
pub(super) const KEEP_ALIVE: &str = "echo Container started\ntrap \"exit 0\" 15\n\nexec \"$@\"\nwhile sleep 1 & wait $!; do :; done";

/// Keys the direct mode may leave unread: editor settings, port
/// forwarding (the CLI's `up` does none either), waiting and probing
/// options of an editor, host checks.
const IGNORED: [&str; 9] = [
    "customizations",
    "forwardPorts",
    "portsAttributes",
    "otherPortsAttributes",
    "shutdownAction",
    "waitFor",
    "userEnvProbe",
    "hostRequirements",
    "updateRemoteUserUID",
];

/// What to run, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    /// The image `run` starts.
    pub image: String,
    /// `build …` when the image is built here.
    pub build: Option<Vec<OsString>>,
    /// `run -d …`.
    pub run: Vec<OsString>,
    /// Each `postCreateCommand`, as the argv after the container's id.
    pub post_create: Vec<Vec<String>>,
    pub workspace_folder: String,
    pub remote_user: Option<String>,
}

impl Plan {
    /// `exec …` for the post-create command `argv` in container `id`.
    pub fn exec_args(&self, id: &str, argv: &[String]) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["exec".into()];
        if let Some(user) = &self.remote_user {
            args.extend(["-u".into(), user.into()]);
        }
        args.extend(["-w".into(), self.workspace_folder.clone().into(), id.into()]);
        args.extend(argv.iter().map(OsString::from));
        args
    }
}

/// The plan for `req`, or the refusal of what the direct mode cannot do.
pub(super) fn plan(
    checked: &Checked,
    req: &UpRequest,
    engine: Tool,
) -> Result<Plan, DevcontainerError> {
    let config = &checked.config;
    let hash = checked.config_hash.as_str();
    let refused = |reason: String| DevcontainerError::Config {
        path: config.path.clone(),
        reason,
    };
    let mut unsupported: Vec<String> = config
        .other_keys
        .iter()
        .filter(|k| !IGNORED.contains(&k.as_str()))
        .map(|k| format!("{k:?}"))
        .collect();
    if let Some(build) = &config.build {
        unsupported.extend(build.other_keys.iter().map(|k| format!("\"build.{k}\"")));
    }
    if !unsupported.is_empty() {
        return Err(refused(format!(
            "{} can only be done by the Dev Containers CLI (`npm install -g @devcontainers/cli`); without it, docker or podman run only image or Dockerfile configurations (workspaceMount, workspaceFolder, containerEnv, containerUser, remoteUser, runArgs, overrideCommand, postCreateCommand)",
            unsupported.join(", ")
        )));
    }
    let workspace = utf8(&req.workspace)?;
    let base = req
        .workspace
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| {
            DevcontainerError::Request(format!(
                "the workspace {workspace:?} has no folder name to mount it under /workspaces"
            ))
        })?;
    let mount_source = utf8(&checked.mount_source)?;
    let local = |text: &str, what: &str| {
        substitute(
            text,
            &[
                ("localWorkspaceFolder", workspace),
                ("localWorkspaceFolderBasename", base),
            ],
        )
        .map_err(|var| refused(unsupported_variable(&var, what)))
    };
    let workspace_folder = match &config.workspace_folder {
        Some(folder) => local(folder, "workspaceFolder")?,
        None => checked.container_workspace.clone(),
    };
    let folder_base = workspace_folder
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_owned();
    let vars = [
        ("localWorkspaceFolder", workspace),
        ("localWorkspaceFolderBasename", base),
        ("containerWorkspaceFolder", workspace_folder.as_str()),
        ("containerWorkspaceFolderBasename", folder_base.as_str()),
    ];
    let sub = |text: &str, what: &str| {
        substitute(text, &vars).map_err(|var| refused(unsupported_variable(&var, what)))
    };

    let (image, build) = match (&config.build, &config.image) {
        (Some(build), _) => {
            let tag = format!("agents-devcontainer-{}", &hash[..hash.len().min(12)]);
            let mut args: Vec<OsString> = vec![
                "build".into(),
                "-f".into(),
                "-".into(),
                "-t".into(),
                tag.clone().into(),
            ];
            for (key, value) in &build.args {
                let value = sub(value, &format!("build.args.{key}"))?;
                args.extend(["--build-arg".into(), format!("{key}={value}").into()]);
            }
            args.push(build.context.clone().into());
            (tag, Some(args))
        }
        (None, Some(image)) => (image.clone(), None),
        (None, None) => {
            return Err(refused(
                "it names neither an \"image\" nor a \"build\" with a \"dockerfile\"; say which image to run or how to build it (a Docker Compose configuration needs the Dev Containers CLI: `npm install -g @devcontainers/cli`)".into(),
            ));
        }
    };

    let mut run: Vec<OsString> = vec![
        "run".into(),
        "-d".into(),
        "--label".into(),
        req.id_label.clone().into(),
        "--label".into(),
        format!("{HASH_LABEL}={hash}").into(),
    ];
    match &config.workspace_mount {
        Some(mount) if mount.is_empty() => {}
        Some(mount) => run.extend(["--mount".into(), sub(mount, "workspaceMount")?.into()]),
        None => {
            // As the CLI writes it: a part holding a comma is quoted.
            let part = |key: &str, value: &str| {
                if value.contains(',') {
                    format!("\"{key}={value}\"")
                } else {
                    format!("{key}={value}")
                }
            };
            let mount = format!(
                "type=bind,{},{}",
                part("source", mount_source),
                part("target", &checked.mount_target)
            );
            run.extend(["--mount".into(), mount.into()]);
        }
    }
    run.extend(["-w".into(), workspace_folder.clone().into()]);
    for (key, value) in &config.container_env {
        let value = sub(value, &format!("containerEnv.{key}"))?;
        run.extend(["-e".into(), format!("{key}={value}").into()]);
    }
    if let Some(user) = &config.container_user {
        run.extend(["-u".into(), user.into()]);
    }
    if engine == Tool::Podman {
        // As the CLI does for podman: no SELinux relabelling of the
        // workspace.
        run.extend(["--security-opt".into(), "label=disable".into()]);
    }
    for arg in &config.run_args {
        run.push(sub(arg, "runArgs")?.into());
    }
    if config.override_command {
        run.extend([
            "--entrypoint".into(),
            "/bin/sh".into(),
            image.clone().into(),
        ]);
        run.extend(["-c".into(), KEEP_ALIVE.into(), "-".into()]);
    } else {
        run.push(image.clone().into());
    }

    let mut post_create = Vec::new();
    let mut add = |command: &LifecycleCommand| -> Result<(), DevcontainerError> {
        match command {
            LifecycleCommand::Shell(text) => post_create.push(vec![
                "/bin/sh".into(),
                "-c".into(),
                sub(text, "postCreateCommand")?,
            ]),
            LifecycleCommand::Exec(argv) => post_create.push(
                argv.iter()
                    .map(|a| sub(a, "postCreateCommand"))
                    .collect::<Result<_, _>>()?,
            ),
            // Nested objects are refused when the configuration is read.
            LifecycleCommand::Each(_) => {}
        }
        Ok(())
    };
    match &config.post_create_command {
        Some(LifecycleCommand::Each(each)) => each.values().try_for_each(&mut add)?,
        Some(command) => add(command)?,
        None => {}
    }

    Ok(Plan {
        image,
        build,
        run,
        post_create,
        workspace_folder,
        remote_user: config.remote_user.clone(),
    })
}

fn utf8(path: &Path) -> Result<&str, DevcontainerError> {
    path.to_str().ok_or_else(|| {
        DevcontainerError::Request(format!(
            "the workspace {} is not UTF-8; it cannot be written into a mount",
            path.display()
        ))
    })
}

fn unsupported_variable(var: &str, what: &str) -> String {
    format!(
        "{what} uses ${{{}}}; without the Dev Containers CLI (`npm install -g @devcontainers/cli`) only ${{localWorkspaceFolder}}, ${{localWorkspaceFolderBasename}}, ${{containerWorkspaceFolder}} and ${{containerWorkspaceFolderBasename}} are replaced",
        crate::text::escape_line(var)
    )
}

/// `text` with each `${name}` of `vars` replaced; `Err(name)` for another
/// variable. A `${` without its `}` is text, as in the CLI.
pub(super) fn substitute(text: &str, vars: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        let value = vars
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| name.to_owned())?;
        out.push_str(&rest[..start]);
        out.push_str(value);
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
