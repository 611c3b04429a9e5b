//! Resource instances and the links between them, as the registry hands
//! them out. Field names follow the spec's `Resource` table, which is also
//! the `-o json` / `-o yaml` contract.

use super::names::{ResourceId, ResourceName, TypeName, resource_label};
use super::types::{ResourceKind, SandboxStrategy, TypeCapabilities};
use serde::Serialize;
use std::collections::BTreeMap;

/// Type-specific key-value properties (typed values from registration
/// arguments, text from handlers).
pub type PropertyMap = BTreeMap<String, serde_json::Value>;

/// The longest description a resource keeps, in bytes (`resource add
/// --description`, and an imported document's): "one line for people",
/// with room to spare.
pub const DESCRIPTION_MAX: usize = 64 * 1024;

/// What may be done with a resource, derived from its type's capabilities,
/// its sandbox strategy and its `read_only` flag — never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResourceCapabilities {
    pub readable: bool,
    pub writable: bool,
    pub sandboxable: bool,
    pub checkpointable: bool,
}

impl ResourceCapabilities {
    pub fn derive(type_caps: TypeCapabilities, strategy: SandboxStrategy, read_only: bool) -> Self {
        Self {
            readable: type_caps.read,
            writable: type_caps.write && !read_only,
            sandboxable: type_caps.sandbox && strategy != SandboxStrategy::None,
            // Nothing to roll back to without isolation, and nothing to
            // change in a read-only resource.
            checkpointable: type_caps.checkpoint && strategy != SandboxStrategy::None && !read_only,
        }
    }

    /// Each flag with its spec name, in the spec's order.
    pub fn named(self) -> [(&'static str, bool); 4] {
        [
            ("readable", self.readable),
            ("writable", self.writable),
            ("sandboxable", self.sandboxable),
            ("checkpointable", self.checkpointable),
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

/// A registered resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Resource {
    pub resource_id: ResourceId,
    pub name: Option<ResourceName>,
    pub resource_type_name: TypeName,
    /// `classification` in the spec's field list and the JSON view.
    #[serde(rename = "classification")]
    pub kind: ResourceKind,
    pub description: Option<String>,
    pub location: Option<String>,
    /// The per-resource override; `None` means the type's strategy applies.
    pub sandbox_strategy: Option<SandboxStrategy>,
    pub content_hash: Option<String>,
    pub parents: Vec<ResourceId>,
    pub children: Vec<ResourceId>,
    pub properties: PropertyMap,
    pub capabilities: ResourceCapabilities,
    pub created_at: String,
    pub updated_at: String,
    pub auto_discovered: bool,
    pub read_only: bool,
    /// Why the last refresh could not bring it up to date (absent when
    /// it is current): its location vanished, `validate` refused it, or
    /// its handler failed. `agents resource refresh` tries again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    /// The resources that are the same thing as this one (the other
    /// members of its virtual identities), as `resource show` gives them;
    /// empty in lists.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub equivalents: Vec<ResourceId>,
    /// Who registered it (or ran the registration that discovered it), and
    /// through which face, as `resource show` gives it (absent in lists,
    /// which keep the spec's fields, and for a row stored before
    /// provenance was recorded: schema 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_by: Option<crate::model::Actor>,
}

impl Resource {
    /// The name if it has one, else the id: how messages refer to it.
    pub fn label(&self) -> String {
        resource_label(self.name.as_ref(), self.resource_id)
    }
}

/// A parent → child edge of the DAG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Link {
    pub parent_id: ResourceId,
    pub child_id: ResourceId,
    pub auto_discovered: bool,
    pub created_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: TypeCapabilities = TypeCapabilities {
        read: true,
        write: true,
        sandbox: true,
        checkpoint: true,
    };

    #[test]
    fn nothing_read_only_or_unisolated_is_checkpointable() {
        let caps = |strategy, read_only| ResourceCapabilities::derive(ALL, strategy, read_only);
        assert!(caps(SandboxStrategy::CopyOnWrite, false).checkpointable);
        assert!(!caps(SandboxStrategy::CopyOnWrite, true).checkpointable);
        assert!(!caps(SandboxStrategy::None, false).checkpointable);
        assert!(!caps(SandboxStrategy::None, false).sandboxable);
        assert!(!caps(SandboxStrategy::None, true).writable);
    }
}
