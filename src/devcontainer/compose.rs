//! A Docker Compose configuration as the engine will read it: the one home
//! of which compose files a devcontainer starts, which files they read in
//! turn, and what every service they start is granted — for the digest and
//! the summary.
//!
//! **Which files.** As the Dev Containers CLI 0.89 chooses them
//! (`getDockerComposeFilePaths`): `dockerComposeFile` as a string or a
//! non-empty array, relative to the configuration's folder; anything else
//! (an empty array, `null`, another type) falls back to the CLI's own
//! environment's `COMPOSE_FILE`, else the `COMPOSE_FILE=` line of the
//! workspace's `.env`, else the workspace's `docker-compose.yml` and, when
//! it exists, `docker-compose.override.yml`. With the empty array the CLI
//! also hands compose the workspace's `.env` (`--env-file`), so it is read
//! and covered; the `.env` beside the first file (compose's own default)
//! is covered too.
//!
//! **What they read in turn**, each inside the repository, by descriptor,
//! covered by the digest (`extends` files, `include`d files and their
//! `env_file`s, every service's `env_file` and `label_file`, each build's
//! Dockerfile and `.dockerignore`s, a secret's or config's `file` used by
//! a build), resolved as compose resolves them: a `-f` file's relative
//! paths against the project directory (the first file's folder), an
//! extended file's against its own folder, an included file's against its
//! own folder or its `project_directory`.
//!
//! **Conservative.** There is no compose on every host (the CLI itself
//! needs `docker compose` to read them), so the host reads the files
//! itself (`compose/service.rs` for a service's keys) and refuses, naming
//! the file and the key, whatever it cannot resolve with certainty: a key
//! it does not know, an interpolation (`${VAR}`, `$VAR`) in a path or a
//! privilege, a remote `include` or build context, a file outside the
//! repository, relative `extends` or `include` in a file whose paths are
//! rebased (a later `-f` file in another folder), a chain deeper than
//! [`MAX_DEPTH`] or more than [`MAX_FILES`] files. What it reads it
//! over-reports rather than under-reports: every service of every file is
//! summarised (profiles and `runServices` aside), an extended service's
//! grants are listed with the service that extends it.

mod service;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The most files one configuration's compose project may read.
pub const MAX_FILES: usize = 64;
/// The deepest `extends` / `include` chain followed.
pub const MAX_DEPTH: usize = 8;

/// What the host does for the compose reader: resolve a path inside the
/// repository (relative to a folder of it), read and cover a file, check
/// a directory.
pub trait Reader {
    /// `path` (relative to the repository's folder `base`, or absolute)
    /// inside the repository, `..` resolved; the refusal says why not.
    fn inside(&self, base: &Path, path: &str, what: &str) -> Result<PathBuf, String>;
    /// The bytes of `rel`, covered by the digest as `role`.
    fn read(&mut self, rel: &Path, role: &str) -> Result<Vec<u8>, String>;
    /// [`Reader::read`], or `None` (recorded as absent) when it does not
    /// exist.
    fn optional(&mut self, rel: &Path, role: &str) -> Result<Option<Vec<u8>>, String>;
    /// `rel` is a directory reached without a symlink.
    fn check_dir(&self, rel: &Path) -> Result<(), String>;
    /// Whether `rel` is a regular file (without reading it).
    fn is_file(&self, rel: &Path) -> bool;
    /// The absolute path of `rel`, for people.
    fn shown(&self, rel: &Path) -> String;
    /// Inside the repository? (for a bind's source, an absolute path)
    fn holds(&self, absolute: &Path) -> bool;
}

/// One thing a service is granted, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub service: String,
    pub text: String,
    /// Reaches beyond an ordinary container's isolation.
    pub host: bool,
}

/// A compose project, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Project {
    /// The `-f` files, in order, as paths in the repository.
    pub files: Vec<String>,
    /// Every service found, sorted.
    pub services: Vec<String>,
    pub grants: Vec<Grant>,
    /// Images that are not pinned by digest.
    pub unpinned_images: Vec<String>,
    /// Each build: the service, its context and Dockerfile (absolute).
    pub builds: Vec<(String, String, String)>,
    /// Each bind mount: the service and its source (absolute).
    pub binds: Vec<(String, String)>,
}

/// The compose files the CLI passes (`-f`) for `json` (module doc), as
/// paths in the repository, and the `.env` it passes with `--env-file`.
pub fn compose_files(
    reader: &mut dyn Reader,
    json: &Value,
    config_folder: &Path,
    workspace: &Path,
    env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> Result<(Vec<PathBuf>, Option<PathBuf>), String> {
    let named = |r: &dyn Reader, list: &[&str]| -> Result<Vec<PathBuf>, String> {
        list.iter()
            .map(|f| r.inside(config_folder, f, "dockerComposeFile"))
            .collect()
    };
    match json.get("dockerComposeFile") {
        Some(Value::String(file)) => return Ok((named(reader, &[file])?, None)),
        Some(Value::Array(list)) if !list.is_empty() => {
            let mut files = Vec::new();
            for item in list {
                let Some(file) = item.as_str() else {
                    return Err(format!(
                        "dockerComposeFile holds {item}, which is not a path: the Dev Containers \
                         CLI would fail on it"
                    ));
                };
                files.push(file);
            }
            return Ok((named(reader, &files)?, None));
        }
        _ => {}
    }
    let empty_list = json
        .get("dockerComposeFile")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty);
    let dot_env = workspace.join(".env");
    let env_text = reader
        .optional(
            &dot_env,
            "the workspace's .env (read by the Dev Containers CLI)",
        )?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let env_file = (empty_list && env_text.is_some()).then(|| dot_env.clone());
    let from_env = env
        .iter()
        .find(|(k, _)| k == "COMPOSE_FILE")
        .map(|(_, v)| v.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty());
    let from_dot_env = env_text.as_deref().and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("COMPOSE_FILE="))
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    });
    if let Some(list) = from_env.or(from_dot_env) {
        let files = list
            .split(':')
            .map(|f| reader.inside(workspace, f, "COMPOSE_FILE"))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok((files, env_file));
    }
    let mut files = vec![workspace.join("docker-compose.yml")];
    let overrides = workspace.join("docker-compose.override.yml");
    if reader.is_file(&overrides) {
        files.push(overrides);
    } else {
        reader.optional(&overrides, "Docker Compose file")?;
    }
    Ok((files, env_file))
}

/// A file of the project and the folder its relative paths resolve
/// against.
#[derive(Debug, Clone)]
pub(super) struct Source {
    pub file: PathBuf,
    pub base: PathBuf,
    /// Whether `extends` and `include` may use relative paths in it.
    pub certain: bool,
    pub top: Map<String, Value>,
}

/// Reads the project of `files` (the `-f` list) and every file it reads.
pub fn read_project(reader: &mut dyn Reader, files: &[PathBuf]) -> Result<Project, String> {
    let Some(first) = files.first() else {
        return Err("no compose file".into());
    };
    let project_dir = first.parent().unwrap_or(Path::new("")).to_path_buf();
    // Compose's own `.env` (interpolation) beside the first file.
    reader.optional(
        &project_dir.join(".env"),
        "Docker Compose .env (project directory)",
    )?;
    let mut state = State {
        project: Project {
            files: files.iter().map(|f| f.display().to_string()).collect(),
            ..Project::default()
        },
        read: BTreeSet::new(),
        services: BTreeSet::new(),
    };
    for file in files {
        let own = file.parent().unwrap_or(Path::new(""));
        let source = load(reader, &mut state, file, &project_dir, own == project_dir)?;
        state.source(reader, &source, 0)?;
    }
    state.project.services = state.services.into_iter().collect();
    Ok(state.project)
}

/// What is gathered while reading.
pub(super) struct State {
    pub project: Project,
    /// The files read so far (each once).
    read: BTreeSet<PathBuf>,
    services: BTreeSet<String>,
}

/// Top-level keys of a compose file.
const TOP_KEYS: &[&str] = &[
    "version", "name", "services", "networks", "volumes", "secrets", "configs", "include",
];

/// Reads and parses one compose file.
pub(super) fn load(
    reader: &mut dyn Reader,
    state: &mut State,
    file: &Path,
    base: &Path,
    certain: bool,
) -> Result<Source, String> {
    if state.read.len() >= MAX_FILES && !state.read.contains(file) {
        return Err(format!(
            "the compose project reads more than {MAX_FILES} files"
        ));
    }
    state.read.insert(file.to_path_buf());
    let shown = reader.shown(file);
    let bytes = reader.read(file, "Docker Compose file")?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("the compose file {shown} is not UTF-8 text ({e})"))?;
    crate::yaml_bounds::check_yaml(text).map_err(|e| format!("the compose file {shown}: {e}"))?;
    let mut yaml: serde_yaml::Value = serde_yaml::from_str(text)
        .map_err(|e| format!("the compose file {shown} is not valid YAML: {e}"))?;
    yaml.apply_merge()
        .map_err(|e| format!("the compose file {shown}: {e}"))?;
    let json = serde_json::to_value(&yaml).map_err(|e| {
        format!("the compose file {shown} holds what compose does not read (a key that is not text?): {e}")
    })?;
    let top = match json {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        _ => return Err(format!("the compose file {shown} is not a mapping")),
    };
    for key in top.keys() {
        if !TOP_KEYS.contains(&key.as_str()) && !key.starts_with("x-") {
            return Err(format!(
                "the compose file {shown} has the top-level key {}, which the host does not \
                 know: it cannot tell what it does",
                crate::text::quote(key)
            ));
        }
    }
    Ok(Source {
        file: file.to_path_buf(),
        base: base.to_path_buf(),
        certain,
        top,
    })
}

impl State {
    /// Everything `source` holds: its includes, then its services.
    fn source(
        &mut self,
        reader: &mut dyn Reader,
        source: &Source,
        depth: usize,
    ) -> Result<(), String> {
        let shown = reader.shown(&source.file);
        if let Some(include) = source.top.get("include") {
            self.include(reader, source, include, depth)
                .map_err(|e| format!("{shown}: include: {e}"))?;
        }
        service::project::top_level(reader, self, source).map_err(|e| format!("{shown}: {e}"))?;
        let services = match source.top.get("services") {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Object(map)) => map.clone(),
            Some(_) => return Err(format!("{shown}: services must be a mapping")),
        };
        for (name, body) in &services {
            self.services.insert(name.clone());
            let mut chain = vec![(source.file.clone(), name.clone())];
            service::read(reader, self, source, name, name, body, &mut chain)
                .map_err(|e| format!("{shown}: service {}: {e}", crate::text::quote(name)))?;
        }
        Ok(())
    }

    fn include(
        &mut self,
        reader: &mut dyn Reader,
        source: &Source,
        include: &Value,
        depth: usize,
    ) -> Result<(), String> {
        if !source.certain {
            return Err(uncertain("include"));
        }
        if depth == MAX_DEPTH {
            return Err(format!("includes nest deeper than {MAX_DEPTH}"));
        }
        let Value::Array(entries) = include else {
            return Err("must be a list".into());
        };
        for entry in entries {
            let (paths, project_directory, env_files) = match entry {
                Value::String(p) => (vec![p.clone()], None, Vec::new()),
                Value::Object(map) => {
                    for key in map.keys() {
                        if !["path", "project_directory", "env_file"].contains(&key.as_str()) {
                            return Err(format!(
                                "an entry's key {} is not known",
                                crate::text::quote(key)
                            ));
                        }
                    }
                    (
                        service::values::strings(map.get("path"), "path")?,
                        map.get("project_directory")
                            .map(|v| service::values::plain(v, "project_directory"))
                            .transpose()?,
                        service::values::strings(map.get("env_file"), "env_file")?,
                    )
                }
                _ => return Err("an entry must be a path or a mapping".into()),
            };
            let mut first_dir = None;
            for path in &paths {
                service::values::literal(path, "path")?;
                if path.contains("://") || path.starts_with("git@") {
                    return Err(format!(
                        "{} is remote: the host covers only files in the repository",
                        crate::text::quote(path)
                    ));
                }
                let file = reader.inside(&source.base, path, "include")?;
                first_dir
                    .get_or_insert_with(|| file.parent().unwrap_or(Path::new("")).to_path_buf());
                let base = match &project_directory {
                    Some(dir) => reader.inside(&source.base, dir, "include.project_directory")?,
                    None => first_dir.clone().unwrap_or_default(),
                };
                for env in &env_files {
                    let rel = reader.inside(&source.base, env, "include.env_file")?;
                    reader.read(&rel, "included project's env_file")?;
                }
                if env_files.is_empty() {
                    reader.optional(&base.join(".env"), "included project's .env")?;
                }
                let included = load(reader, self, &file, &base, true)?;
                self.source(reader, &included, depth + 1)?;
            }
        }
        Ok(())
    }

    pub(super) fn grant(&mut self, service: &str, text: String, host: bool) {
        let grant = Grant {
            service: service.to_owned(),
            text,
            host,
        };
        if !self.project.grants.contains(&grant) {
            self.project.grants.push(grant);
        }
    }

    pub(super) fn image(&mut self, image: &str) {
        if !image.contains("@sha256:") && !self.project.unpinned_images.iter().any(|i| i == image) {
            self.project.unpinned_images.push(image.to_owned());
        }
    }

    /// Loads `file` for `extends` (once per chain; the caller bounds it).
    pub(super) fn load_extended(
        &mut self,
        reader: &mut dyn Reader,
        file: &Path,
    ) -> Result<Source, String> {
        let own = file.parent().unwrap_or(Path::new("")).to_path_buf();
        load(reader, self, file, &own, true)
    }
}

pub(super) fn uncertain(key: &str) -> String {
    format!(
        "{key} in a compose file whose relative paths compose rebases onto another folder (a \
         later -f file in a folder of its own): the host cannot be certain which file it names; \
         move the file beside the first one"
    )
}
