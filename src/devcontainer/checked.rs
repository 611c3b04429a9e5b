//! A configuration checked for activation: the one home of what is
//! refused *even when a person trusts it*, and of which files a trust
//! digest covers.
//!
//! [`Checked::load_with`] reads the configuration once (through
//! [`files`](super::files): inside the repository, by descriptor, bounded,
//! non-blocking), parses it with the one JSONC parser, **resolves it as the
//! Dev Containers CLI will** (its variables replaced by the CLI's rules,
//! [`variables`](super::variables); its Docker Compose project as compose
//! reads it, [`compose`](super::compose)) and refuses:
//!
//! * a Dockerfile, build context, Docker Compose file (or what one reads:
//!   `extends`, `include`, `env_file`, a service's build) or local feature
//!   outside the repository, or not a regular file (a directory for a
//!   context) reached without a symlink — these are sent to the engine,
//!   which may be a remote `DOCKER_HOST`: `"context": "${localEnv:HOME}"`
//!   would upload the home, `"dockerfile": "/etc/shadow"` a secret;
//! * a command run on the host (`initializeCommand`, in any form) naming
//!   what the host cannot cover ([`commands`](super::commands)): an
//!   expansion, a pattern, a change of directory, a file outside the
//!   repository, a directory, a symlink, a file over 1 MiB;
//! * a value that would land in an argv as an option: an `image`,
//!   `workspaceFolder`, user, mount, target, service, port or variable
//!   name starting with `-` (`"image": "--privileged"`), and a bare word
//!   in `runArgs` or `build.options` that no option before it takes as
//!   its value (it would become the image, and what follows its command);
//! * what cannot be resolved with certainty (`${localEnv}` with no name, a
//!   compose key or interpolation the host does not resolve).
//!
//! **What the digest covers** ([`Checked::files`], [`Checked::digest`]):
//! the configuration; its Dockerfile and `.dockerignore` files; the
//! compose project's files and every file they read; every file of each
//! local feature's directory; every file a host command names (and, as
//! absent, every path it names that does not exist yet); each regular file
//! of the repository a container command names; and — when the
//! configuration uses variables — the configuration as resolved. The digest
//! is the sha256 of one line per file (`role`, path in the repository,
//! sha256), so changing, adding or removing any of them changes it. Not
//! covered, and said so by the summary: the rest of the build context
//! (what a Dockerfile `COPY`s), what a script runs in turn, images and
//! features fetched from a registry.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::commands::{self, HostWords};
use super::compose::{self, Project};
use super::config::DevcontainerConfig;
pub use super::coverage::CoveredFile;
use super::coverage::{Files, shown};
use super::files::{Repository, repository_of};
use super::jsonc::parse_jsonc;
use super::options;
use super::variables::{Context, devcontainer_id, posix_basename};
use super::{DevcontainerError, UpRequest};

/// The lifecycle commands, in the order they run, and whether each runs
/// on the host (only `initializeCommand`, and only through the CLI).
pub const LIFECYCLE: [(&str, bool); 6] = [
    ("initializeCommand", true),
    ("onCreateCommand", false),
    ("updateContentCommand", false),
    ("postCreateCommand", false),
    ("postStartCommand", false),
    ("postAttachCommand", false),
];

/// How the container is made, as the CLI chooses (a Dockerfile first,
/// then an image, then Docker Compose).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Build,
    Image,
    Compose(Project),
}

/// A configuration that passed every check, and what it was read from.
#[derive(Debug, Clone)]
pub struct Checked {
    /// What the lifecycle uses (resolved); the Dockerfile and context are
    /// the absolute paths checked (`..` resolved).
    pub config: DevcontainerConfig,
    /// The whole configuration as resolved (for the summary).
    pub json: Value,
    /// The configuration as written (which variables it reads).
    pub raw: Value,
    /// The configuration's bytes as read (what the CLI is handed).
    pub bytes: Vec<u8>,
    /// The checked Dockerfile's bytes, when it builds one (what the engine
    /// is handed in direct mode).
    pub dockerfile: Option<Vec<u8>>,
    pub mode: Mode,
    /// The hash a container is built from (out of date when it changes):
    /// the configuration's sha256, or with a Dockerfile the sha256 of
    /// `"<config sha256>\n<Dockerfile sha256>\n"`.
    pub config_hash: String,
    /// What the digest covers, the configuration first.
    pub files: Vec<CoveredFile>,
    /// The trust digest (module doc).
    pub digest: String,
    pub workspace: PathBuf,
    pub repository: PathBuf,
    /// The folder the CLI mounts (the git work tree holding the
    /// workspace, or the workspace) and where, and the workspace folder
    /// in the container.
    pub mount_source: PathBuf,
    pub mount_target: String,
    pub container_workspace: String,
}

impl Checked {
    /// Reads and checks the configuration of `req` with no environment
    /// handed in (`${localEnv:…}` is then empty, as for a CLI run with
    /// none).
    pub fn load(req: &UpRequest) -> Result<Self, DevcontainerError> {
        Self::load_with(req, &[])
    }

    /// Reads, resolves and checks the configuration of `req` as the CLI
    /// run with the environment `env` (`PATH` included) will.
    pub fn load_with(
        req: &UpRequest,
        env: &[(OsString, OsString)],
    ) -> Result<Self, DevcontainerError> {
        let repo = Repository::open(&req.repository)?;
        let refuse = |reason: String| DevcontainerError::Config {
            path: req.config.clone(),
            reason,
        };
        let workspace_rel = repo.relative(Path::new(""), &req.workspace).map_err(|_| {
            DevcontainerError::Request(format!(
                "the workspace {} is not inside the repository {}",
                req.workspace.display(),
                req.repository.display()
            ))
        })?;
        let config_rel = repo
            .relative(Path::new(""), &req.config)
            .map_err(|e| refuse(format!("the configuration: {e}")))?;
        let bytes = repo
            .read(&config_rel)
            .map_err(|e| refuse(format!("cannot read the configuration: {e}")))?;
        let text =
            std::str::from_utf8(&bytes).map_err(|e| refuse(format!("not UTF-8 text ({e})")))?;
        let raw = parse_jsonc(text).map_err(&refuse)?;

        // The CLI's resolution: what the workspace mount and folder are,
        // then every variable.
        let workspace = utf8(&req.workspace)?;
        let mount_source = repository_of(&req.workspace);
        let mount_target = format!("/workspaces/{}", posix_basename(utf8(&mount_source)?));
        let compose = raw.get("dockerComposeFile").is_some();
        let default_folder = if compose {
            "/".to_owned()
        } else {
            let inner = req
                .workspace
                .strip_prefix(&mount_source)
                .unwrap_or(Path::new(""));
            let inner = utf8(inner)?;
            if inner.is_empty() {
                mount_target.clone()
            } else {
                format!("{mount_target}/{inner}")
            }
        };
        let container_workspace = match raw.get("workspaceFolder").and_then(Value::as_str) {
            Some(folder) if folder.contains("${containerWorkspaceFolder") => {
                return Err(refuse(
                    "workspaceFolder names ${containerWorkspaceFolder…}, itself: the host cannot                      be certain what the CLI makes of it"
                        .into(),
                ));
            }
            Some(folder) if !folder.is_empty() => folder.to_owned(),
            _ => default_folder,
        };
        let context = Context {
            local_workspace: workspace.to_owned(),
            container_workspace,
            env: env.to_vec(),
            devcontainer_id: devcontainer_id(&[req.id_label.as_str()]),
        };
        let json = context.substitute(&raw).map_err(|e| refuse(e.0))?;
        let container_workspace = match json.get("workspaceFolder").and_then(Value::as_str) {
            Some(folder) if !folder.is_empty() => folder.to_owned(),
            _ => context
                .substitute_text(&context.container_workspace)
                .map_err(|e| refuse(e.0))?,
        };

        let mut config = DevcontainerConfig::from_json(&req.config, &json).map_err(&refuse)?;
        check_argv_values(&json).map_err(&refuse)?;
        options::run_args(&config.run_args).map_err(&refuse)?;
        if let Some(list) = json.pointer("/build/options").and_then(Value::as_array) {
            let words: Vec<String> = list
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            options::build_options(&words).map_err(&refuse)?;
        }

        let folder = config_rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let config_sha = crate::digest::sha256_hex(&bytes);
        let mut files = Files::new(&repo, &req.config);
        files.add("configuration", &config_rel, &bytes);
        if json != raw {
            // Variables: what they stand for is part of what was shown.
            let resolved = serde_json::to_vec(&json).unwrap_or_default();
            files.add(
                "configuration as resolved (its variables)",
                &config_rel,
                &resolved,
            );
        }
        let mut config_hash = config_sha.clone();
        let mut dockerfile_bytes = None;
        let mode = if let Some(build) = &mut config.build {
            let dockerfile = files.inside(&folder, &build.dockerfile, "build.dockerfile")?;
            let text = files.read_for(&dockerfile, "Dockerfile", "build.dockerfile")?;
            let context = files.inside(&folder, &build.context, "build.context")?;
            repo.check_dir(&context)
                .map_err(|e| refuse(format!("build.context {}: {e}", shown(&build.context))))?;
            let mut ignore = dockerfile.clone().into_os_string();
            ignore.push(".dockerignore");
            files.optional(Path::new(&ignore), "Dockerfile's .dockerignore")?;
            files.optional(&context.join(".dockerignore"), "context's .dockerignore")?;
            build.dockerfile = repo.path(&dockerfile);
            build.context = repo.path(&context);
            let both = format!("{config_sha}\n{}\n", crate::digest::sha256_hex(&text));
            config_hash = crate::digest::sha256_hex(both.as_bytes());
            dockerfile_bytes = Some(text);
            Mode::Build
        } else if json.get("image").is_some() {
            Mode::Image
        } else if compose {
            let (list, _env_file) =
                compose::compose_files(&mut files, &json, &folder, &workspace_rel, env)
                    .map_err(&refuse)?;
            Mode::Compose(compose::read_project(&mut files, &list).map_err(&refuse)?)
        } else {
            return Err(refuse(
                "it names neither an \"image\" nor a \"build\" with a \"dockerfile\" nor a \
                 \"dockerComposeFile\": the Dev Containers CLI refuses it; say which image to \
                 run or how to build it"
                    .into(),
            ));
        };
        for feature in local_features(&json) {
            let rel = files.inside(&folder, Path::new(&feature), "features")?;
            files.directory(&rel, "local feature", "features")?;
        }
        for (key, host) in LIFECYCLE {
            for command in commands::commands(&json, key) {
                let name = &command.name;
                if host {
                    match commands::host_words(&command) {
                        HostWords::Words(words) => {
                            for word in words {
                                files.host_word(&workspace_rel, name, &word.text, word.nested)?;
                            }
                        }
                        HostWords::Refused(why) => {
                            return Err(refuse(format!("{name} runs on the host, and {why}")));
                        }
                    }
                } else {
                    for word in commands::container_words(&command) {
                        files.container_word(&workspace_rel, name, &word);
                    }
                }
            }
        }
        let files = files.done();
        let mut lines = String::new();
        for f in &files {
            lines.push_str(&format!("{}\t{}\t{}\n", f.role, f.path, f.sha256));
        }
        Ok(Self {
            config,
            json,
            raw,
            bytes,
            dockerfile: dockerfile_bytes,
            mode,
            config_hash,
            digest: crate::digest::sha256_hex(lines.as_bytes()),
            files,
            workspace: req.workspace.clone(),
            repository: req.repository.clone(),
            mount_source,
            mount_target,
            container_workspace,
        })
    }
}

fn utf8(path: &Path) -> Result<&str, DevcontainerError> {
    path.to_str().ok_or_else(|| {
        DevcontainerError::Request(format!(
            "{} is not UTF-8: the Dev Containers CLI cannot name it",
            path.display()
        ))
    })
}

/// The local features: `features` keys that are paths (`./x`, `../x`).
pub(super) fn local_features(json: &Value) -> Vec<String> {
    json.get("features")
        .and_then(Value::as_object)
        .map(|features| {
            features
                .keys()
                .filter(|k| k.starts_with("./") || k.starts_with("../"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// A value that is a string, a number, or a list of them, as strings.
pub(super) fn strings(v: Option<&Value>) -> Vec<String> {
    let one = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(one).collect(),
        Some(v) => one(v).into_iter().collect(),
        None => Vec::new(),
    }
}

/// No value that lands in an argv may start with `-` (module doc).
fn check_argv_values(json: &Value) -> Result<(), String> {
    let option_like = |key: &str, text: &str| -> Result<(), String> {
        if text.starts_with('-') {
            Err(format!(
                "{key} {} starts with '-': it would be read as an option of the engine's \
                 command line",
                crate::text::quote(text)
            ))
        } else {
            Ok(())
        }
    };
    for key in [
        "image",
        "workspaceFolder",
        "workspaceMount",
        "containerUser",
        "remoteUser",
        "mounts",
        "service",
        "runServices",
        "appPort",
        "forwardPorts",
        "dockerComposeFile",
    ] {
        for text in strings(json.get(key)) {
            option_like(key, &text)?;
        }
    }
    for key in ["target", "cacheFrom"] {
        for text in strings(json.get("build").and_then(|b| b.get(key))) {
            option_like(&format!("build.{key}"), &text)?;
        }
    }
    for (key, map) in [
        ("containerEnv", json.get("containerEnv")),
        ("remoteEnv", json.get("remoteEnv")),
        ("build.args", json.get("build").and_then(|b| b.get("args"))),
    ] {
        for name in map
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.keys())
        {
            option_like(&format!("{key} name"), name)?;
            if name.contains('=') {
                return Err(format!(
                    "{key} name {} holds '=': a variable's name cannot",
                    crate::text::quote(name)
                ));
            }
        }
    }
    Ok(())
}
