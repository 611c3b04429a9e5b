//! The reasons inside a refusal: why a type cannot be added by hand, a
//! strategy or a sandbox was refused, no handler could be used, or a
//! discovered child was refused — each a value an embedder can match on,
//! displayed as the clause the refusal's message ends with.

use super::join_with;
use crate::dag::LinkTypeRefusal;
use crate::model::{HandlerRef, NameError, ResourceName, TypeName};
use std::fmt;

/// Why a type's resources cannot be registered by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAddable {
    /// Virtual resources are made by the registry.
    Virtual,
    /// They are discovered below resources of these types.
    DiscoveredBelow(Vec<TypeName>),
    /// They are only created by discovery.
    DiscoveredOnly,
}

impl fmt::Display for NotAddable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Virtual => {
                f.write_str("virtual resources are created by the registry, never by hand")
            }
            Self::DiscoveredBelow(parents) => write!(
                f,
                "its resources are auto-discovered as children of {}",
                join(parents)
            ),
            Self::DiscoveredOnly => f.write_str("its resources are only created by discovery"),
        }
    }
}

/// Why a per-resource sandbox strategy does not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrategyRefusal {
    /// Not one of the strategies.
    Unknown,
    /// Virtual resources have no sandbox.
    Virtual,
    /// `git_worktree` isolates git checkouts only.
    GitWorktreeNeedsCheckout,
    /// The copying strategies need a directory at the location.
    NeedsDirectory,
    /// `transaction_rollback` needs a SQLite database file (why not).
    NeedsSqliteFile(String),
}

impl fmt::Display for StrategyRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown => write!(
                f,
                "not a sandbox strategy; use one of {}",
                crate::model::SandboxStrategy::ALL
                    .map(|s| s.as_str())
                    .join(", ")
            ),
            Self::Virtual => f.write_str("virtual resources have no sandbox (use none)"),
            Self::GitWorktreeNeedsCheckout => {
                f.write_str("git_worktree isolates git checkouts (git-checkout and its subtypes)")
            }
            Self::NeedsDirectory => f.write_str(
                "its location is not a directory (a symlink is not followed), and this strategy \
                 isolates a directory",
            ),
            Self::NeedsSqliteFile(why) => f.write_str(why),
        }
    }
}

/// Which rule refused a sandbox operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxRefusal {
    /// Virtual resources have no location to isolate.
    Virtual,
    /// A physical resource registered without a location.
    NoLocation,
    /// Strategy `inherit`: the resource is isolated with its parent;
    /// `parents` are the nearest resources above it whose strategy
    /// isolates (neither `inherit` nor `none`).
    Inherits { parents: Vec<String> },
    /// The type does not declare the `sandbox` capability.
    TypeNotSandboxable { type_name: TypeName },
    /// The type does not declare the `checkpoint` capability.
    TypeNotCheckpointable { type_name: TypeName },
    /// A read-only resource: nothing may change, so nothing to
    /// checkpoint or apply.
    ReadOnly,
    /// A `transaction_rollback` sandbox's transaction lives in the process
    /// holding it.
    HeldBySession,
}

impl fmt::Display for SandboxRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Virtual => f.write_str("virtual resources have no location to isolate"),
            Self::NoLocation => f.write_str("it has no location to isolate"),
            Self::Inherits { parents } if parents.is_empty() => f.write_str(
                "its strategy is inherit: it is isolated as part of its parent's sandbox, and no \
                 resource above it has a strategy that isolates",
            ),
            Self::Inherits { parents } => write!(
                f,
                "its strategy is inherit: it is isolated as part of its parent's sandbox; create \
                 a sandbox of {}",
                parents.join(" or ")
            ),
            Self::TypeNotSandboxable { type_name } => write!(
                f,
                "type {type_name} does not have the sandbox capability (rule: a type that lists \
                 capabilities must list sandbox to be sandboxed)"
            ),
            Self::TypeNotCheckpointable { type_name } => write!(
                f,
                "type {type_name} does not have the checkpoint capability"
            ),
            Self::ReadOnly => f.write_str(
                "the resource is read-only (rule: a read_only resource is never checkpointable, \
                 and its original is never written)",
            ),
            Self::HeldBySession => f.write_str(
                "its transaction lives in the process holding it; run `agents sandbox shell ID` \
                 (checkpoint, rollback and apply are commands there), or hold it through the \
                 library (Registry::open_transaction)",
            ),
        }
    }
}

/// Why a resource has no handler to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoHandlerReason {
    /// Its type names none.
    TypeNamesNone,
    /// Its type names a built-in module this build does not have.
    BuiltinNotInBuild(HandlerRef),
}

impl fmt::Display for NoHandlerReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TypeNamesNone => f.write_str("its type names none"),
            Self::BuiltinNotInBuild(h) => {
                write!(f, "{h} is a built-in handler that is not in this build yet")
            }
        }
    }
}

/// Why the host refused one child a handler discovered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildRefusal {
    /// Its type is not registered.
    UnknownType(TypeName),
    /// The types do not allow it below the parent.
    NotAllowed(LinkTypeRefusal),
    /// The parent type lists discovery rules and none names its type.
    NoRuleMatches {
        child_type: TypeName,
        parent_type: TypeName,
        rules: Vec<TypeName>,
    },
    /// A virtual child cannot have a location.
    VirtualWithLocation(TypeName),
    /// Its name under the parent's is not a valid resource name.
    BadName(NameError),
    /// Two children of one answer have the same name.
    NameGivenTwice(ResourceName),
    /// A devcontainer's `config-path` is not a regular file inside its
    /// location.
    ConfigPath(String),
    /// Its location is a symlink that resolves to nothing, and its type
    /// is not a symlink's.
    DanglingSymlink {
        child_type: TypeName,
        location: String,
        reason: String,
    },
}

impl fmt::Display for ChildRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownType(t) => write!(f, "type {t} is not a registered type"),
            Self::NotAllowed(rule) => rule.fmt(f),
            Self::NoRuleMatches {
                child_type,
                parent_type,
                rules,
            } => write!(
                f,
                "type {child_type} matches none of {parent_type}'s discovery rules ({})",
                join(rules)
            ),
            Self::VirtualWithLocation(t) => write!(f, "{t} is virtual and cannot have a location"),
            Self::BadName(e) => e.fmt(f),
            Self::NameGivenTwice(name) => write!(f, "the name {name} is given twice"),
            Self::ConfigPath(why) => write!(
                f,
                "{why}; a devcontainer's configuration must be a regular file inside its \
                 location"
            ),
            Self::DanglingSymlink {
                child_type,
                location,
                reason,
            } => write!(
                f,
                "its location {} is a symlink that resolves to nothing ({reason}) and a {child_type} \
                 is not a symlink: a dangling link would lead wherever its target later appears, \
                 outside the parent perhaps; point it at an existing entry or leave it out",
                crate::text::quote(location)
            ),
        }
    }
}

/// Names as `a, b, c`, for messages.
pub(crate) fn join<T: fmt::Display>(names: &[T]) -> String {
    join_with(names, ", ")
}
