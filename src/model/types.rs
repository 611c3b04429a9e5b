//! Resource types: the declared form a YAML file or the built-in catalogue
//! gives ([`TypeSpec`]), and the effective form after inheritance
//! ([`ResolvedType`]), where every field remembers which type it came from.
//!
//! The declared form keeps `None` / empty for "not said here", because a
//! subtype inherits exactly what it does not say. Only the resolver (in
//! `spec`) turns declared specs into resolved types; the defaults for
//! fields no type in the chain declares are listed there.

use super::names::TypeName;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `physical` or `virtual` (the spec's `ResourceKind` / `PhysVirt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// `module:Class` — the WASM component module and the class it exports.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HandlerRef {
    pub module: String,
    pub class: String,
}

impl HandlerRef {
    /// Accept `module:Class`: a dotted module path (segments of letters,
    /// digits, `_` and `-`, not starting with a digit) and a class
    /// identifier. At most 256 characters, the `handler` column's size.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((module, class)) = text.split_once(':') else {
            return Err(format!(
                "handler {text:?} is not in module:Class form (e.g. \
                 cleveragents.resource.handlers.git:GitCheckoutHandler)"
            ));
        };
        Self::from_parts(module, class)
    }

    /// Accept the `{module, class}` mapping form.
    pub fn from_parts(module: &str, class: &str) -> Result<Self, String> {
        let ident_ok = |s: &str, extra: &[char]| {
            let mut chars = s.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || extra.contains(&c))
        };
        if module.is_empty() || !module.split('.').all(|seg| ident_ok(seg, &['-'])) {
            return Err(format!(
                "handler module {module:?} must be a dotted path of identifiers \
                 (e.g. myteam.handlers.python)"
            ));
        }
        if !ident_ok(class, &[]) {
            return Err(format!(
                "handler class {class:?} must be an identifier (e.g. PythonPackageHandler)"
            ));
        }
        if module.len() + class.len() + 1 > 256 {
            return Err("handler ref is longer than 256 characters".to_owned());
        }
        Ok(Self {
            module: module.to_owned(),
            class: class.to_owned(),
        })
    }
}

impl fmt::Display for HandlerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.module, self.class)
    }
}

impl Serialize for HandlerRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
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
pub struct TypeCapabilities {
    pub read: bool,
    pub write: bool,
    pub sandbox: bool,
    pub checkpoint: bool,
}

/// One auto-discovery rule: children of `type` found by `pattern`
/// (a glob relative to the resource's location, or a handler-defined
/// selector such as `refs/heads/*` for git types).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscoveryRule {
    #[serde(rename = "type")]
    pub type_name: TypeName,
    pub pattern: String,
}

/// Auto-discovery rules of a type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoDiscovery {
    pub enabled: bool,
    #[serde(default)]
    pub rules: Vec<DiscoveryRule>,
}

/// Virtual-resource deduplication: which physical types a virtual type
/// unifies, and which properties must be equal for two of them to be the
/// same thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Equivalence {
    /// The physical types this virtual type links (`fs-file ↔ git-tree-entry`).
    pub links: Vec<TypeName>,
    /// Property keys whose equal values make two resources equivalent.
    #[serde(rename = "match")]
    pub match_on: Vec<String>,
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
    pub resource_kind: Option<ResourceKind>,
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

    /// Where each flag came from, in `read, write, sandbox, checkpoint` order.
    pub fn origins(&self) -> [Option<TypeName>; 4] {
        [&self.read, &self.write, &self.sandbox, &self.checkpoint].map(|s| s.from.clone())
    }
}

/// The effective type after inheritance, every value with its origin.
/// Built only by `spec::resolve`; serialised as `agents resource type
/// explain -o json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedType {
    pub name: TypeName,
    /// The inheritance chain, this type first and the root last.
    pub chain: Vec<TypeName>,
    pub built_in: bool,
    pub description: Sourced<String>,
    pub resource_kind: Sourced<ResourceKind>,
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
        self.cli_args
            .iter()
            .map(|a| &a.value)
            .find(|a| a.name == name)
    }

    pub fn child_type_names(&self) -> impl Iterator<Item = &TypeName> {
        self.child_types.iter().map(|s| &s.value)
    }

    pub fn parent_type_names(&self) -> impl Iterator<Item = &TypeName> {
        self.parent_types.iter().map(|s| &s.value)
    }
}
