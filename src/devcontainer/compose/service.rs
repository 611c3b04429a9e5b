//! One compose service, read: the one home of which service keys the host
//! knows, which of them read host files (resolved, inside the repository,
//! covered) and which grant what (summarised, `host` when they reach
//! beyond an ordinary container). A key not in these tables is refused:
//! the host cannot tell what it grants.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{MAX_DEPTH, Reader, Source, State, uncertain};
use crate::text::quote;

/// Keys that act inside the container only (or name things compose
/// manages), shown by nothing more than the service's name. Interpolation
/// is allowed in their values.
#[rustfmt::skip]
const INSIDE: &[&str] = &[
    "annotations", "attach", "blkio_config", "command", "container_name", "cpu_count",
    "cpu_percent", "cpu_period", "cpu_quota", "cpu_rt_period", "cpu_rt_runtime", "cpu_shares",
    "cpus", "cpuset", "depends_on", "deploy", "develop", "dns", "dns_opt", "dns_search",
    "domainname", "entrypoint", "environment", "expose", "external_links", "extra_hosts",
    "healthcheck", "hostname", "init", "isolation", "labels", "links", "logging", "mac_address",
    "mem_limit", "mem_reservation", "mem_swappiness", "memswap_limit", "networks",
    "oom_kill_disable", "oom_score_adj", "pids_limit", "platform", "post_start", "pre_stop",
    "profiles", "pull_policy", "read_only", "restart", "scale", "shm_size", "stdin_open",
    "stop_grace_period", "stop_signal", "storage_opt", "tmpfs", "tty", "ulimits", "user",
    "working_dir", "image", "cap_drop", "mem_swap_limit",
];

/// Keys whose values in the container alone are allowed to interpolate.
const INTERPOLATED: &[&str] = &[
    "annotations",
    "command",
    "entrypoint",
    "environment",
    "healthcheck",
    "image",
    "labels",
    "container_name",
    "hostname",
    "domainname",
    "working_dir",
    "user",
    "depends_on",
    "deploy",
    "logging",
    "post_start",
    "pre_stop",
    "develop",
];

/// Reads service `name` of `source` (its body `body`), reporting its
/// grants under `shown_as` (the service of the project that extends it).
pub(super) fn read(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    name: &str,
    body: &Value,
    chain: &mut Vec<(PathBuf, String)>,
) -> Result<(), String> {
    let map = match body {
        Value::Object(map) => map,
        Value::Null => return Ok(()),
        _ => return Err("must be a mapping".into()),
    };
    for (key, value) in map {
        if key.starts_with("x-") {
            continue;
        }
        if !INTERPOLATED.contains(&key.as_str()) {
            no_interpolation(value, key)?;
        }
        let grant = |state: &mut State, text: String, host: bool| state.grant(shown_as, text, host);
        match key.as_str() {
            "image" => {
                let image = plain(value, key)?;
                state.image(&image);
                grant(state, format!("runs the image {image}"), false);
            }
            "user" => {
                let user = scalar(value, key)?;
                let root = if user == "root" || user == "0" || user.starts_with("0:") {
                    " (root in the container)"
                } else {
                    ""
                };
                grant(state, format!("user {user}{root}"), false);
            }
            "cap_drop" => {}
            k if INSIDE.contains(&k) => {}
            "extends" => extends(reader, state, source, shown_as, name, value, chain)?,
            "build" => build(reader, state, source, shown_as, value)?,
            "env_file" | "label_file" => {
                for (path, required) in env_files(value, key)? {
                    let rel = reader.inside(&source.base, &path, key)?;
                    let role = format!("{key} of a compose service");
                    if required {
                        reader.read(&rel, &role)?;
                    } else {
                        reader.optional(&rel, &role)?;
                    }
                }
            }
            "volumes" => {
                for volume in list(value, key)? {
                    volume_grant(reader, state, source, shown_as, &volume)?;
                }
            }
            "privileged" => {
                if value != &Value::Bool(false) {
                    grant(state, crate::devcontainer::options::PRIVILEGED.into(), true);
                }
            }
            "pid" | "ipc" | "uts" | "userns_mode" | "cgroup" | "network_mode" => {
                let v = scalar(value, key)?;
                let host = v == "host";
                let what = match key.as_str() {
                    "pid" => "process namespace (sees and signals every host process)",
                    "network_mode" => "network namespace (the host's interfaces and ports)",
                    "ipc" => "IPC namespace",
                    "uts" => "UTS namespace (its host name)",
                    "userns_mode" => "user namespace",
                    _ => "cgroup namespace",
                };
                if host {
                    grant(
                        state,
                        format!("{key}: host — shares the host's {what}"),
                        true,
                    );
                } else {
                    grant(state, format!("{key}: {v}"), false);
                }
            }
            "cap_add" => {
                for cap in strings(Some(value), key)? {
                    let text = if cap.eq_ignore_ascii_case("all") {
                        "cap_add: every Linux capability".to_owned()
                    } else {
                        format!("cap_add: the Linux capability {cap}")
                    };
                    grant(state, text, true);
                }
            }
            "devices" | "device_cgroup_rules" | "gpus" => {
                let shown = if let Value::Array(_) = value {
                    list(value, key)?
                        .iter()
                        .map(short)
                        .collect::<Vec<_>>()
                        .join(", ")
                } else {
                    short(value)
                };
                grant(state, format!("{key}: the host's devices ({shown})"), true);
            }
            "security_opt" => {
                for opt in strings(Some(value), key)? {
                    let loose = opt.contains("unconfined")
                        || opt.contains("label=disable")
                        || opt.contains("label:disable");
                    grant(state, format!("security_opt: {opt}"), loose);
                }
            }
            "sysctls" => grant(state, format!("sysctls: {}", short(value)), false),
            "runtime" => grant(
                state,
                format!("runtime: the OCI runtime {}", scalar(value, key)?),
                true,
            ),
            "cgroup_parent" => grant(
                state,
                format!(
                    "cgroup_parent: runs under the host cgroup {}",
                    scalar(value, key)?
                ),
                true,
            ),
            "ports" => {
                for port in list(value, key)? {
                    grant(
                        state,
                        format!(
                            "ports: publishes {} on the host's network interfaces",
                            short(&port)
                        ),
                        true,
                    );
                }
            }
            "volumes_from" => grant(
                state,
                format!("volumes_from: the volumes of {}", short(value)),
                false,
            ),
            "use_api_socket" => {
                if value != &Value::Bool(false) {
                    grant(
                        state,
                        "use_api_socket: the engine's API socket and your registry credentials"
                            .into(),
                        true,
                    );
                }
            }
            "secrets" | "configs" => {
                for entry in list(value, key)? {
                    let source_name = match &entry {
                        Value::String(s) => s.clone(),
                        Value::Object(m) => {
                            plain(m.get("source").unwrap_or(&Value::Null), "source")?
                        }
                        _ => return Err(format!("{key}: an entry must be a name or a mapping")),
                    };
                    grant(
                        state,
                        format!("{key}: {source_name} (see the project's {key})"),
                        false,
                    );
                }
            }
            "provider" => {
                return Err(
                    "provider: compose runs a program on the host for it (a provider plugin); \
                     the host does not start such configurations"
                        .into(),
                );
            }
            other => {
                return Err(format!(
                    "the key {} is not one the host knows: it cannot tell what it grants",
                    quote(other)
                ));
            }
        }
    }
    Ok(())
}

fn extends(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    name: &str,
    value: &Value,
    chain: &mut Vec<(PathBuf, String)>,
) -> Result<(), String> {
    let (file, base_service) = match value {
        Value::String(s) => (None, s.clone()),
        Value::Object(m) => {
            for key in m.keys() {
                if key != "file" && key != "service" {
                    return Err(format!("extends: the key {} is not known", quote(key)));
                }
            }
            (
                m.get("file")
                    .map(|v| plain(v, "extends.file"))
                    .transpose()?,
                plain(m.get("service").unwrap_or(&Value::Null), "extends.service")?,
            )
        }
        _ => return Err("extends must be a service name or a mapping".into()),
    };
    let from = match &file {
        Some(path) => {
            if !source.certain {
                return Err(uncertain("extends"));
            }
            literal(path, "extends.file")?;
            let rel = reader.inside(&source.base, path, "extends.file")?;
            state.load_extended(reader, &rel)?
        }
        None => source.clone(),
    };
    let link = (from.file.clone(), base_service.clone());
    if chain.contains(&link) {
        return Err(format!("extends {} makes a cycle", quote(&base_service)));
    }
    if chain.len() > MAX_DEPTH {
        return Err(format!("extends chains deeper than {MAX_DEPTH}"));
    }
    let body = from
        .top
        .get("services")
        .and_then(|s| s.get(&base_service))
        .cloned()
        .ok_or_else(|| {
            format!(
                "extends the service {}, which {} does not define",
                quote(&base_service),
                reader.shown(&from.file)
            )
        })?;
    chain.push(link);
    super::service::read(reader, state, &from, shown_as, name, &body, chain)?;
    // The extended file's own top-level volumes, networks, secrets.
    if file.is_some() {
        top_level(reader, state, &from)?;
    }
    chain.pop();
    Ok(())
}

fn build(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    value: &Value,
) -> Result<(), String> {
    let empty = Map::new();
    let (context, map) = match value {
        Value::String(s) => (s.clone(), &empty),
        Value::Object(m) => (
            m.get("context")
                .map(|v| plain(v, "build.context"))
                .transpose()?
                .unwrap_or_else(|| ".".into()),
            m,
        ),
        _ => return Err("build must be a path or a mapping".into()),
    };
    if context.contains("://") || context.starts_with("git@") || context.ends_with(".git") {
        return Err(format!(
            "build.context {} is remote: the host covers only files in the repository",
            quote(&context)
        ));
    }
    let ctx = reader.inside(&source.base, &context, "build.context")?;
    reader.check_dir(&ctx)?;
    reader.optional(
        &ctx.join(".dockerignore"),
        "compose build context's .dockerignore",
    )?;
    let inline = map.contains_key("dockerfile_inline");
    if !inline {
        let dockerfile = map
            .get("dockerfile")
            .map(|v| plain(v, "build.dockerfile"))
            .transpose()?
            .unwrap_or_else(|| "Dockerfile".into());
        let rel = reader.inside(&ctx, &dockerfile, "build.dockerfile")?;
        reader.read(&rel, "compose service's Dockerfile")?;
        state
            .project
            .builds
            .push((shown_as.to_owned(), reader.shown(&ctx), reader.shown(&rel)));
        let mut ignore = rel.clone().into_os_string();
        ignore.push(".dockerignore");
        reader.optional(Path::new(&ignore), "compose Dockerfile's .dockerignore")?;
        state.grant(
            shown_as,
            format!(
                "builds {} with the context {} (sent to the engine)",
                reader.shown(&rel),
                reader.shown(&ctx)
            ),
            false,
        );
    } else {
        state.grant(
            shown_as,
            format!(
                "builds an inline Dockerfile with the context {}",
                reader.shown(&ctx)
            ),
            false,
        );
    }
    for (key, v) in map {
        match key.as_str() {
            "context" | "dockerfile" | "dockerfile_inline" | "args" | "labels" | "target"
            | "shm_size" | "extra_hosts" | "isolation" | "no_cache" | "pull" | "platforms"
            | "tags" | "ulimits" | "cache_from" | "cache_to" => {
                if matches!(key.as_str(), "cache_from" | "cache_to") {
                    for text in strings(Some(v), key)? {
                        if text.contains("type=local") {
                            return Err(format!(
                                "build.{key} {}: a local cache reads or writes a host directory",
                                quote(&text)
                            ));
                        }
                    }
                }
            }
            "network" => {
                let net = scalar(v, key)?;
                state.grant(
                    shown_as,
                    format!(
                        "build.network: {net}{}",
                        if net == "host" {
                            " — the build shares the host's network"
                        } else {
                            ""
                        }
                    ),
                    net == "host",
                );
            }
            "privileged" if v != &Value::Bool(false) => {
                state.grant(
                    shown_as,
                    "build.privileged: the build runs privileged".into(),
                    true,
                );
            }
            "privileged" => {}
            "entitlements" => {
                state.grant(shown_as, format!("build.entitlements: {}", short(v)), true)
            }
            "ssh" => state.grant(
                shown_as,
                format!(
                    "build.ssh: the host's SSH agent or keys are lent to the build ({})",
                    short(v)
                ),
                true,
            ),
            "secrets" => state.grant(
                shown_as,
                format!("build.secrets: {} (see the project's secrets)", short(v)),
                false,
            ),
            "additional_contexts" => {
                for (name, target) in v.as_object().into_iter().flatten() {
                    let target = plain(target, "build.additional_contexts")?;
                    if target.starts_with("docker-image://")
                        || target.starts_with("service:")
                        || target.starts_with("target:")
                    {
                        continue;
                    }
                    if target.contains("://") {
                        return Err(format!(
                            "build.additional_contexts.{name} {} is remote",
                            quote(&target)
                        ));
                    }
                    let rel = reader.inside(&source.base, &target, "build.additional_contexts")?;
                    reader.check_dir(&rel)?;
                }
            }
            other if other.starts_with("x-") => {}
            other => {
                return Err(format!(
                    "build.{other} is not a key the host knows: it cannot tell what it does"
                ));
            }
        }
    }
    Ok(())
}

fn volume_grant(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    volume: &Value,
) -> Result<(), String> {
    let (kind, src, target) = match volume {
        Value::String(text) => {
            let mut parts = text.splitn(3, ':');
            let first = parts.next().unwrap_or("");
            match parts.next() {
                None => (Some("volume"), None, first.to_owned()),
                Some(target) => {
                    let bind =
                        first.starts_with('/') || first.starts_with('.') || first.starts_with('~');
                    (
                        Some(if bind { "bind" } else { "volume" }),
                        Some(first.to_owned()),
                        target.to_owned(),
                    )
                }
            }
        }
        Value::Object(m) => (
            m.get("type").and_then(Value::as_str),
            m.get("source").and_then(Value::as_str).map(str::to_owned),
            m.get("target")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        _ => return Err("volumes: an entry must be text or a mapping".into()),
    };
    match (kind, src) {
        (Some("bind"), Some(src)) => {
            if src.starts_with('~') {
                state.grant(shown_as, format!("volumes: binds the host's {src} (OUTSIDE the repository: a home directory) at {target}"), true);
                return Ok(());
            }
            let absolute = if Path::new(&src).is_absolute() {
                lexical(Path::new(&src))
            } else {
                let base = PathBuf::from(reader.shown(&source.base));
                lexical(&base.join(&src))
            };
            let shown = absolute.display().to_string();
            state
                .project
                .binds
                .push((shown_as.to_owned(), shown.clone()));
            if reader.holds(&absolute) {
                state.grant(
                    shown_as,
                    format!("volumes: binds {shown} (inside the repository) at {target}"),
                    false,
                );
            } else {
                let root = if shown == "/" {
                    " — the host's whole filesystem"
                } else {
                    ""
                };
                state.grant(shown_as, format!("volumes: binds the host's {shown} (OUTSIDE the repository{root}) at {target}"), true);
            }
        }
        (Some("volume") | None, Some(src)) => state.grant(
            shown_as,
            format!("volumes: the volume {src} at {target}"),
            false,
        ),
        (Some(kind), _) => state.grant(
            shown_as,
            format!("volumes: a {kind} mount at {target}"),
            kind == "npipe",
        ),
        (None, None) => {}
    }
    Ok(())
}

/// The project-level `volumes`, `networks`, `secrets` and `configs` of
/// `source`: what reaches the host through them.
pub(super) fn top_level(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
) -> Result<(), String> {
    let project = "(project)";
    for (name, volume) in source
        .top
        .get("volumes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        no_interpolation(volume, "volumes")?;
        if let Some(opts) = volume.get("driver_opts") {
            state.grant(
                project,
                format!("volume {name} has driver options {} (a local volume with o=bind binds any host directory)", short(opts)),
                true,
            );
        }
    }
    for (name, network) in source
        .top
        .get("networks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        no_interpolation(network, "networks")?;
        let real = network.get("name").and_then(Value::as_str).unwrap_or(name);
        let external = network
            .get("external")
            .is_some_and(|e| e != &Value::Bool(false));
        let driver = network.get("driver").and_then(Value::as_str);
        if (external && real == "host") || driver == Some("host") {
            state.grant(project, format!("network {name}: the host's network"), true);
        } else if external {
            state.grant(
                project,
                format!("network {name}: the existing network {real}"),
                false,
            );
        }
    }
    for kind in ["secrets", "configs"] {
        for (name, entry) in source
            .top
            .get(kind)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            no_interpolation(entry, kind)?;
            if let Some(file) = entry.get("file") {
                let file = plain(file, "file")?;
                let absolute = lexical(&PathBuf::from(reader.shown(&source.base)).join(&file));
                if reader.holds(&absolute) {
                    let rel = reader.inside(&source.base, &file, kind)?;
                    reader.read(&rel, &format!("compose {kind} file"))?;
                    state.grant(
                        project,
                        format!(
                            "{kind} {name}: the file {} (inside the repository)",
                            absolute.display()
                        ),
                        false,
                    );
                } else {
                    state.grant(project, format!("{kind} {name}: hands the host's file {} (OUTSIDE the repository) to the container", absolute.display()), true);
                }
            }
            if let Some(var) = entry.get("environment") {
                state.grant(
                    project,
                    format!(
                        "{kind} {name}: the host's environment variable {}",
                        short(var)
                    ),
                    true,
                );
            }
        }
    }
    Ok(())
}

/// `env_file`: a path, or a list of paths or `{path, required}`.
fn env_files(value: &Value, key: &str) -> Result<Vec<(String, bool)>, String> {
    let one = |v: &Value| -> Result<(String, bool), String> {
        match v {
            Value::String(s) => Ok((s.clone(), true)),
            Value::Object(m) => Ok((
                plain(m.get("path").unwrap_or(&Value::Null), key)?,
                m.get("required") != Some(&Value::Bool(false)),
            )),
            _ => Err(format!("{key}: an entry must be a path or a mapping")),
        }
    };
    match value {
        Value::Array(items) => items.iter().map(one).collect(),
        other => Ok(vec![one(other)?]),
    }
}

fn list(value: &Value, key: &str) -> Result<Vec<Value>, String> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::Null => Ok(Vec::new()),
        _ => Err(format!("{key} must be a list")),
    }
}

/// A list of strings, or one string.
pub(super) fn strings(value: Option<&Value>, key: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items.iter().map(|v| scalar(v, key)).collect(),
        Some(_) => Err(format!("{key} must be text or a list of text")),
    }
}

/// A scalar as text.
fn scalar(value: &Value, key: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(format!("{key} must be text")),
    }
}

/// A text value with no interpolation.
pub(super) fn plain(value: &Value, key: &str) -> Result<String, String> {
    let text = scalar(value, key)?;
    literal(&text, key)?;
    Ok(text)
}

/// Refuses an interpolation in `text`.
pub(super) fn literal(text: &str, key: &str) -> Result<(), String> {
    if text.replace("$$", "").contains('$') {
        return Err(format!(
            "{key} {} is interpolated by compose from the environment and .env: the host does \
             not resolve compose variables, so it cannot be certain what it names; write the \
             value itself",
            quote(text)
        ));
    }
    Ok(())
}

/// Refuses an interpolation anywhere in `value`.
fn no_interpolation(value: &Value, key: &str) -> Result<(), String> {
    match value {
        Value::String(s) => literal(s, key),
        Value::Array(items) => items.iter().try_for_each(|v| no_interpolation(v, key)),
        Value::Object(map) => map.iter().try_for_each(|(k, v)| {
            literal(k, key)?;
            no_interpolation(v, key)
        }),
        _ => Ok(()),
    }
}

/// A value on one line, cut.
fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    crate::text::escape_line(&crate::text::excerpt(&text, 200)).into_owned()
}

/// `path` with `.` and `..` resolved lexically.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}
