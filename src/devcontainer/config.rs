//! `devcontainer.json` read into what the lifecycle uses.
//!
//! Reading is lenient about *which* keys a file has (the specification has
//! many, and the Dev Containers CLI reads the file itself) and strict about
//! the *types* of the keys read here: `"image": 5` is refused, an unknown
//! key is kept in `other_keys` for the direct mode to refuse
//! (`direct.rs`). Relative paths (`build.dockerfile`, `build.context`) are
//! resolved against the file's folder, as the specification says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// What a `devcontainer.json` says that the lifecycle uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevcontainerConfig {
    /// The file it was read from.
    pub path: PathBuf,
    pub name: Option<String>,
    pub image: Option<String>,
    /// `build` (or the older top-level `dockerFile` / `context`).
    pub build: Option<BuildConfig>,
    pub container_env: BTreeMap<String, String>,
    /// Read, never applied by `up` (with either tool): it is for the
    /// processes a caller starts in the container. `None` unsets.
    pub remote_env: BTreeMap<String, Option<String>>,
    pub post_create_command: Option<LifecycleCommand>,
    pub workspace_folder: Option<String>,
    /// `Some("")` means no workspace mount at all, as in the CLI.
    pub workspace_mount: Option<String>,
    pub run_args: Vec<String>,
    /// Default true: the image's command is replaced by a keep-alive.
    pub override_command: bool,
    pub remote_user: Option<String>,
    pub container_user: Option<String>,
    /// Top-level keys not read into the fields above, sorted.
    pub other_keys: Vec<String>,
}

/// How the image is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildConfig {
    /// The Dockerfile, resolved against the configuration's folder.
    pub dockerfile: PathBuf,
    /// The build context, resolved likewise (default: that folder).
    pub context: PathBuf,
    /// `--build-arg`s.
    pub args: BTreeMap<String, String>,
    /// Keys of `build` not read here (`target`, `cacheFrom`, `options`…).
    pub other_keys: Vec<String>,
}

/// A lifecycle command in its three forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LifecycleCommand {
    /// A string: run by `/bin/sh -c`.
    Shell(String),
    /// An array: run as it is, no shell.
    Exec(Vec<String>),
    /// An object: each named command (a string or an array). The CLI
    /// runs them in parallel; the direct mode runs them one after the
    /// other, in name order, stopping at the first failure.
    Each(BTreeMap<String, LifecycleCommand>),
}

/// Keys read into [`DevcontainerConfig`] (the rest are `other_keys`).
const READ_KEYS: [&str; 15] = [
    "name",
    "image",
    "build",
    "dockerFile",
    "context",
    "containerEnv",
    "remoteEnv",
    "postCreateCommand",
    "workspaceFolder",
    "workspaceMount",
    "runArgs",
    "overrideCommand",
    "remoteUser",
    "containerUser",
    "$schema",
];

impl DevcontainerConfig {
    /// What `json` (the configuration at `path`) says; the refusal of a
    /// value of the wrong type names its key. Reading the file and the
    /// checks of what it names are [`super::Checked::load`]'s.
    pub(super) fn from_json(path: &Path, json: &Value) -> Result<Self, String> {
        let top = json
            .as_object()
            .ok_or("the configuration must be a JSON object")?;
        let folder = path.parent().unwrap_or(Path::new("."));
        // As the CLI decides (`isDockerFileConfig`): the older top-level
        // `dockerFile` first, then `build` with a `dockerfile`; a `build`
        // without one builds nothing.
        let build = match string(top, "dockerFile")? {
            Some(dockerfile) => Some(BuildConfig {
                context: context_of(folder, &dockerfile, string(top, "context")?),
                dockerfile: folder.join(dockerfile),
                args: BTreeMap::new(),
                other_keys: Vec::new(),
            }),
            None => match top.get("build") {
                Some(build) if build.get("dockerfile").is_some() => {
                    Some(build_config(folder, build)?)
                }
                Some(Value::Object(_) | Value::Null) | None => None,
                Some(_) => return Err("\"build\" must be an object".into()),
            },
        };
        let remote_env = match top.get("remoteEnv") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), Some(s.clone()))),
                    Value::Null => Ok((k.clone(), None)),
                    _ => Err(format!("\"remoteEnv\".{k:?} must be a string or null")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("\"remoteEnv\" must be an object".into()),
        };
        Ok(Self {
            path: path.to_path_buf(),
            name: string(top, "name")?,
            image: string(top, "image")?,
            build,
            container_env: string_map(top, "containerEnv")?,
            remote_env,
            post_create_command: match top.get("postCreateCommand") {
                None | Some(Value::Null) => None,
                Some(v) => lifecycle(v, "postCreateCommand", true)?,
            },
            workspace_folder: string(top, "workspaceFolder")?,
            workspace_mount: string(top, "workspaceMount")?,
            run_args: string_list(top, "runArgs")?,
            override_command: match top.get("overrideCommand") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("\"overrideCommand\" must be true or false".into()),
            },
            remote_user: string(top, "remoteUser")?,
            container_user: string(top, "containerUser")?,
            other_keys: top
                .keys()
                .filter(|k| !READ_KEYS.contains(&k.as_str()))
                .cloned()
                .collect(),
        })
    }
}

fn build_config(folder: &Path, build: &Value) -> Result<BuildConfig, String> {
    let build = build.as_object().ok_or("\"build\" must be an object")?;
    let dockerfile = string(build, "dockerfile")?.ok_or(
        "\"build\" has no \"dockerfile\"; name it (\"dockerfile\": \"Dockerfile\", beside devcontainer.json) or use \"image\"",
    )?;
    Ok(BuildConfig {
        context: context_of(folder, &dockerfile, string(build, "context")?),
        dockerfile: folder.join(dockerfile),
        args: string_map(build, "args")?,
        other_keys: build
            .keys()
            .filter(|k| !["dockerfile", "context", "args"].contains(&k.as_str()))
            .cloned()
            .collect(),
    })
}

/// The build context: as given (relative to the configuration's folder),
/// else the Dockerfile's own folder, as the CLI takes it.
fn context_of(folder: &Path, dockerfile: &str, context: Option<String>) -> PathBuf {
    match context {
        Some(context) => folder.join(context),
        None => folder
            .join(dockerfile)
            .parent()
            .map_or_else(|| folder.to_path_buf(), Path::to_path_buf),
    }
}

/// A lifecycle command; `None` when it is empty (the CLI skips those).
fn lifecycle(value: &Value, key: &str, nested: bool) -> Result<Option<LifecycleCommand>, String> {
    match value {
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => Ok(Some(LifecycleCommand::Shell(s.clone()))),
        Value::Array(items) if items.is_empty() => Ok(None),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(|argv| Some(LifecycleCommand::Exec(argv)))
            .ok_or_else(|| format!("{key}: an array command must hold only strings")),
        Value::Object(map) if nested => {
            let mut each = BTreeMap::new();
            for (name, command) in map {
                if let Some(command) = lifecycle(command, &format!("{key}.{name}"), false)? {
                    each.insert(name.clone(), command);
                }
            }
            Ok((!each.is_empty()).then_some(LifecycleCommand::Each(each)))
        }
        _ => Err(format!(
            "{key} must be a string, an array of strings{}",
            if nested { " or an object of those" } else { "" }
        )),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{key:?} must be a string")),
    }
}

fn string_map(map: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(entries)) => entries
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("{key:?}.{k:?} must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("{key:?} must be an object of strings")),
    }
}

fn string_list(map: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{key:?} must be an array of strings")),
        Some(_) => Err(format!("{key:?} must be an array of strings")),
    }
}
