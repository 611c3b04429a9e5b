//! Registration arguments and properties as a map: the lookups every
//! handler needs, with the `invalid-args` refusal spelled once.

use crate::{HandlerError, Property};
use std::collections::BTreeMap;

/// Key/value pairs (arguments or properties) by key. A repeated key keeps
/// its last value, as the host never sends duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Props(BTreeMap<String, String>);

impl Props {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// The value of `key`, or `invalid-args` naming the missing key.
    pub fn require(&self, key: &str) -> Result<&str, HandlerError> {
        self.get(key)
            .ok_or_else(|| HandlerError::InvalidArgs(format!("missing argument `{key}`")))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<Property>> for Props {
    fn from(list: Vec<Property>) -> Self {
        Self(list.into_iter().map(|p| (p.key, p.value)).collect())
    }
}

impl From<Props> for Vec<Property> {
    fn from(props: Props) -> Self {
        props
            .0
            .into_iter()
            .map(|(key, value)| Property { key, value })
            .collect()
    }
}
