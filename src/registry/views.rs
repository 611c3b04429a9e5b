//! What type operations hand out: plain, serializable views whose field
//! names are the spec's (`-o json` / `-o yaml` is a contract).

use crate::model::{
    AutoDiscovery, Equivalence, HandlerRef, ResolvedType, ResourceKind, SandboxStrategy,
    TypeArgument, TypeCapabilities, TypeName,
};
use crate::store::TypeRow;
use serde::Serialize;

/// A type as it is in effect (after inheritance).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeView {
    pub name: TypeName,
    pub description: String,
    pub resource_kind: ResourceKind,
    pub sandbox_strategy: SandboxStrategy,
    pub user_addable: bool,
    pub built_in: bool,
    pub cli_args: Vec<TypeArgument>,
    pub parent_types: Vec<TypeName>,
    pub child_types: Vec<TypeName>,
    pub handler: Option<HandlerRef>,
    pub capabilities: TypeCapabilities,
    pub auto_discovery: Option<AutoDiscovery>,
    pub equivalence: Option<Equivalence>,
    pub inherits: Option<TypeName>,
    /// Where the type came from: `builtin` or the file it was added from.
    pub source: String,
    pub created_at: String,
    pub updated_at: String,
}

impl TypeView {
    pub fn new(t: &ResolvedType, row: Option<&TypeRow>) -> Self {
        Self {
            name: t.name.clone(),
            description: t.description.value.clone(),
            resource_kind: t.resource_kind.value,
            sandbox_strategy: t.sandbox_strategy.value,
            user_addable: t.user_addable.value,
            built_in: t.built_in,
            cli_args: t.cli_args.iter().map(|a| a.value.clone()).collect(),
            parent_types: t.parent_type_names().cloned().collect(),
            child_types: t.child_type_names().cloned().collect(),
            handler: t.handler.as_ref().map(|h| h.value.clone()),
            capabilities: t.capabilities.values(),
            auto_discovery: t.auto_discovery.as_ref().map(|a| a.value.clone()),
            equivalence: t.equivalence.as_ref().map(|e| e.value.clone()),
            inherits: t.inherits().cloned(),
            source: row.map(|r| r.source.clone()).unwrap_or_default(),
            created_at: row.map(|r| r.created_at.clone()).unwrap_or_default(),
            updated_at: row.map(|r| r.updated_at.clone()).unwrap_or_default(),
        }
    }
}
