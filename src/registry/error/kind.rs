//! What kind of refusal an error is, for a program that acts on it (an
//! agent over MCP, a Python runtime): one word per family a caller would
//! handle differently — retry, ask a person, fix its arguments, give up.
//! The message stays the one for people; the kind is what to match on.
//!
//! Every variant is placed here explicitly (no catch-all), so a new
//! refusal cannot be added without deciding its kind.

use super::{
    EnvironmentsError, LinksError, PluginsError, RegistryError, ResourcesError, SandboxesError,
    TransferError, TypesError,
};
use serde::Serialize;
use std::fmt;

/// The family of a registry refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// No such resource, type, sandbox, checkpoint, plugin or link.
    NotFound,
    /// A name, type or plugin that is taken.
    Exists,
    /// A link that would close a cycle.
    Cycle,
    /// A link neither type allows.
    IncompatibleLink,
    /// A link to itself, or one that exists.
    InvalidLink,
    /// An argument, name, file or document the operation cannot use.
    InvalidArguments,
    /// What is asked for is in use: sandboxes, containers, resources of a
    /// type, a plugin a type names.
    InUse,
    /// A handler trapped, timed out, ran out of memory or answered what
    /// the host refuses; or its component is missing.
    HandlerFailed,
    /// A devcontainer no person trusted (or whose configuration changed).
    NotTrusted,
    /// A sandbox not in a state that allows the operation.
    SandboxState,
    /// A sandbox strategy refused or failed.
    SandboxFailed,
    /// The container engine refused or failed.
    ContainerFailed,
    /// No execution environment fits.
    NoRoute,
    /// Someone else changed what this operation read; running it again
    /// may work.
    Conflict,
    /// The location belongs to another machine of a shared registry.
    OtherMachine,
    /// A location outside the roots the registry was given (an agent's
    /// registry acts only inside them).
    OutsideRoots,
    /// The caller cancelled the operation (see each operation for what
    /// stays written).
    Cancelled,
    /// The registry's store failed (disk, connection, schema).
    Store,
    /// Any other refusal.
    Refused,
}

impl ErrorKind {
    /// The snake_case word (`not_found`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::Exists => "exists",
            Self::Cycle => "cycle",
            Self::IncompatibleLink => "incompatible_link",
            Self::InvalidLink => "invalid_link",
            Self::InvalidArguments => "invalid_arguments",
            Self::InUse => "in_use",
            Self::HandlerFailed => "handler_failed",
            Self::NotTrusted => "not_trusted",
            Self::SandboxState => "sandbox_state",
            Self::SandboxFailed => "sandbox_failed",
            Self::ContainerFailed => "container_failed",
            Self::NoRoute => "no_route",
            Self::Conflict => "conflict",
            Self::OtherMachine => "other_machine",
            Self::OutsideRoots => "outside_roots",
            Self::Cancelled => "cancelled",
            Self::Store => "store",
            Self::Refused => "refused",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

use ErrorKind as K;

impl RegistryError {
    /// What kind of refusal this is.
    pub fn kind(&self) -> ErrorKind {
        use RegistryError as E;
        match self {
            E::Types(e) => e.kind(),
            E::Resources(e) => e.kind(),
            E::Links(e) => e.kind(),
            E::Environments(e) => e.kind(),
            E::Sandboxes(e) => e.kind(),
            E::Plugins(e) => e.kind(),
            E::Transfer(e) => e.kind(),
            E::Distribution(e) => e.kind(),
            E::Events(e) => e.kind(),
            E::Store { .. } => K::Store,
            E::Spec { .. }
            | E::Inheritance { .. }
            | E::Name { .. }
            | E::Args { .. }
            | E::Input { .. }
            | E::ReadFile { .. }
            | E::Document { .. } => K::InvalidArguments,
            E::HomeDir { .. } | E::Home { .. } => K::Refused,
            E::HasSandboxes { .. } | E::HasContainers { .. } => K::InUse,
            E::OtherMachine { .. } => K::OtherMachine,
            E::OutsideRoots { .. } => K::OutsideRoots,
            E::PluginLoad { .. } | E::Handler { .. } => K::HandlerFailed,
        }
    }
}

impl TypesError {
    pub fn kind(&self) -> ErrorKind {
        use TypesError as E;
        match self {
            E::TypeNotFound { .. } => K::NotFound,
            E::TypeExists { .. } => K::Exists,
            E::UnknownTypeReference { .. } => K::InvalidArguments,
            E::TypeHasResources { .. } | E::TypeReferenced { .. } => K::InUse,
            E::BuiltinType { .. }
            | E::ReplaceChangesKind { .. }
            | E::ReplaceAddsRequired { .. }
            | E::ReplaceInvalidatesResource { .. }
            | E::ReplaceBreaksLink { .. } => K::Refused,
            E::TypesChanged { .. } => K::Conflict,
        }
    }
}

impl ResourcesError {
    pub fn kind(&self) -> ErrorKind {
        use ResourcesError as E;
        match self {
            E::ResourceNotFound { .. } | E::NothingAt { .. } | E::LocationVanished { .. } => {
                K::NotFound
            }
            E::DuplicateName { .. } | E::ConfusableName { .. } => K::Exists,
            E::BadSandboxStrategy { .. } | E::InspectPathRefused { .. } => K::InvalidArguments,
            E::ChildRefused { .. } | E::ChildDisowned { .. } | E::DiscoveryTooLarge { .. } => {
                K::HandlerFailed
            }
            E::DiscoveredNameTaken { .. } | E::ChangedMeanwhile { .. } => K::Conflict,
            E::Watch { .. } | E::NotUserAddable { .. } => K::Refused,
            E::Cancelled { .. } | E::RefreshCancelled { .. } => K::Cancelled,
        }
    }
}

impl LinksError {
    pub fn kind(&self) -> ErrorKind {
        use LinksError as E;
        match self {
            E::SelfLink { .. } | E::DuplicateLink { .. } => K::InvalidLink,
            E::Cycle { .. } => K::Cycle,
            E::IncompatibleLink { .. } => K::IncompatibleLink,
            E::NotLinked { .. } => K::NotFound,
            E::TreeTooDeep { .. } => K::InvalidArguments,
        }
    }
}

impl EnvironmentsError {
    pub fn kind(&self) -> ErrorKind {
        use EnvironmentsError as E;
        match self {
            E::NotAnEnvironment { .. } | E::Route { .. } => K::NoRoute,
            E::BadPlanName { .. } => K::InvalidArguments,
            E::ContainerRefused { .. } | E::ContainerFailed { .. } => K::ContainerFailed,
            E::NotTrusted { .. } | E::BroughtByAgent { .. } => K::NotTrusted,
            E::TooManyBelow { .. } => K::InvalidArguments,
        }
    }
}

impl SandboxesError {
    pub fn kind(&self) -> ErrorKind {
        use SandboxesError as E;
        match self {
            E::SandboxNotFound { .. } | E::CheckpointNotFound { .. } => K::NotFound,
            E::SandboxNotActive { .. } | E::SandboxInSession { .. } | E::SandboxBusy { .. } => {
                K::SandboxState
            }
            E::SandboxRefused { .. } | E::SandboxFailed { .. } => K::SandboxFailed,
            E::BadCheckpointLabel { .. } => K::InvalidArguments,
            E::SandboxNeedsHome | E::InsecureSandboxes { .. } | E::SandboxRowDisagrees { .. } => {
                K::Refused
            }
        }
    }
}

impl PluginsError {
    pub fn kind(&self) -> ErrorKind {
        use PluginsError as E;
        match self {
            E::PluginNotFound { .. } => K::NotFound,
            E::PluginExists { .. } => K::Exists,
            E::PluginInUse { .. } | E::ReplacementDropsClass { .. } => K::InUse,
            E::ComponentMissing { .. }
            | E::HandlerModuleMissing { .. }
            | E::HandlerClassMissing { .. } => K::HandlerFailed,
            E::ReservedModule { .. } | E::NotABuiltinModule { .. } => K::InvalidArguments,
            E::PluginRefused { .. } | E::NoHandler { .. } | E::NoPluginStore { .. } => K::Refused,
            E::CarriedTypes { .. } | E::CarriedForeignHandler { .. } | E::CarriedTwice { .. } => {
                K::InvalidArguments
            }
        }
    }
}

impl TransferError {
    pub fn kind(&self) -> ErrorKind {
        use TransferError as E;
        match self {
            E::ImportConflicts { .. } => K::Conflict,
            E::ImportPluginsMissing { .. }
            | E::ImportTypesMissing { .. }
            | E::ImportRefused { .. } => K::Refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_the_snake_case_words_programs_match_on() {
        assert_eq!(ErrorKind::NotFound.to_string(), "not_found");
        assert_eq!(
            serde_json::to_value(ErrorKind::IncompatibleLink).unwrap(),
            "incompatible_link"
        );
        let err = RegistryError::from(LinksError::Cycle {
            parent: "a".into(),
            child: "b".into(),
        });
        assert_eq!(err.kind(), ErrorKind::Cycle);
    }
}
