//! The plain Rust side of the WIT contract: what a handler is told and
//! what it answers, as the rest of the crate sees it. Nothing here names a
//! wasmtime or bindgen type, so code outside `plugin` never depends on
//! them; `bindings` converts at the boundary.
//!
//! Answers arrive here only after `answer` checked them: a [`Discovered`]
//! child's type name is a checked [`TypeName`] and its location lies
//! inside the resource's location. The two exceptions are the raw
//! mirrors, [`RawChild`] and [`RawInfo`]: what a component answered, as
//! each contract version's bindings give it to `answer` to check.

use super::version::ContractVersion;
use crate::model::{ClassName, ModuleName, TypeName};
use crate::text::{EXCERPT_CHARS, excerpt};
use std::fmt;
use std::path::PathBuf;

/// What a module says about itself (`describe`), checked: the module name
/// is a valid [`ModuleName`], class names are [`ClassName`]s, unique.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    pub module: ModuleName,
    pub version: String,
    pub classes: Vec<ClassInfo>,
    /// The contract version the component was built against.
    pub contract: ContractVersion,
}

impl PluginInfo {
    /// Does the module provide class `name`?
    pub fn has_class(&self, name: &str) -> bool {
        self.classes.iter().any(|c| c.name.as_str() == name)
    }

    /// The class names, for messages that list what exists.
    pub fn class_names(&self) -> Vec<&str> {
        self.classes.iter().map(|c| c.name.as_str()).collect()
    }
}

/// One class a module provides, as the store's plugin rows, the registry
/// document and the plugin views carry it too.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    // The name and the open object the views' output schemas have always
    // said: refusing unknown keys is how a document is read, not a promise
    // about an answer.
    schemars(rename = "ClassView", transform = open_object)
)]
pub struct ClassInfo {
    pub name: ClassName,
    pub description: String,
}

#[cfg(feature = "schema")]
fn open_object(schema: &mut schemars::Schema) {
    schema.remove("additionalProperties");
}

/// A resource as a handler sees it (`resource-view` in the WIT).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceView {
    /// The ULID as text; empty before the resource exists.
    pub id: String,
    pub name: Option<String>,
    pub type_name: String,
    /// Canonical absolute location; the grant should make it visible.
    pub location: Option<String>,
    pub properties: Vec<(String, String)>,
}

/// A child found by `discover`, after the host's checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub type_name: TypeName,
    /// The name suffix under the parent's name (`src/pkg`).
    pub name: Option<String>,
    /// Absolute, inside the parent's location (relative answers are
    /// resolved against it).
    pub location: Option<String>,
    pub properties: Vec<(String, String)>,
    pub content_hash: Option<String>,
}

/// What `inspect` answered, after the host's checks: text for people and
/// the same facts as fields (unique keys; empty from a `0.1.0` component,
/// whose `inspect` answers text only).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inspected {
    pub text: String,
    pub fields: Vec<(String, String)>,
}

/// A handler's own refusal or failure (`handler-error` in the WIT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandlerError {
    InvalidArgs(String),
    NotFound(String),
    Unsupported(String),
    Io(String),
    Failed(String),
}

impl fmt::Display for HandlerError {
    /// The handler's words, cut to a readable length.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, m) = match self {
            Self::InvalidArgs(m) => ("invalid arguments", m),
            Self::NotFound(m) => ("not found", m),
            Self::Unsupported(m) => ("unsupported", m),
            Self::Io(m) => ("i/o error", m),
            Self::Failed(m) => ("failed", m),
        };
        write!(f, "{what}: {}", excerpt(m, EXCERPT_CHARS))
    }
}

/// The operations of the `handler` interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Describe,
    Validate,
    Discover,
    ContentHash,
    Inspect,
}

impl Operation {
    /// The WIT name (`content-hash`), as messages show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Describe => "describe",
            Self::Validate => "validate",
            Self::Discover => "discover",
            Self::ContentHash => "content-hash",
            Self::Inspect => "inspect",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one call's sandbox may see: at most one location (a resource's,
/// or a `path` argument during `validate`), read-only unless `writable`.
/// The location is checked again when the call starts: a directory is
/// preopened at its own path, anything else is seen alone in a one-entry
/// view of its directory (see `location`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    pub location: Option<PathBuf>,
    pub writable: bool,
    /// With no location: the remote repository (a URL) the call's `git`
    /// questions are about. The host asks only URLs it accepts
    /// (`plugin/git/remote.rs`); a refused one answers each question
    /// with the reason.
    pub remote: Option<String>,
}

impl Grant {
    /// Nothing: no filesystem at all (`describe`).
    pub fn none() -> Self {
        Self::default()
    }

    /// `location`, read-only.
    pub fn read_only(location: impl Into<PathBuf>) -> Self {
        Self {
            location: Some(location.into()),
            ..Self::default()
        }
    }

    /// No filesystem; `git` questions about the remote repository `url`.
    pub fn remote(url: impl Into<String>) -> Self {
        Self {
            remote: Some(url.into()),
            ..Self::default()
        }
    }
}

/// A child as the handler answered it, not yet checked. (`pub` only so
/// that `plugin::fuzzing` can hand it out; `answer` checks it.)
#[derive(Debug, Clone, Default)]
pub struct RawChild {
    pub type_name: String,
    pub name: Option<String>,
    pub location: Option<String>,
    pub properties: Vec<(String, String)>,
    pub content_hash: Option<String>,
}

/// A `describe` answer as the component gave it, not yet checked.
#[derive(Debug, Clone, Default)]
pub struct RawInfo {
    pub module: String,
    pub version: String,
    pub classes: Vec<(String, String)>,
}
