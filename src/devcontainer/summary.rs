//! What activating a configuration will do, for a person to read before
//! trusting it: the one home of how a `devcontainer.json` is explained.
//!
//! A [`Summary`] is built from a [`Checked`] configuration (so it shows
//! exactly what was read and what the digest covers) and lists, as
//! [`Item`]s by [`Section`]: the commands that run on the host
//! (`initializeCommand`, through the Dev Containers CLI) and in the
//! container; the image, or the Dockerfile and context it builds, the
//! Compose files and features; every mount and bind, with a source outside
//! the repository called out; every `runArgs` option and what it grants
//! (privileged, capabilities, devices, security options, host namespaces);
//! the environment (and every host variable it reads, `${localEnv:…}`);
//! the users; the ports; keys not explained here. An item that reaches
//! beyond an ordinary container's isolation is marked `host`. The tool
//! named is what is on `PATH` now (found without running it).
//!
//! The summary is tool-independent on purpose: it says what the
//! configuration *asks for*, since installing the Dev Containers CLI
//! later makes all of it run (the direct mode refuses what it cannot do).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checked::{Checked, LIFECYCLE, Mode, local_features, strings};
use super::commands;
use super::coverage::{ABSENT, CoveredFile};
use super::detect::ToolsOnPath;
use super::options::{self, Source, mount_spec};

/// Where an item belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    HostCommands,
    ContainerCommands,
    Build,
    Compose,
    Mounts,
    RunArgs,
    Privileges,
    Environment,
    Users,
    Ports,
    Other,
}

impl Section {
    /// The heading people read.
    pub fn heading(self) -> &'static str {
        match self {
            Self::HostCommands => "commands run ON THE HOST",
            Self::ContainerCommands => "commands run in the container",
            Self::Build => "image",
            Self::Compose => "Docker Compose services",
            Self::Mounts => "mounts",
            Self::RunArgs => "docker run options (runArgs)",
            Self::Privileges => "privileges",
            Self::Environment => "environment",
            Self::Users => "users",
            Self::Ports => "ports",
            Self::Other => "other keys",
        }
    }
}

/// One thing activation does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub section: Section,
    pub text: String,
    /// Reaches beyond an ordinary container's isolation (the host's
    /// files, processes, network, devices, variables — or is not known).
    pub host: bool,
}

/// What activating one configuration will do (module doc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The configuration file.
    pub config: String,
    /// The repository everything it reads lies in.
    pub repository: String,
    /// The tool that would run it, as found on `PATH` now.
    pub tool: String,
    pub items: Vec<Item>,
    /// The files the digest covers.
    pub files: Vec<CoveredFile>,
    /// What can change without the digest changing.
    pub not_covered: Vec<String>,
    /// The digest a trust decision is bound to.
    pub digest: String,
}

/// Keys explained by this summary, or known to do nothing on the host.
#[rustfmt::skip]
const EXPLAINED: &[&str] = &[
    "$schema", "name", "image", "build", "dockerFile", "context", "dockerComposeFile",
    "service", "runServices", "features", "overrideFeatureInstallOrder", "workspaceFolder",
    "workspaceMount", "mounts", "runArgs", "privileged", "capAdd", "securityOpt", "init",
    "containerEnv", "remoteEnv", "containerUser", "remoteUser", "updateRemoteUserUID",
    "userEnvProbe", "forwardPorts", "appPort", "portsAttributes", "otherPortsAttributes",
    "overrideCommand", "shutdownAction", "waitFor", "customizations", "hostRequirements",
    "initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand",
    "postStartCommand", "postAttachCommand",
];

/// Variables that change what every program in the container loads.
#[rustfmt::skip]
const LOADER_VARS: &[&str] = &[
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
    "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS",
];

impl Summary {
    /// The summary of `checked`, run by what `tools` found.
    pub fn of(checked: &Checked, tools: &ToolsOnPath) -> Self {
        let json = &checked.json;
        let mut items = Vec::new();
        let mut add = |section, text: String, host| {
            items.push(Item {
                section,
                text,
                host,
            })
        };
        let repository = &checked.repository;
        let source = |src: &str| classify(src, repository);

        for (key, host) in LIFECYCLE {
            for command in commands::commands(json, key) {
                let section = if host {
                    Section::HostCommands
                } else {
                    Section::ContainerCommands
                };
                let text = commands::shown(&command);
                add(section, format!("{}: {text}", command.name), host);
            }
        }

        match (&checked.config.build, &checked.config.image) {
            (Some(build), _) => {
                let mut text = format!(
                    "builds {} with the context {} (sent to the engine)",
                    build.dockerfile.display(),
                    build.context.display()
                );
                for (k, v) in &build.args {
                    text.push_str(&format!("; --build-arg {k}={v}"));
                }
                add(Section::Build, text, false);
                if let Some(target) = json.pointer("/build/target").and_then(Value::as_str) {
                    add(Section::Build, format!("build target {target}"), false);
                }
                for opt in strings(json.pointer("/build/options")) {
                    add(Section::Build, format!("docker build option {opt}"), true);
                }
            }
            (None, Some(image)) => add(Section::Build, format!("runs the image {image}"), false),
            (None, None) => {}
        }
        if let Mode::Compose(project) = &checked.mode {
            add(
                Section::Build,
                format!(
                    "Docker Compose ({}), service {}: every service below is started (what \
                     `runServices` and profiles leave out included, to be safe)",
                    project.files.join(", "),
                    json.get("service").and_then(Value::as_str).unwrap_or("?")
                ),
                false,
            );
            for service in &project.services {
                if !project.grants.iter().any(|g| &g.service == service) {
                    add(
                        Section::Compose,
                        format!("service {service}: an ordinary container"),
                        false,
                    );
                }
            }
            for grant in &project.grants {
                let who = if grant.service == "(project)" {
                    "the project".to_owned()
                } else {
                    format!("service {}", grant.service)
                };
                add(
                    Section::Compose,
                    format!("{who}: {}", grant.text),
                    grant.host,
                );
            }
        }
        if let Some(features) = json.get("features").and_then(Value::as_object) {
            let local = local_features(json);
            for id in features.keys() {
                let whence = if local.contains(id) {
                    "a local feature, in the repository"
                } else {
                    "fetched from its registry"
                };
                add(
                    Section::Build,
                    format!(
                        "feature {id} ({whence}): installed as root while building; a feature \
                         may add privileges, mounts and commands of its own, not shown here"
                    ),
                    true,
                );
            }
        }

        match json.get("workspaceMount").and_then(Value::as_str) {
            Some("") => add(Section::Mounts, "no workspace mount".into(), false),
            Some(mount) => mount_item(&mut add, "workspaceMount", mount, &source),
            None if matches!(checked.mode, Mode::Compose(_)) => {}
            None => add(
                Section::Mounts,
                format!(
                    "binds {} at {} (the git work tree holding the workspace, as the Dev \
                     Containers CLI mounts it; docker directly binds the same); the workspace \
                     folder is {}",
                    checked.mount_source.display(),
                    checked.mount_target,
                    checked.container_workspace
                ),
                false,
            ),
        }
        for mount in json
            .get("mounts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match mount {
                Value::String(text) => mount_item(&mut add, "mounts", text, &source),
                Value::Object(o) => {
                    let part = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("");
                    let text = format!(
                        "type={},source={},target={}",
                        part("type"),
                        part("source"),
                        part("target")
                    );
                    mount_item(&mut add, "mounts", &text, &source);
                }
                _ => {}
            }
        }

        match options::run_args(&checked.config.run_args) {
            Ok(opts) => {
                for opt in &opts {
                    let (text, host) = options::grant(opt, &|s: &str| source(s));
                    add(Section::RunArgs, text, host);
                }
            }
            // Refused when checked; kept readable if it ever is not.
            Err(why) => add(Section::RunArgs, why, true),
        }
        if json.get("privileged").and_then(Value::as_bool) == Some(true) {
            add(Section::Privileges, options::PRIVILEGED.into(), true);
        }
        for cap in strings(json.get("capAdd")) {
            add(
                Section::Privileges,
                format!("adds the Linux capability {cap}"),
                true,
            );
        }
        for opt in strings(json.get("securityOpt")) {
            add(Section::Privileges, format!("security option {opt}"), true);
        }

        for (key, scope) in [
            ("containerEnv", "every process"),
            ("remoteEnv", "the tools run"),
        ] {
            for (name, value) in json
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let value = value.as_str().unwrap_or("(unset)");
                let loader = if LOADER_VARS.contains(&name.as_str()) {
                    " — changes what every program in the container loads or runs"
                } else {
                    ""
                };
                add(
                    Section::Environment,
                    format!("{key}: {name}={value} (for {scope}){loader}"),
                    false,
                );
            }
        }
        for var in host_variables(&checked.raw) {
            add(
                Section::Environment,
                format!("reads the host's environment variable {var} (${{localEnv:{var}}})"),
                true,
            );
        }

        for key in ["containerUser", "remoteUser"] {
            if let Some(user) = json.get(key).and_then(Value::as_str) {
                let root = if user == "root" || user == "0" {
                    " (root in the container)"
                } else {
                    ""
                };
                add(Section::Users, format!("{key}: {user}{root}"), false);
            }
        }
        for port in strings(json.get("appPort")) {
            add(
                Section::Ports,
                format!("appPort: publishes {port} on the host's network interfaces"),
                true,
            );
        }
        for port in strings(json.get("forwardPorts")) {
            add(
                Section::Ports,
                format!("forwardPorts: {port} (forwarded by an editor; `up` forwards none)"),
                false,
            );
        }
        if let Some(top) = json.as_object() {
            for key in top.keys().filter(|k| !EXPLAINED.contains(&k.as_str())) {
                add(
                    Section::Other,
                    format!(
                        "{key}: not explained by this summary (the Dev Containers CLI may act on it)"
                    ),
                    true,
                );
            }
        }

        for f in checked.files.iter().filter(|f| f.sha256 == ABSENT) {
            if f.role.starts_with("named by") {
                add(
                    Section::HostCommands,
                    format!(
                        "{} ({}) does not exist now: if it appears, your consent is asked again",
                        f.path, f.role
                    ),
                    false,
                );
            }
        }
        Self {
            config: checked.config.path.display().to_string(),
            repository: repository.display().to_string(),
            tool: tools.describe(),
            items,
            files: checked.files.clone(),
            not_covered: not_covered(checked),
            digest: checked.digest.clone(),
        }
    }

    /// The items that reach the host.
    pub fn reaching_host(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.host)
    }
}

fn mount_item(
    add: &mut impl FnMut(Section, String, bool),
    key: &str,
    text: &str,
    source: &dyn Fn(&str) -> Source,
) {
    let spec = mount_spec(text);
    let target = spec.target.clone().unwrap_or_default();
    let ro = if spec.readonly { " (read-only)" } else { "" };
    let src = spec.source.clone().unwrap_or_default();
    let (line, host) = match (spec.kind.as_deref(), source(&src)) {
        (Some("bind") | None, Source::Outside) => (
            format!(
                "{key}: binds the host's {src} (OUTSIDE the repository{}) at {target}{ro}",
                if src.trim_end_matches('/').is_empty() {
                    " — the host's whole filesystem"
                } else {
                    ""
                }
            ),
            true,
        ),
        (Some("bind") | None, Source::Inside) => (
            format!("{key}: binds {src} (inside the repository) at {target}{ro}"),
            false,
        ),
        (Some(kind), _) if kind != "bind" => (
            format!("{key}: a {kind} mount of {src} at {target}{ro}"),
            false,
        ),
        _ => (format!("{key}: the volume {src} at {target}{ro}"), false),
    };
    add(Section::Mounts, line, host);
}

/// Inside the repository, elsewhere on the host, or a named volume.
fn classify(src: &str, repository: &Path) -> Source {
    if src.contains("${") || src.starts_with('~') || src.starts_with('.') {
        return Source::Outside;
    }
    if !src.starts_with('/') {
        return Source::Volume;
    }
    let mut normal = std::path::PathBuf::from("/");
    for part in Path::new(src).components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::Normal(n) => normal.push(n),
            _ => {}
        }
    }
    if normal.starts_with(repository) {
        Source::Inside
    } else {
        Source::Outside
    }
}

/// The host variables the configuration reads (`${localEnv:NAME}` or
/// `${localEnv:NAME:default}`), sorted, each once.
fn host_variables(json: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::String(s) => {
                let mut rest = s.as_str();
                while let Some(at) = rest.find("${localEnv:") {
                    rest = &rest[at + "${localEnv:".len()..];
                    let end = rest.find('}').unwrap_or(rest.len());
                    let name = rest[..end].split(':').next().unwrap_or("");
                    out.insert(name.to_owned());
                    rest = &rest[end..];
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(json, &mut out);
    out.into_iter().collect()
}

fn not_covered(checked: &Checked) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(build) = &checked.config.build {
        out.push(format!(
            "the rest of the build context {} (what the Dockerfile copies can change without \
             asking again; it reaches the container only)",
            build.context.display()
        ));
    }
    let mut images: Vec<&String> = Vec::new();
    if let (Mode::Image, Some(image)) = (&checked.mode, &checked.config.image) {
        images.push(image);
    }
    if let Mode::Compose(project) = &checked.mode {
        images.extend(&project.unpinned_images);
        if !project.services.is_empty() {
            out.push(
                "the rest of each compose build's context (what its Dockerfile copies reaches \
                 the container only)"
                    .into(),
            );
        }
    }
    for image in images.into_iter().filter(|i| !i.contains("@sha256:")) {
        out.push(format!(
            "the image {image}: a tag can name other content tomorrow (pin image@sha256:… to \
             bind it)"
        ));
    }
    if checked.files.iter().any(|f| f.role.starts_with("named by")) {
        out.push("what the scripts named by the commands run in turn".into());
    }
    out.push(
        "with the Dev Containers CLI, the image's devcontainer.metadata label (commands, mounts \
         and privileges it adds) and features fetched from a registry"
            .into(),
    );
    out
}
