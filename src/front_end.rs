//! What a front end — the `agents` CLI, the Python binding — reads from
//! the process's environment to open a registry, in one place so that
//! every front end opens the same registry the same way: the default
//! home (`$XDG_DATA_HOME/agents`, else `~/.local/share/agents`) and the
//! [`Options`] (`PATH` for git and the container tools, `AGENTS_OVERLAY`,
//! `AGENTS_MACHINE_ID`, the per-user compile cache, the person).
//!
//! The rest of the library reads no environment variable: an embedder
//! that builds its own [`Options`] never calls this module.

use crate::git_env::GitTools;
use crate::machine::Machine;
use crate::plugin::Limits;
use crate::registry::{ContainerTools, Options, Person};
use crate::sandbox::Overlay;
use crate::store::RegistryLocation;
use std::path::PathBuf;

/// A variable's value as a path, unset or empty being none.
fn env_path(key: &str) -> Option<PathBuf> {
    std::env::var_os(key)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The home when none is given: `$XDG_DATA_HOME/agents` (an absolute
/// one), else `~/.local/share/agents`; none without either variable.
/// (`$AGENTS_HOME` is the front end's to read, as its `--home`.)
pub fn default_home() -> Option<PathBuf> {
    let xdg = env_path("XDG_DATA_HOME").filter(|p| p.is_absolute());
    let home = env_path("HOME").map(|h| h.join(".local/share"));
    xdg.or(home).map(|data| data.join("agents"))
}

/// The options a front end opens a registry with: `registry` (none: the
/// home's SQLite file) and `limits` are its own flags; the rest is read
/// here.
pub fn options(registry: Option<RegistryLocation>, limits: Limits) -> Options {
    let path = std::env::var_os("PATH").unwrap_or_default();
    Options {
        registry,
        // A machine id other than the OS's: containers that share one,
        // and tests playing several machines.
        machine: std::env::var("AGENTS_MACHINE_ID")
            .ok()
            .filter(|id| !id.is_empty())
            .map(|id| Machine::with_id(&id)),
        user_cache: user_cache(),
        person: Some(person()),
        oci: registry_access(false),
        limits,
        overlay: overlay(std::env::var("AGENTS_OVERLAY").ok()),
        git: GitTools::on_path(&path),
        container_tools: ContainerTools {
            search_path: Some(path),
            env: crate::devcontainer::ENGINE_ENV_VARS
                .iter()
                .filter_map(|k| std::env::var_os(k).map(|v| ((*k).into(), v)))
                .collect(),
        },
        ..Options::default()
    }
}

/// How OCI registries are reached: the docker config
/// (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`), a token
/// (`AGENTS_REGISTRY_TOKEN`) or user and password
/// (`AGENTS_REGISTRY_USERNAME` / `AGENTS_REGISTRY_PASSWORD`), credential
/// helpers on `PATH`; plain http beyond loopback only when `insecure`.
pub fn registry_access(insecure: bool) -> crate::oci::RegistryAccess {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let docker_config = std::env::var_os("DOCKER_CONFIG")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| env_path("HOME").map(|h| h.join(".docker")))
        .map(|dir| dir.join("config.json"));
    crate::oci::RegistryAccess {
        docker_config,
        token: var("AGENTS_REGISTRY_TOKEN"),
        basic: var("AGENTS_REGISTRY_USERNAME").zip(var("AGENTS_REGISTRY_PASSWORD")),
        helper_path: std::env::var_os("PATH"),
        insecure,
    }
}

/// The OS user whose trust decisions apply: the process's real uid,
/// named by `$USER` (else `$LOGNAME`) for messages only.
pub fn person() -> Person {
    let uid = rustix::process::getuid().as_raw();
    let user = ["USER", "LOGNAME"]
        .iter()
        .find_map(|k| {
            std::env::var(k)
                .ok()
                .filter(|v| !v.is_empty() && v.len() <= 256)
        })
        .unwrap_or_else(|| format!("uid{uid}"));
    Person { user, uid }
}

/// The overlay mode `AGENTS_OVERLAY` names (unset, empty or `auto`,
/// `kernel`, `userspace`); any other value makes creating an overlay
/// sandbox refuse, saying so.
fn overlay(value: Option<String>) -> Overlay {
    let value = value.unwrap_or_default();
    Overlay::named(&value).unwrap_or_else(|| {
        Overlay::refusing(format!(
            "AGENTS_OVERLAY={value:?} names no overlay mode; set it to auto, kernel or \
             userspace, or unset it"
        ))
    })
}

/// The per-user cache directory shared by every home:
/// `$XDG_CACHE_HOME/agents` (an absolute one), else `~/.cache/agents`.
fn user_cache() -> Option<PathBuf> {
    let xdg = env_path("XDG_CACHE_HOME").filter(|p| p.is_absolute());
    let home = env_path("HOME")
        .filter(|p| p.is_absolute())
        .map(|h| h.join(".cache"));
    xdg.or(home).map(|dir| dir.join("agents"))
}
