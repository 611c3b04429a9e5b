//! Every way a registry operation is refused or fails, each worded for the
//! person who asked: what was refused, why, and what to do.

use crate::model::{NameError, ResourceKind, TypeName};
use crate::plugin::{CallError, PluginError};
use crate::spec::{InheritanceError, SpecError};
use crate::store::StoreError;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RegistryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Inheritance(#[from] InheritanceError),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Args(#[from] super::args::ArgError),
    #[error("cannot create the home directory {path}: {source}")]
    Home {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read type file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    // ---- types ----
    #[error("no resource type {name}{hint}")]
    TypeNotFound { name: String, hint: String },
    #[error("type {name} is already registered (from {source_name}); pass --replace to replace it")]
    TypeExists { name: TypeName, source_name: String },
    #[error("type {name} is built in and cannot be {action}")]
    BuiltinType {
        name: TypeName,
        action: &'static str,
    },
    #[error(
        "type {type_name} names {missing} in {field}, which is not a registered type; \
         register it first (agents resource type add …)"
    )]
    UnknownTypeReference {
        type_name: TypeName,
        field: &'static str,
        missing: TypeName,
    },
    #[error("cannot remove type {name}: {reason}")]
    TypeInUse { name: TypeName, reason: String },
    #[error("cannot replace type {name}: {reason}; the registered type was left as it was")]
    ReplaceBreaks { name: TypeName, reason: String },

    // ---- resources ----
    #[error("no resource named or with id {key:?}; `agents resource list` shows what exists")]
    ResourceNotFound { key: String },
    #[error("type {type_name} is not user-addable: {why}")]
    NotUserAddable { type_name: TypeName, why: String },
    #[error("a resource named {name} already exists (id {id}); pick another name")]
    DuplicateName { name: String, id: String },
    #[error("sandbox strategy {strategy} does not fit resource {label} of type {type_name}: {why}")]
    BadSandboxStrategy {
        label: String,
        type_name: TypeName,
        strategy: String,
        why: String,
    },
    #[error("{kind} type {type_name} {why}")]
    KindMismatch {
        kind: ResourceKind,
        type_name: TypeName,
        why: &'static str,
    },

    // ---- links ----
    #[error("cannot link {resource} to itself: a resource cannot be its own child")]
    SelfLink { resource: String },
    #[error("{parent} is already a parent of {child}")]
    DuplicateLink { parent: String, child: String },
    #[error(
        "cannot link {parent} → {child}: {child} already reaches {parent}, so the link would \
         close a cycle (the resource graph is a DAG)"
    )]
    Cycle { parent: String, child: String },
    #[error(
        "cannot link {parent} ({parent_type}) → {child} ({child_type}): the types do not allow \
         it — {rule}"
    )]
    IncompatibleLink {
        parent: String,
        parent_type: TypeName,
        child: String,
        child_type: TypeName,
        rule: String,
    },
    #[error("{parent} is not a parent of {child}; nothing to unlink")]
    NotLinked { parent: String, child: String },

    // ---- plugins and handlers ----
    #[error("cannot add plugin {}: {source}", path.display())]
    PluginRefused {
        path: PathBuf,
        #[source]
        source: PluginError,
    },
    #[error("cannot load handler module {module}: {source}")]
    PluginLoad {
        module: String,
        #[source]
        source: PluginError,
    },
    #[error("{0}")]
    Handler(#[from] Box<CallError>),
    #[error(
        "handler {module}:{class} answered {operation} with a result the host refuses: {reason}"
    )]
    HandlerResultRefused {
        module: String,
        class: String,
        operation: &'static str,
        reason: String,
    },
    #[error("no plugin module {module}; {hint}")]
    PluginNotFound { module: String, hint: String },
    #[error(
        "plugin module {module} is already added (version {version}, sha256 {sha256}); pass \
         --replace to replace it"
    )]
    PluginExists {
        module: String,
        version: String,
        sha256: String,
    },
    #[error("{0}")]
    PluginRule(String),
    #[error("type {type_name} names handler {handler}: {reason}")]
    BadHandler {
        type_name: TypeName,
        handler: String,
        reason: String,
    },
    #[error("resource {label} of type {type_name} has no handler to {action} with{why}")]
    NoHandler {
        label: String,
        type_name: TypeName,
        action: &'static str,
        why: String,
    },
    #[error("{0}: this registry has no home, so no plugin store; open it on a home directory")]
    NoPluginStore(&'static str),
}

impl From<CallError> for RegistryError {
    fn from(e: CallError) -> Self {
        Self::Handler(Box::new(e))
    }
}
