//! What kind of refusal an error is, for a program that acts on it (an
//! agent over MCP, a Python runtime): one word per family a caller would
//! handle differently — retry, ask a person, fix its arguments, give up.
//! The message stays the one for people; the kind is what to match on.
//!
//! Every variant is placed here explicitly (no catch-all), so a new
//! refusal cannot be added without deciding its kind.

use super::{
    EnvironmentsError, EventsError, LinksError, PluginsError, RegistryError, ResourcesError,
    SandboxesError, TransferError, TypesError,
};
use serde::Serialize;
use std::fmt;

/// Declares [`ErrorKind`] with the snake_case word of each variant, and
/// `as_str` answering it.
macro_rules! error_kinds {
    ($($(#[$doc:meta])* $kind:ident => $word:literal,)*) => {
        /// The family of a registry refusal.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum ErrorKind {
            $($(#[$doc])* $kind,)*
        }

        impl ErrorKind {
            /// The snake_case word (`not_found`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$kind => $word,)*
                }
            }
        }
    };
}

error_kinds! {
    /// No such resource, type, sandbox, checkpoint, plugin or link.
    NotFound => "not_found",
    /// A name, type or plugin that is taken.
    Exists => "exists",
    /// A link that would close a cycle.
    Cycle => "cycle",
    /// A link neither type allows.
    IncompatibleLink => "incompatible_link",
    /// A link to itself, or one that exists.
    InvalidLink => "invalid_link",
    /// An argument, name, file or document the operation cannot use.
    InvalidArguments => "invalid_arguments",
    /// What is asked for is in use: sandboxes, containers, resources of a
    /// type, a plugin a type names.
    InUse => "in_use",
    /// A handler trapped, timed out, ran out of memory or answered what
    /// the host refuses; or its component is missing.
    HandlerFailed => "handler_failed",
    /// A devcontainer no person trusted (or whose configuration changed).
    NotTrusted => "not_trusted",
    /// A sandbox not in a state that allows the operation.
    SandboxState => "sandbox_state",
    /// A sandbox strategy refused or failed.
    SandboxFailed => "sandbox_failed",
    /// The container engine refused or failed.
    ContainerFailed => "container_failed",
    /// No execution environment fits.
    NoRoute => "no_route",
    /// Someone else changed what this operation read; running it again
    /// may work.
    Conflict => "conflict",
    /// The location belongs to another machine of a shared registry.
    OtherMachine => "other_machine",
    /// A location outside the roots the registry was given (an agent's
    /// registry acts only inside them).
    OutsideRoots => "outside_roots",
    /// The caller cancelled the operation (see each operation for what
    /// stays written).
    Cancelled => "cancelled",
    /// The registry's store failed (disk, connection, schema).
    Store => "store",
    /// Any other refusal.
    Refused => "refused",
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Each error's `kind()`: every variant listed under its kind (or, for
/// a concern's error wrapped whole, after `by`: that error's own kind),
/// so the match stays exhaustive — a new variant without a kind does not
/// compile.
macro_rules! kinds {
    ($error:ident $(by $($inner:ident)|+)? { $($kind:ident: $($variant:ident)|+;)* }) => {
        impl $error {
            /// What kind of refusal this is.
            pub fn kind(&self) -> ErrorKind {
                match self {
                    $($(Self::$inner(e) => e.kind(),)+)?
                    $($(Self::$variant { .. })|+ => ErrorKind::$kind,)*
                }
            }
        }
    };
}

kinds!(RegistryError by Types | Resources | Links | Environments | Sandboxes | Plugins
    | Transfer | Distribution | Events {
    Store: Store;
    InvalidArguments: Spec | Inheritance | Name | Args | Input | ReadFile | Document;
    Refused: HomeDir | Home;
    InUse: HasSandboxes | HasContainers;
    OtherMachine: OtherMachine;
    OutsideRoots: OutsideRoots;
    HandlerFailed: PluginLoad | Handler;
});

kinds!(TypesError {
    NotFound: TypeNotFound;
    Exists: TypeExists;
    InvalidArguments: UnknownTypeReference;
    InUse: TypeHasResources | TypeReferenced;
    Refused: BuiltinType
        | ReplaceChangesKind
        | ReplaceAddsRequired
        | ReplaceInvalidatesResource
        | ReplaceBreaksLink;
    Conflict: TypesChanged;
});

kinds!(ResourcesError {
    NotFound: ResourceNotFound | NothingAt | LocationVanished;
    Exists: DuplicateName | ConfusableName;
    InvalidArguments: BadSandboxStrategy | InspectPathRefused;
    HandlerFailed: ChildRefused | ChildDisowned | DiscoveryTooLarge;
    Conflict: DiscoveredNameTaken | ChangedMeanwhile;
    Refused: Watch | NotUserAddable;
    Cancelled: Cancelled | RefreshCancelled;
});

kinds!(LinksError {
    InvalidLink: SelfLink | DuplicateLink;
    Cycle: Cycle;
    IncompatibleLink: IncompatibleLink;
    NotFound: NotLinked;
    InvalidArguments: TreeTooDeep;
});

kinds!(EnvironmentsError {
    NoRoute: NotAnEnvironment | Route;
    InvalidArguments: BadPlanName | TooManyBelow;
    ContainerFailed: ContainerRefused | ContainerFailed;
    NotTrusted: NotTrusted | BroughtByAgent;
});

kinds!(SandboxesError {
    NotFound: SandboxNotFound | CheckpointNotFound;
    SandboxState: SandboxNotActive | SandboxInSession | SandboxBusy;
    SandboxFailed: SandboxRefused | SandboxFailed;
    InvalidArguments: BadCheckpointLabel;
    Refused: SandboxNeedsHome | InsecureSandboxes | SandboxRowDisagrees;
});

kinds!(PluginsError {
    NotFound: PluginNotFound;
    Exists: PluginExists;
    InUse: PluginInUse | ReplacementDropsClass;
    HandlerFailed: ComponentMissing | HandlerModuleMissing | HandlerClassMissing;
    InvalidArguments: ReservedModule
        | NotABuiltinModule
        | CarriedTypes
        | CarriedForeignHandler
        | CarriedTwice;
    Refused: PluginRefused | NoHandler | NoPluginStore;
});

kinds!(TransferError {
    Conflict: ImportConflicts;
    Refused: ImportPluginsMissing | ImportTypesMissing | ImportRefused;
});

kinds!(EventsError {
    InvalidArguments: BadSince | BadOp | BadKind | BadKeep | UnknownSetting | BadLimit;
});

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
