//! Every way a registry operation is refused or fails, each its own
//! variant with the fields an embedder matches on (type, resource,
//! module, class), and each worded for the person who asked: what was
//! refused, why, and what to do.
//!
//! **One enum per concern, one type at the API.** Each concern's refusals
//! are its own enum — [`TypesError`], [`ResourcesError`] (with
//! discovery and refresh), [`LinksError`], [`EnvironmentsError`] (with
//! containers and trust), [`SandboxesError`], [`PluginsError`] (the
//! store and the handlers), [`TransferError`] (export and import) —
//! wrapped transparently by [`RegistryError`], so `?` works across
//! concerns and every message is the concern's own, unchanged. What stays
//! here directly is what several concerns share (the store, names, files,
//! another machine's location, a handler call's failure) and removal's
//! two refusals.

use crate::model::{ModuleName, NameError, SandboxId, TypeName};
use crate::plugin::{CallError, PluginError};
use crate::store::StoreError;
use crate::typespec::{InheritanceError, SpecError};
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

mod distribution;
mod environments;
mod events;
mod kind;
mod links;
mod plugins;
mod reasons;
mod resources;
mod sandboxes;
mod transfer;
mod types;
pub use distribution::DistributionError;
pub use environments::EnvironmentsError;
pub use events::EventsError;
pub use kind::ErrorKind;
pub use links::LinksError;
pub(crate) use links::link_refused;
pub use plugins::PluginsError;
use reasons::join;
pub use reasons::{
    ChildRefusal, NoHandlerReason, NotAddable, SandboxRefusal, StrategyRefusal, TrustState,
};
pub use resources::ResourcesError;
pub use sandboxes::SandboxesError;
pub use transfer::{ImportConflict, MissingPlugin, MissingType, TransferError};
pub use types::TypesError;

#[derive(Debug, Error)]
pub enum RegistryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Inheritance(#[from] InheritanceError),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Args(#[from] super::args::ArgError),
    #[error(transparent)]
    HomeDir(#[from] crate::home::HomeError),
    #[error("cannot create the home directory {path}: {source}")]
    Home {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Input(#[from] crate::user_files::UserFileError),
    #[error("cannot read {} {}: {source}", what, path.display())]
    ReadFile {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    // ---- removal ----
    #[error(
        "cannot remove {resource}: it (or what would go with it) has {} ({}); destroy \
         them first (agents sandbox destroy ID), or pass --force to destroy them",
        if sandboxes.len() == 1 { "a live sandbox".to_owned() } else { format!("{} live sandboxes", sandboxes.len()) },
        sandboxes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    HasSandboxes {
        resource: String,
        sandboxes: Vec<SandboxId>,
    },
    #[error(
        "cannot remove {resource}: it (or what would go with it) has containers the engine still \
         holds ({}); stop and remove them first — agents resource remove --force {resource} does",
        containers.join(", ")
    )]
    HasContainers {
        resource: String,
        /// `name (state, container id)` of each.
        containers: Vec<String>,
    },

    // ---- shared by the concerns: machines, handlers ----
    /// The resource's location is a path on another machine (a shared
    /// registry): its handler, sandboxes and discovery run only there.
    #[error(
        "{resource} is at a location on {machine}, not on this machine; {action} runs only \
         there (listing, showing, trees and links work from any machine)"
    )]
    OtherMachine {
        resource: String,
        action: &'static str,
        machine: String,
    },
    /// The location is outside the roots this registry was given (an
    /// agent's registry: `agents mcp`, `Registry(roots=…)`).
    #[error(
        "{} is outside the roots this registry may act in ({roots}); {action} is refused there \
         (a person can do it with the CLI, which has no roots, or give a root that covers it: \
         `agents mcp --root DIR`)",
        path.display()
    )]
    OutsideRoots {
        path: PathBuf,
        action: &'static str,
        roots: crate::roots::Roots,
    },
    #[error("cannot load handler module {module}: {source}")]
    PluginLoad {
        module: ModuleName,
        #[source]
        source: PluginError,
    },
    #[error("{0}")]
    Handler(#[from] Box<CallError>),

    // ---- moving data (registry export / import) ----
    #[error(transparent)]
    Document(#[from] crate::registry::document::DocumentError),

    // ---- each concern's own refusals ----
    #[error(transparent)]
    Types(#[from] TypesError),
    #[error(transparent)]
    Resources(#[from] ResourcesError),
    #[error(transparent)]
    Links(#[from] LinksError),
    #[error(transparent)]
    Environments(#[from] EnvironmentsError),
    #[error(transparent)]
    Sandboxes(#[from] SandboxesError),
    #[error(transparent)]
    Plugins(#[from] PluginsError),
    #[error(transparent)]
    Transfer(#[from] TransferError),
    #[error(transparent)]
    Distribution(#[from] DistributionError),
    #[error(transparent)]
    Events(#[from] EventsError),
}

impl From<crate::routing::RouteError> for RegistryError {
    fn from(e: crate::routing::RouteError) -> Self {
        Self::Environments(e.into())
    }
}

impl RegistryError {
    /// The refusal of `module`'s plugin: its file or component not read,
    /// not written, not what its sha256 says, or not loadable.
    pub(crate) fn plugin_load(module: &ModuleName) -> impl Fn(PluginError) -> Self + '_ {
        move |source| Self::PluginLoad {
            module: module.clone(),
            source,
        }
    }

    /// The refusal of the home directory's `path` (a sandbox's area, a
    /// lock file) that the filesystem answered with `source`.
    pub(crate) fn home(path: &Path) -> impl Fn(std::io::Error) -> Self + Copy + '_ {
        move |source| Self::Home {
            path: path.to_owned(),
            source,
        }
    }
}

impl From<CallError> for RegistryError {
    fn from(e: CallError) -> Self {
        Self::Handler(Box::new(e))
    }
}

pub(super) fn join_with<T: fmt::Display>(items: &[T], separator: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

/// " (did you mean …?)" for near misses, or a pointer to the list.
pub(super) fn suggest(close: &[TypeName]) -> String {
    if close.is_empty() {
        "; `agents resource type list` shows the registered types".to_owned()
    } else {
        format!(" (did you mean {}?)", join(close))
    }
}
