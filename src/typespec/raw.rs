//! The serde mirror of a type file: the **shape** a type spec may have,
//! and nothing else.
//!
//! Every struct denies unknown fields, so a typo (`sandbox_stratgy`,
//! `requried`) is refused with the list of keys that exist instead of
//! being ignored. Enum fields use the model's enums, whose serde names are
//! the spec's values, so a bad value is refused with the allowed ones.
//! Names stay text here: which form a name must have depends on where the
//! file came from (custom file or built-in catalogue), and `validate`
//! checks them with the field path in hand.
//!
//! Field order matters only for messages: serde lists the allowed keys in
//! declaration order, so the spec's `ResourceTypeSpec` table order comes
//! first and the inheritance keys follow.

use crate::model::{ArgType, ResourceKind, SandboxStrategy};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::fmt;

/// One type spec as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTypeSpec {
    pub name: String,
    pub description: Option<String>,
    pub resource_kind: Option<ResourceKind>,
    pub sandbox_strategy: Option<SandboxStrategy>,
    pub user_addable: Option<bool>,
    pub built_in: Option<bool>,
    pub cli_args: Option<Vec<RawArg>>,
    pub parent_types: Option<Vec<String>>,
    pub child_types: Option<Vec<String>>,
    pub handler: Option<RawHandler>,
    pub capabilities: Option<RawCapabilities>,
    pub auto_discovery: Option<RawAutoDiscovery>,
    pub equivalence: Option<RawEquivalence>,
    pub inherits: Option<String>,
    pub cli_args_replace: Option<bool>,
    pub parent_types_replace: Option<bool>,
    pub child_types_replace: Option<bool>,
}

/// One `cli_args` item. `default` stays a YAML value until `validate`
/// checks it against `type`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArg {
    pub name: String,
    #[serde(rename = "type")]
    pub arg_type: ArgType,
    pub required: Option<bool>,
    pub description: Option<String>,
    pub default: Option<serde_yaml::Value>,
    pub choices: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCapabilities {
    pub read: Option<bool>,
    pub write: Option<bool>,
    pub sandbox: Option<bool>,
    pub checkpoint: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAutoDiscovery {
    pub enabled: bool,
    pub rules: Option<Vec<RawRule>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    #[serde(rename = "type")]
    pub type_name: String,
    pub pattern: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEquivalence {
    pub links: Vec<String>,
    #[serde(rename = "match")]
    pub match_on: Vec<String>,
    #[serde(default, rename = "where")]
    pub filter: std::collections::BTreeMap<String, Vec<String>>,
}

/// `handler`, in either form the spec shows: `"module:Class"` or a
/// mapping `{module, class}`.
///
/// Written by hand rather than as an untagged enum: an untagged enum
/// answers every mistake with "did not match any variant", while this
/// visitor names the unknown key or the missing one, and serde_yaml adds
/// the path and the line.
#[derive(Debug)]
pub(super) enum RawHandler {
    Text(String),
    Parts { module: String, class: String },
}

const HANDLER_KEYS: &[&str] = &["module", "class"];

impl<'de> Deserialize<'de> for RawHandler {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(HandlerVisitor)
    }
}

struct HandlerVisitor;

impl<'de> Visitor<'de> for HandlerVisitor {
    type Value = RawHandler;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a handler as \"module:Class\" or as a mapping {module, class}")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawHandler, E> {
        Ok(RawHandler::Text(v.to_owned()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawHandler, A::Error> {
        let (mut module, mut class) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "module" => &mut module,
                "class" => &mut class,
                other => return Err(de::Error::unknown_field(other, HANDLER_KEYS)),
            };
            if slot.is_some() {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            *slot = Some(map.next_value::<String>()?);
        }
        Ok(RawHandler::Parts {
            module: module.ok_or_else(|| de::Error::missing_field("module"))?,
            class: class.ok_or_else(|| de::Error::missing_field("class"))?,
        })
    }
}
