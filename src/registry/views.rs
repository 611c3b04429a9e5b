//! What type operations hand out: plain, serializable views whose field
//! names are the spec's (`-o json` / `-o yaml` is a contract).

use crate::model::{
    AutoDiscovery, Equivalence, HandlerRef, ResolvedType, ResourceKind, SandboxStrategy, Sourced,
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
            capabilities: t.capabilities,
            auto_discovery: t.auto_discovery.as_ref().map(|a| a.value.clone()),
            equivalence: t.equivalence.as_ref().map(|e| e.value.clone()),
            inherits: t.inherits().cloned(),
            source: row.map(|r| r.source.clone()).unwrap_or_default(),
            created_at: row.map(|r| r.created_at.clone()).unwrap_or_default(),
            updated_at: row.map(|r| r.updated_at.clone()).unwrap_or_default(),
        }
    }
}

/// A type with where each effective value came from (`from`: the type
/// that declared it, or `null` for a default).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExplainView {
    pub name: TypeName,
    /// The inheritance chain, the type first and the root last.
    pub chain: Vec<TypeName>,
    pub built_in: bool,
    pub description: Sourced<String>,
    pub resource_kind: Sourced<ResourceKind>,
    pub sandbox_strategy: Sourced<SandboxStrategy>,
    pub user_addable: Sourced<bool>,
    pub cli_args: Vec<Sourced<TypeArgument>>,
    pub parent_types: Vec<Sourced<TypeName>>,
    pub child_types: Vec<Sourced<TypeName>>,
    pub handler: Option<Sourced<HandlerRef>>,
    pub capabilities: CapabilityOrigins,
    pub auto_discovery: Option<Sourced<AutoDiscovery>>,
    pub equivalence: Option<Sourced<Equivalence>>,
}

/// Each capability flag with its origin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapabilityOrigins {
    pub read: Sourced<bool>,
    pub write: Sourced<bool>,
    pub sandbox: Sourced<bool>,
    pub checkpoint: Sourced<bool>,
}

impl ExplainView {
    pub fn new(t: &ResolvedType) -> Self {
        let cap = |value: bool, i: usize| Sourced {
            value,
            from: t.capability_origins[i].clone(),
        };
        Self {
            name: t.name.clone(),
            chain: t.chain.clone(),
            built_in: t.built_in,
            description: t.description.clone(),
            resource_kind: t.resource_kind.clone(),
            sandbox_strategy: t.sandbox_strategy.clone(),
            user_addable: t.user_addable.clone(),
            cli_args: t.cli_args.clone(),
            parent_types: t.parent_types.clone(),
            child_types: t.child_types.clone(),
            handler: t.handler.clone(),
            capabilities: CapabilityOrigins {
                read: cap(t.capabilities.read, 0),
                write: cap(t.capabilities.write, 1),
                sandbox: cap(t.capabilities.sandbox, 2),
                checkpoint: cap(t.capabilities.checkpoint, 3),
            },
            auto_discovery: t.auto_discovery.clone(),
            equivalence: t.equivalence.clone(),
        }
    }
}
