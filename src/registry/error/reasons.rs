//! The reasons inside a refusal: why a type cannot be added by hand, a
//! strategy or a sandbox was refused, no handler could be used, or a
//! discovered child was refused, or a devcontainer is not activated
//! ([`TrustState`], also what a trust check answers) — each a value an
//! embedder can match on, displayed as the clause the refusal's message
//! ends with.

use super::join_with;
use crate::dag::LinkTypeRefusal;
use crate::model::{HandlerRef, NameError, ResourceName, TypeName};
use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// Why a type's resources cannot be registered by hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotAddable {
    /// Virtual resources are made by the registry.
    #[error("virtual resources are created by the registry, never by hand")]
    Virtual,
    /// They are discovered below resources of these types.
    #[error("its resources are auto-discovered as children of {}", join(.0))]
    DiscoveredBelow(Vec<TypeName>),
    /// They are only created by discovery.
    #[error("its resources are only created by discovery")]
    DiscoveredOnly,
}

/// Why a per-resource sandbox strategy does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StrategyRefusal {
    /// Not one of the strategies.
    #[error(
        "not a sandbox strategy; use one of {}",
        crate::model::SandboxStrategy::ALL.map(|s| s.as_str()).join(", ")
    )]
    Unknown,
    /// Virtual resources have no sandbox.
    #[error("virtual resources have no sandbox (use none)")]
    Virtual,
    /// `git_worktree` isolates git checkouts only.
    #[error("git_worktree isolates git checkouts (git-checkout and its subtypes)")]
    GitWorktreeNeedsCheckout,
    /// The copying strategies need a directory at the location.
    #[error(
        "its location is not a directory (a symlink is not followed), and this strategy \
         isolates a directory"
    )]
    NeedsDirectory,
    /// `transaction_rollback` needs a SQLite database file (why not).
    #[error("{0}")]
    NeedsSqliteFile(String),
}

/// Which rule refused a sandbox operation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SandboxRefusal {
    /// Virtual resources have no location to isolate.
    #[error("virtual resources have no location to isolate")]
    Virtual,
    /// A physical resource registered without a location.
    #[error("it has no location to isolate")]
    NoLocation,
    /// Strategy `inherit`: the resource is isolated with its parent;
    /// `parents` are the nearest resources above it whose strategy
    /// isolates (neither `inherit` nor `none`).
    #[error(
        "its strategy is inherit: it is isolated as part of its parent's sandbox{}",
        match parents.as_slice() {
            [] => ", and no resource above it has a strategy that isolates".to_owned(),
            parents => format!("; create a sandbox of {}", parents.join(" or ")),
        }
    )]
    Inherits { parents: Vec<String> },
    /// The type does not declare the `sandbox` capability.
    #[error(
        "type {type_name} does not have the sandbox capability (rule: a type that lists \
         capabilities must list sandbox to be sandboxed)"
    )]
    TypeNotSandboxable { type_name: TypeName },
    /// The type does not declare the `checkpoint` capability.
    #[error("type {type_name} does not have the checkpoint capability")]
    TypeNotCheckpointable { type_name: TypeName },
    /// A read-only resource: nothing may change, so nothing to
    /// checkpoint or apply.
    #[error(
        "the resource is read-only (rule: a read_only resource is never checkpointable, and its \
         original is never written)"
    )]
    ReadOnly,
    /// A `transaction_rollback` sandbox's transaction lives in the process
    /// holding it.
    #[error(
        "its transaction lives in the process holding it; run `agents sandbox shell ID` \
         (checkpoint, rollback and apply are commands there), or hold it through the library \
         (Registry::open_transaction)"
    )]
    HeldBySession,
}

/// Why a resource has no handler to run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NoHandlerReason {
    /// Its type names none.
    #[error("its type names none")]
    TypeNamesNone,
    /// Its type names a built-in module this build does not have.
    #[error("{0} is a built-in handler that is not in this build yet")]
    BuiltinNotInBuild(HandlerRef),
}

/// Why the host refused one child a handler discovered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChildRefusal {
    /// Its type is not registered.
    #[error("type {0} is not a registered type")]
    UnknownType(TypeName),
    /// The types do not allow it below the parent.
    #[error("{0}")]
    NotAllowed(LinkTypeRefusal),
    /// The parent type lists discovery rules and none names its type.
    #[error(
        "type {child_type} matches none of {parent_type}'s discovery rules ({})",
        join(rules)
    )]
    NoRuleMatches {
        child_type: TypeName,
        parent_type: TypeName,
        rules: Vec<TypeName>,
    },
    /// A virtual child cannot have a location.
    #[error("{0} is virtual and cannot have a location")]
    VirtualWithLocation(TypeName),
    /// Its name under the parent's is not a valid resource name.
    #[error("{0}")]
    BadName(NameError),
    /// Two children of one answer have the same name.
    #[error("the name {0} is given twice")]
    NameGivenTwice(ResourceName),
    /// A devcontainer's `config-path` is not a regular file inside its
    /// location.
    #[error("{0}; a devcontainer's configuration must be a regular file inside its location")]
    ConfigPath(String),
    /// Its location is a symlink that resolves to nothing, and its type
    /// is not a symlink's.
    #[error(
        "its location {} is a symlink that resolves to nothing ({reason}) and a {child_type} \
         is not a symlink: a dangling link would lead wherever its target later appears, \
         outside the parent perhaps; point it at an existing entry or leave it out",
        crate::text::quote(location)
    )]
    DanglingSymlink {
        child_type: TypeName,
        location: String,
        reason: String,
    },
}

/// Names as `a, b, c`, for messages.
pub(crate) fn join<T: fmt::Display>(names: &[T]) -> String {
    join_with(names, ", ")
}

/// Where a devcontainer stands for the person asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TrustState {
    /// They trusted this very configuration.
    Trusted { by: String, at: String },
    /// They never trusted it (or took it back).
    Untrusted,
    /// They trusted it, and it changed since: which files.
    Changed {
        by: String,
        at: String,
        changed: Vec<String>,
    },
    /// The registry was opened for no person: no trust applies.
    NoPerson,
}

impl TrustState {
    pub fn is_trusted(&self) -> bool {
        matches!(self, Self::Trusted { .. })
    }

    /// Why `resource` is not trusted, and what to do (empty when it is).
    pub fn explain(&self, resource: &str) -> String {
        let decide = format!("agents resource trust {resource}");
        match self {
            Self::Trusted { .. } => String::new(),
            Self::Untrusted => format!(
                "its devcontainer configuration is not trusted: nothing it names runs, on the \
                 host or in a container, until you agree; read what it would do and decide: \
                 {decide}"
            ),
            Self::Changed { by, at, changed } => format!(
                "its devcontainer configuration changed since {by} trusted it ({at}): {}; read \
                 what it would do now and decide again: {decide}",
                changed.join(", ")
            ),
            Self::NoPerson => "this registry was opened for no person (Options::person), so \
                 no trust applies and no devcontainer is activated"
                .to_owned(),
        }
    }
}
