//! A type name: bare for a built-in type, `namespace/name` for a custom
//! one, both parts kebab-case, the namespace `builtin` reserved.

use super::{BUILTIN_NAMESPACE, NAMESPACE_MAX, NameError, TYPE_NAME_MAX, kebab_problem};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

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

text_impls!(TypeName);
