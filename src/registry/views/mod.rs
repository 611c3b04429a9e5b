//! What operations hand out for programs, and the one place that says
//! how the code's names map to the spec's field names (`-o json` /
//! `-o yaml` is a contract, stable across releases):
//!
//! | code | spec / JSON |
//! |---|---|
//! | `ResolvedType::kind`, `TypeSpec::kind` | `resource_kind` |
//! | `Resource::kind` | `classification` |
//! | `Resource::resource_id`, `resource_type_name`, … | the same names |
//!
//! A [`TypeView`] is a resolved type plus where it came from; it
//! serialises the type's *effective* values under the spec's
//! `ResourceTypeSpec` field names (`type explain` serialises the
//! [`ResolvedType`] itself, origins included).

use crate::model::ResolvedType;
use crate::store::{TypeOrigin, TypeRow};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::ops::Deref;
use std::sync::Arc;

/// A type as it is in effect (after inheritance), and its row's
/// bookkeeping. Derefs to the [`ResolvedType`].
#[derive(Debug, Clone, PartialEq)]
pub struct TypeView {
    resolved: Arc<ResolvedType>,
    /// Where the type came from, and when its row was written.
    pub origin: TypeOrigin,
}

impl TypeView {
    pub(super) fn new(resolved: Arc<ResolvedType>, row: &TypeRow) -> Self {
        Self {
            resolved,
            origin: row.origin.clone(),
        }
    }

    /// The resolved type, origins included.
    pub fn resolved(&self) -> &ResolvedType {
        &self.resolved
    }
}

impl Deref for TypeView {
    type Target = ResolvedType;
    fn deref(&self) -> &ResolvedType {
        &self.resolved
    }
}

impl Serialize for TypeView {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &self.resolved;
        let mut out = s.serialize_struct("TypeView", 17)?;
        out.serialize_field("name", &t.name)?;
        out.serialize_field("description", t.description())?;
        out.serialize_field("resource_kind", &t.kind())?;
        out.serialize_field("sandbox_strategy", &t.sandbox_strategy())?;
        out.serialize_field("user_addable", &t.is_user_addable())?;
        out.serialize_field("built_in", &t.built_in)?;
        out.serialize_field("cli_args", &t.args().collect::<Vec<_>>())?;
        out.serialize_field("parent_types", &t.parent_type_names().collect::<Vec<_>>())?;
        out.serialize_field("child_types", &t.child_type_names().collect::<Vec<_>>())?;
        out.serialize_field("handler", &t.handler_ref())?;
        out.serialize_field("capabilities", &t.type_capabilities())?;
        out.serialize_field("auto_discovery", &t.discovery())?;
        out.serialize_field("equivalence", &t.equivalence_config())?;
        out.serialize_field("inherits", &t.inherits())?;
        out.serialize_field("source", &self.origin.source)?;
        out.serialize_field("created_at", &self.origin.created_at)?;
        out.serialize_field("updated_at", &self.origin.updated_at)?;
        out.end()
    }
}

/// The schema of what [`TypeView`]'s `Serialize` writes, field for field
/// (hand-written because that is).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for TypeView {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TypeView".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        use crate::model::{
            AutoDiscovery, Equivalence, HandlerRef, ResourceKind, SandboxStrategy, TypeArgument,
            TypeCapabilities, TypeName,
        };
        let properties = serde_json::json!({
            "name": g.subschema_for::<TypeName>(),
            "description": g.subschema_for::<String>(),
            "resource_kind": g.subschema_for::<ResourceKind>(),
            "sandbox_strategy": g.subschema_for::<SandboxStrategy>(),
            "user_addable": g.subschema_for::<bool>(),
            "built_in": g.subschema_for::<bool>(),
            "cli_args": g.subschema_for::<Vec<TypeArgument>>(),
            "parent_types": g.subschema_for::<Vec<TypeName>>(),
            "child_types": g.subschema_for::<Vec<TypeName>>(),
            "handler": g.subschema_for::<Option<HandlerRef>>(),
            "capabilities": g.subschema_for::<TypeCapabilities>(),
            "auto_discovery": g.subschema_for::<Option<AutoDiscovery>>(),
            "equivalence": g.subschema_for::<Option<Equivalence>>(),
            "inherits": g.subschema_for::<Option<TypeName>>(),
            "source": g.subschema_for::<String>(),
            "created_at": g.subschema_for::<String>(),
            "updated_at": g.subschema_for::<String>(),
        });
        let required: Vec<&String> = properties
            .as_object()
            .into_iter()
            .flat_map(|p| p.keys())
            .collect();
        schemars::json_schema!({
            "type": "object",
            "properties": properties,
            "required": required,
        })
    }
}

#[cfg(all(test, feature = "schema"))]
mod tests {
    use crate::registry::Registry;

    #[test]
    fn a_type_view_s_schema_names_exactly_the_fields_it_writes() {
        let registry = Registry::open_in_memory().unwrap();
        let view = registry.show_type("git-checkout").unwrap();
        let written = serde_json::to_value(&view).unwrap();
        let written: Vec<&String> = written.as_object().unwrap().keys().collect();
        let schema = schemars::schema_for!(super::TypeView).to_value();
        let listed: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(written, listed);
        assert_eq!(schema["required"].as_array().unwrap().len(), listed.len());
    }
}
