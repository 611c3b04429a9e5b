//! Checked names and ids: the one home of what a type name, a resource
//! name and a resource id may look like.
//!
//! * A **type name** is bare for built-in types (`git-checkout`) and
//!   `namespace/name` for custom ones (`myteam/python-package`). Both parts
//!   are lowercase kebab-case so they read the same in YAML, on the command
//!   line and in SQL; the namespace `builtin` is reserved because the
//!   `resource_types.namespace` column uses it for built-in types.
//! * A **resource name** is namespaced, `namespace/name[/more]`, so it can
//!   never be mistaken for a ULID (which has no `/`): `show NAME_OR_ID`
//!   needs no guessing.
//! * A **resource id** is a ULID, stored as its 26-character text.

use crate::text::quote;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The namespace recorded for built-in types; reserved for them.
pub const BUILTIN_NAMESPACE: &str = "builtin";

const TYPE_NAME_MAX: usize = 128;
const NAMESPACE_MAX: usize = 64;
const RESOURCE_NAME_MAX: usize = 256;

/// Why a name or id was declined.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NameError {
    #[error("type name {} is not valid: {reason}", quote(.name))]
    TypeName { name: String, reason: String },
    #[error("resource name {} is not valid: {reason}", quote(.name))]
    ResourceName { name: String, reason: String },
    #[error("{} is not a resource id (a 26-character ULID): {reason}", quote(.text))]
    ResourceId { text: String, reason: String },
    #[error("{} is not a sandbox id (a 26-character ULID): {reason}", quote(.text))]
    SandboxId { text: String, reason: String },
    #[error(
        "{} is neither a resource id (a 26-character ULID) nor a resource name \
         (namespace/name, e.g. local/api-repo)",
        quote(.text)
    )]
    ResourceKey { text: String },
    #[error("handler module {} is not valid: {reason}", quote(.name))]
    ModuleName { name: String, reason: String },
    #[error("handler class {} is not valid: {reason}", quote(.name))]
    ClassName { name: String, reason: String },
    #[error("handler {} is not valid: {reason}", quote(.text))]
    HandlerRef { text: String, reason: String },
}

/// Is `part` lowercase kebab-case: `[a-z][a-z0-9]*(-[a-z0-9]+)*`?
/// `None` when it is, else what is wrong. Shared with `spec`, whose
/// argument names (`--config-path`) follow the same rule.
pub(crate) fn kebab_problem(part: &str) -> Option<&'static str> {
    let mut chars = part.chars();
    match chars.next() {
        None => return Some("it has an empty part"),
        Some(c) if !c.is_ascii_lowercase() => {
            return Some("each part must start with a lowercase letter (a-z)");
        }
        Some(_) => {}
    }
    if !part
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some("only lowercase letters, digits and '-' are allowed");
    }
    if part.ends_with('-') || part.contains("--") {
        return Some("'-' must separate words (no trailing or doubled '-')");
    }
    None
}

/// A checked resource type name: bare (built-in) or `namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeName(String);

impl TypeName {
    /// Accept `text` as a type name, either form.
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: &str| NameError::TypeName {
            name: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.len() > TYPE_NAME_MAX {
            return Err(refuse(&format!("longer than {TYPE_NAME_MAX} characters")));
        }
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() > 2 {
            return Err(refuse("a type name has at most one '/' (namespace/name)"));
        }
        for part in &parts {
            if let Some(problem) = kebab_problem(part) {
                return Err(refuse(problem));
            }
        }
        if parts.len() == 2 {
            if parts[0].len() > NAMESPACE_MAX {
                return Err(refuse(&format!(
                    "the namespace is longer than {NAMESPACE_MAX} characters"
                )));
            }
            if parts[0] == BUILTIN_NAMESPACE {
                return Err(refuse(
                    "the namespace \"builtin\" is reserved for built-in types",
                ));
            }
        }
        Ok(Self(text.to_owned()))
    }

    /// Accept `text` only as a custom (namespaced) type name.
    pub fn parse_custom(text: &str) -> Result<Self, NameError> {
        let name = Self::parse(text)?;
        if name.is_builtin_form() {
            return Err(NameError::TypeName {
                name: text.to_owned(),
                reason: "custom types are named namespace/name (e.g. myteam/python-package); \
                         bare names are reserved for built-in types"
                    .to_owned(),
            });
        }
        Ok(name)
    }

    /// True for a bare name, the form reserved for built-in types.
    pub fn is_builtin_form(&self) -> bool {
        !self.0.contains('/')
    }

    /// The namespace: the part before `/`, or [`BUILTIN_NAMESPACE`].
    pub fn namespace(&self) -> &str {
        self.0
            .split_once('/')
            .map_or(BUILTIN_NAMESPACE, |(ns, _)| ns)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A checked resource name: `namespace/name`, optionally with more
/// `/`-separated parts (discovered children are named under their parent,
/// e.g. `local/pkg/src`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceName(String);

impl ResourceName {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: &str| NameError::ResourceName {
            name: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.len() > RESOURCE_NAME_MAX {
            return Err(refuse(&format!(
                "longer than {RESOURCE_NAME_MAX} characters"
            )));
        }
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() < 2 {
            return Err(refuse(
                "resource names are namespaced: namespace/name (e.g. local/api-repo)",
            ));
        }
        if parts[0].len() > NAMESPACE_MAX {
            return Err(refuse(&format!(
                "the namespace is longer than {NAMESPACE_MAX} characters"
            )));
        }
        if let Some(problem) = kebab_problem(parts[0]) {
            return Err(refuse(&format!("namespace {:?}: {problem}", parts[0])));
        }
        for part in &parts[1..] {
            let ok_chars = part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if part.is_empty() || !ok_chars || *part == "." || *part == ".." {
                return Err(refuse(&format!(
                    "part {part:?}: use ASCII letters, digits, '-', '_' and '.' (not '.' or '..' alone)"
                )));
            }
        }
        Ok(Self(text.to_owned()))
    }

    /// The namespace: the part before the first `/`.
    pub fn namespace(&self) -> &str {
        self.0.split_once('/').map_or("", |(ns, _)| ns)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A resource id: a ULID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(ulid::Ulid);

impl ResourceId {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        if text.len() != 26 {
            return Err(NameError::ResourceId {
                text: text.to_owned(),
                reason: format!("it has {} characters", text.len()),
            });
        }
        ulid::Ulid::from_string(text)
            .map(Self)
            .map_err(|e| NameError::ResourceId {
                text: text.to_owned(),
                reason: e.to_string(),
            })
    }

    pub fn from_ulid(ulid: ulid::Ulid) -> Self {
        Self(ulid)
    }

    pub fn ulid(&self) -> ulid::Ulid {
        self.0
    }
}

/// A sandbox id: a ULID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SandboxId(ulid::Ulid);

impl SandboxId {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: String| NameError::SandboxId {
            text: text.to_owned(),
            reason,
        };
        if text.len() != 26 {
            return Err(refuse(format!("it has {} characters", text.len())));
        }
        ulid::Ulid::from_string(text)
            .map(Self)
            .map_err(|e| refuse(e.to_string()))
    }

    pub fn from_ulid(ulid: ulid::Ulid) -> Self {
        Self(ulid)
    }
}

/// How a resource is named on the command line and in the API: by its
/// id or by its name. Parsed once, where the text comes in; a ULID has no
/// `/` and a name always has one, so no text is both.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResourceKey {
    Id(ResourceId),
    Name(ResourceName),
}

impl ResourceKey {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        if let Ok(id) = ResourceId::parse(text) {
            return Ok(Self::Id(id));
        }
        ResourceName::parse(text)
            .map(Self::Name)
            .map_err(|_| NameError::ResourceKey {
                text: text.to_owned(),
            })
    }
}

impl From<ResourceId> for ResourceKey {
    fn from(id: ResourceId) -> Self {
        Self::Id(id)
    }
}

impl From<ResourceName> for ResourceKey {
    fn from(name: ResourceName) -> Self {
        Self::Name(name)
    }
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => fmt::Display::fmt(id, f),
            Self::Name(name) => fmt::Display::fmt(name, f),
        }
    }
}

impl FromStr for ResourceKey {
    type Err = NameError;
    fn from_str(s: &str) -> Result<Self, NameError> {
        Self::parse(s)
    }
}

/// How messages refer to a resource: its name if it has one, else its id.
pub fn resource_label(name: Option<&ResourceName>, id: ResourceId) -> String {
    match name {
        Some(name) => name.to_string(),
        None => id.to_string(),
    }
}

macro_rules! text_impls {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
        impl FromStr for $t {
            type Err = NameError;
            fn from_str(s: &str) -> Result<Self, NameError> {
                Self::parse(s)
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}
text_impls!(TypeName);
text_impls!(ResourceName);
text_impls!(ResourceId);
text_impls!(SandboxId);

#[cfg(test)]
mod tests;
