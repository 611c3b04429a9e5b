//! `Registry::labels`: what people read for resources named by id — a
//! resource's parents, children and equivalents in `resource show` —
//! fetched in one read however many.

use crate::model::{ResourceId, ResourceName, TypeName, resource_label};
use crate::registry::{Registry, RegistryError};
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

/// The work of [`Registry::labels`].
pub(crate) fn labels(
    reg: &Registry,
    ids: &[ResourceId],
) -> Result<Vec<ResourceLabel>, RegistryError> {
    reg.store.read(|r| {
        Ok(r.resources_by_ids(ids)?
            .into_iter()
            .map(|row| ResourceLabel {
                resource_id: row.id,
                name: row.name,
                resource_type_name: row.type_name,
            })
            .collect())
    })
}
