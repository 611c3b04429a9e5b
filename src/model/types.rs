//! Resource types: the declared form a YAML file or the built-in catalogue
//! gives ([`TypeSpec`]), and the effective form after inheritance
//! ([`ResolvedType`]), where every field remembers which type it came from.
//!
//! The declared form keeps `None` / empty for "not said here", because a
//! subtype inherits exactly what it does not say. Only the resolver (in
//! `spec`) turns declared specs into resolved types; the defaults for
//! fields no type in the chain declares are listed there.

use super::handler::HandlerRef;
use super::names::TypeName;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `physical` or `virtual` (the spec's `ResourceKind` / `PhysVirt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    Physical,
    Virtual,
}

/// How a resource is isolated while a plan works on it.
///
/// The five strategies of the reference table, plus `inherit`: the
/// "(inherits)" entries of the built-in tables (`git-branch`, `fs-file`, …)
/// — such a resource has no sandbox of its own and is isolated as part of
/// its parent resource's sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SandboxStrategy {
    GitWorktree,
    CopyOnWrite,
    Overlay,
    TransactionRollback,
    None,
    Inherit,
}

impl SandboxStrategy {
    pub const ALL: [SandboxStrategy; 6] = [
        Self::GitWorktree,
        Self::CopyOnWrite,
        Self::Overlay,
        Self::TransactionRollback,
        Self::None,
        Self::Inherit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::GitWorktree => "git_worktree",
            Self::CopyOnWrite => "copy_on_write",
            Self::Overlay => "overlay",
            Self::TransactionRollback => "transaction_rollback",
            Self::None => "none",
            Self::Inherit => "inherit",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl ResourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Physical => "physical",
            Self::Virtual => "virtual",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "physical" => Some(Self::Physical),
            "virtual" => Some(Self::Virtual),
            _ => None,
        }
    }
}

impl fmt::Display for SandboxStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The value type of a registration argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArgType {
    /// Any text.
    String,
    /// A filesystem path that must exist; stored canonicalized.
    Path,
    /// A signed 64-bit integer.
    Integer,
    /// `true` / `false`; on the command line a bare `--flag` means true.
    Boolean,
    /// One of the argument's `choices`.
    Choice,
}

impl ArgType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Path => "path",
            Self::Integer => "integer",
            Self::Boolean => "boolean",
            Self::Choice => "choice",
        }
    }
}

/// One registration argument of a type (`ResourceTypeArgument`): it becomes
/// a `--name` flag of `agents resource add TYPE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TypeArgument {
    pub name: String,
    #[serde(rename = "type")]
    pub arg_type: ArgType,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Default value, already checked against `arg_type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// The allowed values of a `choice` argument.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// Capabilities as a type file declares them: each flag may be left out
/// and is then inherited (or defaulted) on its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeCapabilitiesDecl {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<bool>,
}

/// Effective capabilities of a type (`read`, `write`, `sandbox`, `checkpoint`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TypeCapabilities {
    pub read: bool,
    pub write: bool,
    pub sandbox: bool,
    pub checkpoint: bool,
}

impl TypeCapabilities {
    /// Each flag with its spec name, in `read, write, sandbox, checkpoint` order.
    pub fn named(self) -> [(&'static str, bool); 4] {
        [
            ("read", self.read),
            ("write", self.write),
            ("sandbox", self.sandbox),
            ("checkpoint", self.checkpoint),
        ]
    }

    /// The names of the flags that are on.
    pub fn enabled(self) -> impl Iterator<Item = &'static str> {
        self.named()
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(n, _)| n)
    }
}

/// One auto-discovery rule: children of `type` found by `pattern`
/// (a glob relative to the resource's location, or a handler-defined
/// selector such as `refs/heads/*` for git types).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiscoveryRule {
    #[serde(rename = "type")]
    pub type_name: TypeName,
    pub pattern: String,
}

/// Auto-discovery rules of a type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AutoDiscovery {
    pub enabled: bool,
    #[serde(default)]
    pub rules: Vec<DiscoveryRule>,
}

/// Virtual-resource deduplication: which physical types a virtual type
/// unifies, and which properties must be equal for two of them to be the
/// same thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Equivalence {
    /// The physical types this virtual type links (`fs-file ↔ git-tree-entry`).
    pub links: Vec<TypeName>,
    /// Property keys whose equal values make two resources equivalent.
    #[serde(rename = "match")]
    pub match_on: Vec<String>,
    /// Which resources of the linked types take part at all: each key's
    /// property must hold one of the listed values (`entry-kind: [file]`
    /// keeps a git tree entry that is a symlink out of `file`). Empty:
    /// every resource of the linked types does. Our extension of the
    /// spec's free-form `equivalence` dict.
    #[serde(
        default,
        rename = "where",
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    pub filter: std::collections::BTreeMap<String, Vec<String>>,
}

impl Equivalence {
    /// Whether a resource whose `filter` keys hold `values` (in the map's
    /// key order; `None` where the property is missing) takes part.
    pub fn admits(&self, values: &[Option<String>]) -> bool {
        self.filter
            .values()
            .zip(values)
            .all(|(allowed, v)| v.as_ref().is_some_and(|v| allowed.contains(v)))
    }
}

/// Which collection fields a subtype replaces instead of merging.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaceFlags {
    pub cli_args: bool,
    pub parent_types: bool,
    pub child_types: bool,
}

/// A type as declared: exactly what one YAML document (or catalogue entry)
/// says, validated on its own. `None` / empty means "not said here".
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSpec {
    pub name: TypeName,
    pub inherits: Option<TypeName>,
    pub description: Option<String>,
    /// `resource_kind` in YAML and JSON.
    pub kind: Option<ResourceKind>,
    pub sandbox_strategy: Option<SandboxStrategy>,
    pub user_addable: Option<bool>,
    pub built_in: bool,
    pub cli_args: Vec<TypeArgument>,
    pub parent_types: Vec<TypeName>,
    pub child_types: Vec<TypeName>,
    pub replace: ReplaceFlags,
    pub handler: Option<HandlerRef>,
    pub capabilities: TypeCapabilitiesDecl,
    pub auto_discovery: Option<AutoDiscovery>,
    pub equivalence: Option<Equivalence>,
}

/// A value of a resolved type with the type it came from: the type itself,
/// an ancestor, or `None` for the resolver's default.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sourced<T> {
    pub value: T,
    pub from: Option<TypeName>,
}

/// Each effective capability flag with the type it came from (each flag
/// resolves on its own).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourcedCapabilities {
    pub read: Sourced<bool>,
    pub write: Sourced<bool>,
    pub sandbox: Sourced<bool>,
    pub checkpoint: Sourced<bool>,
}

impl SourcedCapabilities {
    /// The flags without their origins.
    pub fn values(&self) -> TypeCapabilities {
        TypeCapabilities {
            read: self.read.value,
            write: self.write.value,
            sandbox: self.sandbox.value,
            checkpoint: self.checkpoint.value,
        }
    }

    /// Each flag with its spec name and origin, in `read, write, sandbox,
    /// checkpoint` order.
    pub fn named(&self) -> [(&'static str, &Sourced<bool>); 4] {
        [
            ("read", &self.read),
            ("write", &self.write),
            ("sandbox", &self.sandbox),
            ("checkpoint", &self.checkpoint),
        ]
    }
}

/// The effective type after inheritance, every value with its origin.
/// Built only by `typespec::resolve`; serialised as `agents resource type
/// explain -o json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedType {
    pub name: TypeName,
    /// The inheritance chain, this type first and the root last.
    pub chain: Vec<TypeName>,
    pub built_in: bool,
    pub description: Sourced<String>,
    #[serde(rename = "resource_kind")]
    pub kind: Sourced<ResourceKind>,
    pub sandbox_strategy: Sourced<SandboxStrategy>,
    pub user_addable: Sourced<bool>,
    pub cli_args: Vec<Sourced<TypeArgument>>,
    pub parent_types: Vec<Sourced<TypeName>>,
    pub child_types: Vec<Sourced<TypeName>>,
    pub handler: Option<Sourced<HandlerRef>>,
    pub capabilities: SourcedCapabilities,
    pub auto_discovery: Option<Sourced<AutoDiscovery>>,
    pub equivalence: Option<Sourced<Equivalence>>,
}

impl ResolvedType {
    /// The direct parent type, if this type inherits.
    pub fn inherits(&self) -> Option<&TypeName> {
        self.chain.get(1)
    }

    /// Is this type `ancestor` or one of its subtypes? (Polymorphism: a
    /// rule that names a type accepts its subtypes.)
    pub fn is_a(&self, ancestor: &TypeName) -> bool {
        self.chain.contains(ancestor)
    }

    pub fn arg(&self, name: &str) -> Option<&TypeArgument> {
        self.args().find(|a| a.name == name)
    }

    /// The effective registration arguments, in order.
    pub fn args(&self) -> impl Iterator<Item = &TypeArgument> {
        self.cli_args.iter().map(|a| &a.value)
    }

    pub fn description(&self) -> &str {
        &self.description.value
    }

    pub fn kind(&self) -> ResourceKind {
        self.kind.value
    }

    pub fn sandbox_strategy(&self) -> SandboxStrategy {
        self.sandbox_strategy.value
    }

    pub fn is_user_addable(&self) -> bool {
        self.user_addable.value
    }

    pub fn handler_ref(&self) -> Option<&HandlerRef> {
        self.handler.as_ref().map(|h| &h.value)
    }

    pub fn type_capabilities(&self) -> TypeCapabilities {
        self.capabilities.values()
    }

    pub fn discovery(&self) -> Option<&AutoDiscovery> {
        self.auto_discovery.as_ref().map(|a| &a.value)
    }

    /// Discovery is on and lists rules to discover by (what a resource of
    /// this type lives by in local mode, while no handler runs them).
    pub fn has_discovery_rules(&self) -> bool {
        self.discovery()
            .is_some_and(|d| d.enabled && !d.rules.is_empty())
    }

    pub fn equivalence_config(&self) -> Option<&Equivalence> {
        self.equivalence.as_ref().map(|e| &e.value)
    }

    pub fn child_type_names(&self) -> impl Iterator<Item = &TypeName> {
        self.child_types.iter().map(|s| &s.value)
    }

    pub fn parent_type_names(&self) -> impl Iterator<Item = &TypeName> {
        self.parent_types.iter().map(|s| &s.value)
    }
}
