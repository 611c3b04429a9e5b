//! Handler names: the one home of what a handler module, a handler class
//! and a `module:Class` reference may look like.
//!
//! A type names its handler `module:Class` (`myteam.python:PythonPackageHandler`).
//! The **module** is a dotted path of identifiers (letters, digits, `_`
//! and `-`, not starting with a digit), because the reference names
//! handlers like Python modules; it is at most 200 characters (the
//! `plugins.module` column). The **class** is one identifier. The whole
//! reference is at most 256 characters (the `handler` column).
//!
//! Module names under [`BUILTIN_MODULE_PREFIX`] are reserved for the
//! handlers built into the binary; a plugin may not claim one.

use super::names::NameError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Module names under this prefix are reserved for built-in handlers.
pub const BUILTIN_MODULE_PREFIX: &str = "cleveragents.resource.handlers.";

const MODULE_MAX: usize = 200;
const HANDLER_REF_MAX: usize = 256;

/// `[A-Za-z_][A-Za-z0-9_]*` plus the `extra` characters after the first.
fn is_identifier(s: &str, extra: &[char]) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || extra.contains(&c))
}

/// A checked handler module name (`myteam.handlers.python`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ModuleName(String);

impl ModuleName {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: &str| NameError::ModuleName {
            name: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.len() > MODULE_MAX {
            return Err(refuse(&format!("longer than {MODULE_MAX} characters")));
        }
        if text.is_empty() || !text.split('.').all(|seg| is_identifier(seg, &['-'])) {
            return Err(refuse(
                "a module is a dotted path of identifiers (e.g. myteam.handlers.python)",
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// Is this name in the namespace reserved for built-in handlers?
    pub fn is_reserved(&self) -> bool {
        self.0.starts_with(BUILTIN_MODULE_PREFIX)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A checked handler class name (`PythonPackageHandler`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassName(String);

impl ClassName {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        if text.len() > HANDLER_REF_MAX || !is_identifier(text, &[]) {
            return Err(NameError::ClassName {
                name: text.to_owned(),
                reason: "a class is an identifier (e.g. PythonPackageHandler)".to_owned(),
            });
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `module:Class` — the component module and the class it exports.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HandlerRef {
    pub module: ModuleName,
    pub class: ClassName,
}

impl HandlerRef {
    /// Accept `module:Class`.
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let Some((module, class)) = text.split_once(':') else {
            return Err(NameError::HandlerRef {
                text: text.to_owned(),
                reason: "not in module:Class form (e.g. \
                         cleveragents.resource.handlers.git:GitCheckoutHandler)"
                    .to_owned(),
            });
        };
        Self::new(ModuleName::parse(module)?, ClassName::parse(class)?)
    }

    /// The reference made of checked parts, if it fits the `handler` column.
    pub fn new(module: ModuleName, class: ClassName) -> Result<Self, NameError> {
        if module.0.len() + class.0.len() + 1 > HANDLER_REF_MAX {
            return Err(NameError::HandlerRef {
                text: format!("{}:{}", module.0, class.0),
                reason: format!("longer than {HANDLER_REF_MAX} characters"),
            });
        }
        Ok(Self { module, class })
    }
}

macro_rules! display_and_serialize {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
        impl FromStr for $t {
            type Err = NameError;
            fn from_str(s: &str) -> Result<Self, NameError> {
                Self::parse(s)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
        string_schema!($t);
    )*};
}
display_and_serialize!(ModuleName, ClassName);

impl fmt::Display for HandlerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.module, self.class)
    }
}

impl Serialize for HandlerRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
string_schema!(HandlerRef);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handler_ref_splits_into_a_checked_module_and_class() {
        let h = HandlerRef::parse("myteam.python:PythonPackageHandler").unwrap();
        assert_eq!(h.module.as_str(), "myteam.python");
        assert_eq!(h.class.as_str(), "PythonPackageHandler");
        assert_eq!(h.to_string(), "myteam.python:PythonPackageHandler");
    }

    #[test]
    fn malformed_handler_refs_are_refused_naming_the_bad_part() {
        let no_colon = HandlerRef::parse("myteam.python").unwrap_err();
        assert!(no_colon.to_string().contains("module:Class"), "{no_colon}");
        let module = HandlerRef::parse("my team:X").unwrap_err();
        assert!(matches!(module, NameError::ModuleName { .. }), "{module}");
        let class = HandlerRef::parse("m:1X").unwrap_err();
        assert!(matches!(class, NameError::ClassName { .. }), "{class}");
        let long = format!("{}:{}", "m".repeat(200), "C".repeat(60));
        assert!(HandlerRef::parse(&long).is_err());
    }

    #[test]
    fn module_names_are_dotted_identifiers_and_the_builtin_prefix_is_reserved() {
        assert!(ModuleName::parse("a.b-c.d_e").is_ok());
        for bad in ["", "a..b", ".a", "a.", "1a", "a b", "a/b"] {
            assert!(ModuleName::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(
            ModuleName::parse("cleveragents.resource.handlers.git")
                .unwrap()
                .is_reserved()
        );
        assert!(!ModuleName::parse("myteam.git").unwrap().is_reserved());
    }
}
