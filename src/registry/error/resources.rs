//! How a resource operation is refused: registration (a name taken, a
//! type not addable by hand, a sandbox strategy that does not fit), a
//! lookup that finds nothing, a location gone, a watch that cannot start,
//! a discovered child refused, an inspect path outside the resource, a
//! discovery that found too much, what was explored changed by another
//! process meanwhile. The shared `lookup`, `sandboxes::strategy` and the
//! rooms `register`, `children`, `discovery`, `refresh`, `watch` and
//! `inspect` produce these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::{ChildRefusal, NotAddable, StrategyRefusal};
use crate::model::{HandlerRef, ResourceId, ResourceKey, ResourceName, TypeName};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ResourcesError {
    /// A chosen name that looks like an existing one.
    #[error(
        "resource name {} looks like the existing {} (the same letters to the eye, in \
         another script): a person could take one for the other; choose a name that reads \
         differently",
        crate::text::quote(name.as_str()),
        crate::text::quote(existing.as_str())
    )]
    ConfusableName {
        name: ResourceName,
        existing: ResourceName,
    },
    #[error("no resource named or with id \"{key}\"; `agents resource list` shows what exists")]
    ResourceNotFound { key: ResourceKey },
    #[error(
        "no resource{} is located at {}; `agents resource which {}` lists the resources at \
         or above it",
        .type_name.as_ref().map(|t| format!(" of type {t}")).unwrap_or_default(),
        crate::text::quote(.path),
        crate::text::quote(.path)
    )]
    NothingAt {
        path: String,
        type_name: Option<TypeName>,
    },
    #[error(
        "the location of {resource}, {}, no longer exists; restore it and refresh again, or remove the resource",
        crate::text::quote(location)
    )]
    LocationVanished { resource: String, location: String },
    #[error("cannot watch for changes: {0}")]
    Watch(String),
    #[error("type {type_name} is not user-addable: {reason}")]
    NotUserAddable {
        type_name: TypeName,
        reason: NotAddable,
    },
    #[error("a resource named {name} already exists (id {id}); pick another name")]
    DuplicateName { name: ResourceName, id: ResourceId },
    #[error(
        "sandbox strategy {strategy} does not fit resource {resource} of type {type_name}: \
         {reason}"
    )]
    BadSandboxStrategy {
        resource: String,
        type_name: TypeName,
        strategy: String,
        reason: StrategyRefusal,
    },
    #[error(
        "handler {handler} answered discover with a result the host refuses: child {index}: \
         {reason}"
    )]
    ChildRefused {
        handler: HandlerRef,
        index: usize,
        reason: Box<ChildRefusal>,
    },
    #[error(
        "handler {handler} answered discover with {child}, which the handler of its type \
         refuses: {source}"
    )]
    ChildDisowned {
        /// The component whose answer named the child.
        handler: Box<HandlerRef>,
        /// The child as answered (name, type, location).
        child: String,
        source: Box<crate::plugin::CallError>,
    },
    #[error(
        "handler {handler} discovered {name} (child {index}), but a resource of that name \
         already exists (id {id}) and was not discovered below {parent}; the handler's names \
         collide with it — rename or remove {name}, then run discovery again"
    )]
    DiscoveredNameTaken {
        handler: Box<HandlerRef>,
        index: usize,
        parent: String,
        name: ResourceName,
        id: ResourceId,
    },
    #[error(
        "--file {file:?} is refused before any handler ran: it must be a relative path inside \
         {resource} (no `..`, not absolute)"
    )]
    InspectPathRefused { resource: String, file: String },
    #[error(
        "the discovery found more than {limit} resources and was stopped; nothing was written — \
         discover fewer levels at a time (agents resource discover --depth N)"
    )]
    DiscoveryTooLarge { limit: usize },
    /// What a discovery or refresh explored was changed by another process
    /// before it could write, every time it tried.
    #[error(
        "the registry below {resource} changed while it was being explored, {attempts} times in \
         a row (other processes are writing there); nothing was written for it — run the \
         command again"
    )]
    ChangedMeanwhile { resource: String, attempts: usize },
    /// The caller stopped a discovery (its progress callback broke)
    /// before anything was written.
    #[error("the discovery below {resource} was cancelled; nothing was written")]
    Cancelled { resource: String },
    /// The caller stopped a refresh between two resources: what it
    /// refreshed stays refreshed (each resource is its own transaction).
    #[error(
        "the refresh was cancelled after {checked} resources ({changed} changed, written); the \
         rest were not checked"
    )]
    RefreshCancelled { checked: usize, changed: usize },
}
