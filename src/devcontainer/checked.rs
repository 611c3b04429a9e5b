//! A configuration checked for activation: the one home of what is
//! refused *even when a person trusts it*, and of which files a trust
//! digest covers.
//!
//! [`Checked::load`] reads the configuration once (through
//! [`files`](super::files): inside the repository, by descriptor, bounded,
//! non-blocking), parses it with the one JSONC parser, and refuses:
//!
//! * a Dockerfile, build context, Docker Compose file or local feature
//!   outside the repository, or not a regular file (a directory for a
//!   context) reached without a symlink — these are sent to the engine,
//!   which may be a remote `DOCKER_HOST`: `"context": "/"` would upload the
//!   host's whole filesystem, `"dockerfile": "/etc/shadow"` a secret;
//! * a value that would land in an argv as an option: an `image`,
//!   `workspaceFolder`, user, mount, target, service, port or variable
//!   name starting with `-` (`"image": "--privileged"`), and a bare word
//!   in `runArgs` or `build.options` that no option before it takes as
//!   its value (it would become the image, and what follows its command).
//!
//! **What the digest covers** ([`Checked::files`], [`Checked::digest`]):
//! the configuration; its Dockerfile and `.dockerignore` files; its
//! Docker Compose files and the `.env` beside them; the files of each
//! local feature (`./name` in `features`); and every regular file inside
//! the repository that a lifecycle command names as a word
//! (`"initializeCommand": "sh .devcontainer/init.sh"`). The digest is the
//! sha256 of one line per file (`role`, path in the repository, sha256),
//! so changing, adding or removing any of them changes it. Not covered,
//! and said so by the summary: the rest of the build context (what a
//! Dockerfile `COPY`s), what a script runs in turn, images and features
//! fetched from a registry.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::DevcontainerConfig;
use super::files::Repository;
use super::jsonc::parse_jsonc;
use super::options;
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

/// How many files a local feature, and the commands' words, may add.
const MAX_NAMED_FILES: usize = 64;

/// One file the digest covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoveredFile {
    /// What it is to the configuration (`configuration`, `Dockerfile`, …).
    pub role: String,
    /// Its path inside the repository.
    pub path: String,
    pub sha256: String,
}

/// A configuration that passed every check, and what it was read from.
#[derive(Debug, Clone)]
pub struct Checked {
    /// What the lifecycle uses; the Dockerfile and context are the
    /// absolute paths checked (`..` resolved).
    pub config: DevcontainerConfig,
    /// The whole configuration as parsed (for the summary).
    pub json: Value,
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
}

impl Checked {
    /// Reads and checks the configuration of `req`.
    pub fn load(req: &UpRequest) -> Result<Self, DevcontainerError> {
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
        let json = parse_jsonc(text).map_err(&refuse)?;
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
        let mut files = Files::new(&repo, &refuse);
        files.add("configuration", &config_rel, &bytes);
        let mut config_hash = config_sha.clone();
        if let Some(build) = &mut config.build {
            let dockerfile = files.inside(&folder, &build.dockerfile, "build.dockerfile")?;
            let text = files.read(&dockerfile, "build.dockerfile")?;
            files.add("Dockerfile", &dockerfile, &text);
            let context = files.inside(&folder, &build.context, "build.context")?;
            repo.check_dir(&context)
                .map_err(|e| refuse(format!("build.context {}: {e}", shown(&build.context))))?;
            let mut ignore = dockerfile.clone().into_os_string();
            ignore.push(".dockerignore");
            files.optional("Dockerfile's .dockerignore", Path::new(&ignore))?;
            files.optional("context's .dockerignore", &context.join(".dockerignore"))?;
            build.dockerfile = repo.path(&dockerfile);
            build.context = repo.path(&context);
            let both = format!("{config_sha}\n{}\n", crate::digest::sha256_hex(&text));
            config_hash = crate::digest::sha256_hex(both.as_bytes());
        }
        for (i, compose) in compose_files(&json).iter().enumerate() {
            let rel = files.inside(&folder, Path::new(compose), "dockerComposeFile")?;
            let text = files.read(&rel, "dockerComposeFile")?;
            files.add("Docker Compose file", &rel, &text);
            if i == 0 {
                let env = rel.parent().unwrap_or(Path::new("")).join(".env");
                files.optional("Docker Compose .env", &env)?;
            }
        }
        for feature in local_features(&json) {
            let rel = files.inside(&folder, Path::new(&feature), "features")?;
            let names = repo
                .files_in(&rel, MAX_NAMED_FILES)
                .map_err(|e| refuse(format!("the local feature {}: {e}", shown(&feature))))?;
            for name in names {
                let text = files.read(&name, "features")?;
                files.add("local feature", &name, &text);
            }
        }
        for (key, word) in command_words(&json) {
            files.named_by(&workspace_rel, &key, &word);
        }
        let files = files.done();
        let mut lines = String::new();
        for f in &files {
            lines.push_str(&format!("{}\t{}\t{}\n", f.role, f.path, f.sha256));
        }
        Ok(Self {
            config,
            json,
            config_hash,
            digest: crate::digest::sha256_hex(lines.as_bytes()),
            files,
            workspace: req.workspace.clone(),
            repository: req.repository.clone(),
        })
    }
}

/// The covered files being gathered.
struct Files<'a, F> {
    repo: &'a Repository,
    refuse: &'a F,
    list: Vec<CoveredFile>,
    named: usize,
}

impl<'a, F: Fn(String) -> DevcontainerError> Files<'a, F> {
    fn new(repo: &'a Repository, refuse: &'a F) -> Self {
        Self {
            repo,
            refuse,
            list: Vec::new(),
            named: 0,
        }
    }

    /// `path` (relative to the configuration's folder) inside the
    /// repository, or the refusal naming `key`.
    fn inside(&self, folder: &Path, path: &Path, key: &str) -> Result<PathBuf, DevcontainerError> {
        self.repo.relative(folder, path).map_err(|e| {
            (self.refuse)(format!(
                "{key} {}: {e} ({}); a build reads only files inside the repository, which \
                 are sent to the engine",
                shown(path),
                self.repo.root().display()
            ))
        })
    }

    fn read(&self, rel: &Path, key: &str) -> Result<Vec<u8>, DevcontainerError> {
        self.repo
            .read(rel)
            .map_err(|e| (self.refuse)(format!("{key} {}: {e}", shown(self.repo.path(rel)))))
    }

    fn optional(&mut self, role: &str, rel: &Path) -> Result<(), DevcontainerError> {
        match self.repo.read_optional(rel) {
            Ok(Some(bytes)) => {
                self.add(role, rel, &bytes);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => Err((self.refuse)(format!(
                "{} {}: {e}",
                role,
                shown(self.repo.path(rel))
            ))),
        }
    }

    /// A file a command names by the word `word` (relative to the
    /// workspace, where commands run), when it is a regular file inside
    /// the repository; anything else is not a file of the repository's.
    fn named_by(&mut self, workspace: &Path, key: &str, word: &str) {
        if self.named == MAX_NAMED_FILES || word.starts_with('-') || word.contains('$') {
            return;
        }
        let Ok(rel) = self.repo.relative(workspace, Path::new(word)) else {
            return;
        };
        if rel.as_os_str().is_empty() || self.list.iter().any(|f| Path::new(&f.path) == rel) {
            return;
        }
        if let Ok(bytes) = self.repo.read(&rel) {
            self.named += 1;
            self.add(&format!("named by {key}"), &rel, &bytes);
        }
    }

    fn add(&mut self, role: &str, rel: &Path, bytes: &[u8]) {
        self.list.push(CoveredFile {
            role: role.to_owned(),
            path: rel.display().to_string(),
            sha256: crate::digest::sha256_hex(bytes),
        });
    }

    /// The configuration first, the rest by path.
    fn done(mut self) -> Vec<CoveredFile> {
        if self.list.len() > 1 {
            self.list[1..].sort_by(|a, b| a.path.cmp(&b.path).then(a.role.cmp(&b.role)));
        }
        self.list
    }
}

fn shown(path: impl AsRef<Path>) -> String {
    crate::text::quote(&path.as_ref().display().to_string())
}

/// `dockerComposeFile`: a string or an array of strings.
pub(super) fn compose_files(json: &Value) -> Vec<String> {
    match json.get("dockerComposeFile") {
        Some(Value::String(file)) => vec![file.clone()],
        Some(Value::Array(files)) => files
            .iter()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
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

/// Every word of every lifecycle command, with its key (`key.name` for
/// the object form).
fn command_words(json: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (key, _) in LIFECYCLE {
        for (name, argv) in commands(json, key) {
            for word in argv {
                let word = word.trim_matches(|c| c == '"' || c == '\'');
                if !word.is_empty() {
                    out.push((name.clone(), word.to_owned()));
                }
            }
        }
    }
    out
}

/// A lifecycle command `key` as words: a string split on white space, an
/// array as it is, an object's each (named `key.name`).
pub(super) fn commands(json: &Value, key: &str) -> Vec<(String, Vec<String>)> {
    let words = |v: &Value| -> Option<Vec<String>> {
        match v {
            Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect(),
            ),
            _ => None,
        }
    };
    match json.get(key) {
        Some(Value::Object(each)) => each
            .iter()
            .filter_map(|(name, v)| words(v).map(|w| (format!("{key}.{name}"), w)))
            .collect(),
        Some(v) => words(v)
            .map(|w| vec![(key.to_owned(), w)])
            .unwrap_or_default(),
        None => Vec::new(),
    }
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
