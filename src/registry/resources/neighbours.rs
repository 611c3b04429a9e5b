//! `Registry::labels`: what people read for resources named by id — a
//! resource's parents, children and equivalents in `resource show` —
//! fetched in one read however many.

use crate::model::{ResourceId, ResourceName, TypeName, resource_label};
use serde::Serialize;

/// A resource as a line of text names it: `name (type)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceLabel {
    pub resource_id: ResourceId,
    pub name: Option<ResourceName>,
    pub resource_type_name: TypeName,
}

impl ResourceLabel {
    /// `local/api-repo/git (git)`; the id for a resource without a name.
    pub fn text(&self) -> String {
        format!(
            "{} ({})",
            resource_label(self.name.as_ref(), self.resource_id),
            self.resource_type_name
        )
    }
}
