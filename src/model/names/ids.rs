//! The ids: a resource's and a sandbox's, each a ULID kept as itself and
//! written as its 26-character text.

use super::NameError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

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

text_impls!(ResourceId);
text_impls!(SandboxId);
