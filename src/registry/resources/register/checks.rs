//! What a registration is refused for before any handler runs: a type
//! whose resources are not added by hand (a sandbox strategy the resource
//! cannot use, or a location that does not fit it, is the sandboxes'
//! rule: `sandboxes::strategy`).

use crate::model::{ResolvedType, ResourceKind, TypeName};
use crate::registry::ResourcesError;
use crate::registry::{NotAddable, RegistryError};

/// May resources of `ty` be registered by hand?
pub(super) fn check_addable(ty: &ResolvedType) -> Result<(), RegistryError> {
    if ty.is_user_addable() {
        return Ok(());
    }
    let parents: Vec<TypeName> = ty.parent_type_names().cloned().collect();
    let reason = match (ty.kind(), parents.is_empty()) {
        (ResourceKind::Virtual, _) => NotAddable::Virtual,
        (_, false) => NotAddable::DiscoveredBelow(parents),
        (_, true) => NotAddable::DiscoveredOnly,
    };
    Err(RegistryError::Resources(ResourcesError::NotUserAddable {
        type_name: ty.name.clone(),
        reason,
    }))
}
