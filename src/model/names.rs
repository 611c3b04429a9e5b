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
//!
//! Each is in a room of its own (`type_name`, `resource_name`, `ids`, and
//! `key` for how text names a resource); here are the refusal they share,
//! the kebab-case rule and the text impls every one of them has.

use crate::text::quote;
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
        "{} is neither a resource id (a 26-character ULID), a resource name \
         (namespace/name, e.g. local/api-repo) nor a path (/…, ./…, ../…, ~/…)",
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
        string_schema!($t);
    };
}

mod ids;
mod key;
mod resource_name;
mod type_name;

pub use ids::{ResourceId, SandboxId};
pub use key::{ResourceKey, resource_label};
pub use resource_name::ResourceName;
pub(crate) use resource_name::escape_name_part;
pub use type_name::TypeName;

#[cfg(test)]
mod tests;
