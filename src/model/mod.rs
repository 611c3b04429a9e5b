//! Plain data of the registry: names, ids, enums, type specs, resolved
//! types and resources. No I/O lives here.
//!
//! **Building a value is the check.** A [`TypeName`], [`ResourceName`] or
//! [`ResourceId`] exists only after its `parse` accepted the text, so code
//! past the boundary where text came in never re-validates a name. The
//! aggregates ([`TypeSpec`], [`ResolvedType`], [`Resource`]) are built by
//! the modules that own their rules (`spec`, `store`, `registry`) from
//! these checked parts.

/// The JSON Schema of a type serialised as its text (a name, an id, a
/// handler reference): a string. Defined before the modules that use it.
macro_rules! string_schema {
    ($t:ty) => {
        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $t {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($t).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string"})
            }
        }
    };
}

mod actor;
mod handler;
mod names;
mod resource;
mod states;
mod types;

pub use actor::{Actor, Face};
pub use handler::{BUILTIN_MODULE_PREFIX, ClassName, HandlerRef, ModuleName};
pub use names::{
    BUILTIN_NAMESPACE, NameError, ResourceId, ResourceKey, ResourceName, SandboxId, TypeName,
    resource_label,
};
pub(crate) use names::{escape_name_part, kebab_problem};
pub use resource::{DESCRIPTION_MAX, Link, PropertyMap, Resource, ResourceCapabilities};
pub use states::{ContainerState, Priority, SandboxState, SettingScope};
pub use types::{
    ArgType, AutoDiscovery, DiscoveryRule, Equivalence, ReplaceFlags, ResolvedType, ResourceKind,
    SandboxStrategy, Sourced, SourcedCapabilities, TypeArgument, TypeCapabilities,
    TypeCapabilitiesDecl, TypeSpec,
};
