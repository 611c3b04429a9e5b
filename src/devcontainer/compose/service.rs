//! One compose service, read: the one home of which service keys the host
//! knows, which of them read host files (resolved, inside the repository,
//! covered) and which grant what (summarised, `host` when they reach
//! beyond an ordinary container). A key not in these tables is refused:
//! the host cannot tell what it grants.
//!
//! This file reads a service's keys and follows its `extends`; the keys
//! with more to say have rooms of their own: `build` (`build.rs`), each
//! `volumes` entry (`volumes.rs`), the project-level volumes, networks,
//! secrets and configs (`project.rs`), and reading a value as text, a
//! list or a path without interpolation (`values.rs`).

use std::path::PathBuf;

use serde_json::Value;

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

mod build;
pub(super) mod project;
pub(super) mod values;
mod volumes;

use build::build;
use project::top_level;
use values::{env_files, list, literal, no_interpolation, plain, scalar, short, strings};
use volumes::volume_grant;
