//! Every way a registry operation is refused or fails, each its own
//! variant with the fields an embedder matches on (type, resource,
//! module, class), and each worded for the person who asked: what was
//! refused, why, and what to do.

use crate::dag::LinkTypeRefusal;
use crate::model::{
    ClassName, HandlerRef, ModuleName, NameError, ResourceId, ResourceKey, ResourceKind,
    ResourceName, SandboxId, SandboxStrategy, TypeName,
};
use crate::plugin::{CallError, PluginError};
use crate::store::StoreError;
use crate::typespec::{InheritanceError, SpecError};
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

mod reasons;
use reasons::join;
pub use reasons::{ChildRefusal, NoHandlerReason, NotAddable, SandboxRefusal, StrategyRefusal};

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
    #[error(transparent)]
    HomeDir(#[from] crate::home::HomeError),
    #[error("cannot create the home directory {path}: {source}")]
    Home {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Input(#[from] crate::user_files::UserFileError),
    #[error("cannot read {} {}: {source}", what, path.display())]
    ReadFile {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    // ---- types ----
    #[error("no resource type {name}{}", suggest(.suggestions))]
    TypeNotFound {
        name: String,
        suggestions: Vec<TypeName>,
    },
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
        field: String,
        missing: TypeName,
    },
    #[error(
        "cannot remove type {name}: {count} resource(s) of this type are registered; remove \
         them first (agents resource list --type {name})"
    )]
    TypeHasResources { name: TypeName, count: i64 },
    #[error(
        "cannot remove type {name}: {} name it in their parent/child types, discovery rules or \
         equivalence links; change or remove those first",
        join(.by)
    )]
    TypeReferenced { name: TypeName, by: Vec<TypeName> },
    #[error(
        "cannot replace type {name}: it would change the kind of {type_name} from {from} to \
         {to}, and {count} resource(s) of that type exist; the registered type was left as it was"
    )]
    ReplaceChangesKind {
        name: TypeName,
        type_name: TypeName,
        from: ResourceKind,
        to: ResourceKind,
        count: i64,
    },
    #[error(
        "cannot replace type {name}: it would make {} required for {type_name}, and {count} \
         resource(s) of that type were registered without it; the registered type was left as \
         it was",
        .flags.iter().map(|f| format!("--{f}")).collect::<Vec<_>>().join(", ")
    )]
    ReplaceAddsRequired {
        name: TypeName,
        type_name: TypeName,
        flags: Vec<String>,
        count: i64,
    },
    #[error(
        "cannot replace type {name}: the existing link {parent} ({}) → {child} ({}) would no \
         longer be allowed: {rule}; the registered type was left as it was",
        rule.parent_type, rule.child_type
    )]
    ReplaceBreaksLink {
        name: TypeName,
        parent: String,
        child: String,
        rule: Box<LinkTypeRefusal>,
    },
    #[error(
        "the types changed while {what} was being prepared (type {type_name} was replaced or \
         removed by another process); nothing was written — run the command again"
    )]
    TypesChanged { what: String, type_name: TypeName },

    // ---- resources ----
    #[error("no resource named or with id \"{key}\"; `agents resource list` shows what exists")]
    ResourceNotFound { key: ResourceKey },
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

    // ---- execution environments ----
    #[error(
        "{environment} is not an execution environment: a setting names a container-instance \
         (or a subtype, such as a devcontainer-instance) or host"
    )]
    NotAnEnvironment { environment: String },
    #[error(
        "plan name {} is not valid: 1 to 128 letters, digits, '-', '_' or '.'",
        crate::text::quote(name)
    )]
    BadPlanName { name: String },
    #[error(transparent)]
    Route(#[from] crate::routing::RouteError),
    #[error("cannot {operation} {resource}: {reason}")]
    ContainerRefused {
        resource: String,
        operation: &'static str,
        reason: String,
    },
    /// Activation of a devcontainer its person has not trusted (or whose
    /// configuration changed since).
    #[error("cannot {operation} {resource}: {}", state.explain(resource))]
    NotTrusted {
        resource: String,
        operation: &'static str,
        state: Box<super::TrustState>,
    },
    #[error("cannot {operation} {resource}: {source}")]
    ContainerFailed {
        resource: String,
        operation: &'static str,
        #[source]
        source: Box<crate::devcontainer::DevcontainerError>,
    },

    // ---- sandboxes ----
    #[error("no sandbox {id}; `agents sandbox list` shows what exists")]
    SandboxNotFound { id: SandboxId },
    #[error(
        "sandboxes live under a home directory; this registry has none (open it with \
         Registry::open)"
    )]
    SandboxNeedsHome,
    #[error("refusing to keep sandboxes in {}: {why}", path.display())]
    InsecureSandboxes { path: PathBuf, why: String },
    /// A sandbox's row names a path its files cannot be at: the paths the
    /// host acts on come from the home and the resource, never a row.
    #[error(
        "sandbox {sandbox}'s registry row names its {field} {}, but {rule}: {}; the row \
         was changed outside agents (by a teammate on the shared registry, or by hand), so \
         nothing was done. If the sandbox is yours, put the row back (UPDATE sandboxes SET \
         {field} = '{}' WHERE sandbox_id = '{sandbox}'), or ask whoever changed it",
        crate::text::quote(stored),
        crate::text::escape_line(expected),
        crate::text::escape_line(&expected.replace('\'', "''"))
    )]
    SandboxRowDisagrees {
        sandbox: SandboxId,
        field: &'static str,
        stored: String,
        expected: String,
        rule: &'static str,
    },
    #[error(
        "cannot {operation} {} {strategy} sandbox of {resource}: {reason}",
        if matches!(strategy, SandboxStrategy::Inherit | SandboxStrategy::Overlay) { "an" } else { "a" }
    )]
    SandboxRefused {
        operation: &'static str,
        resource: String,
        strategy: SandboxStrategy,
        reason: SandboxRefusal,
    },
    #[error(
        "sandbox {sandbox} is {state}, not active (a {state} sandbox was interrupted by a \
         crash); `agents sandbox destroy {sandbox}` removes what is left of it"
    )]
    SandboxNotActive {
        sandbox: SandboxId,
        state: crate::store::SandboxState,
    },
    #[error(
        "cannot {operation} sandbox {sandbox}: {holder} holds its session (`agents sandbox \
         shell`, or an agent runtime's open transaction); end that session (apply, discard or \
         quit) and try again"
    )]
    SandboxInSession {
        operation: &'static str,
        sandbox: SandboxId,
        holder: String,
    },
    #[error("sandbox {sandbox} ({strategy} of {resource}): {operation} failed: {source}")]
    SandboxFailed {
        sandbox: SandboxId,
        resource: String,
        strategy: SandboxStrategy,
        operation: &'static str,
        #[source]
        source: Box<crate::sandbox::SandboxError>,
    },
    #[error(
        "sandbox {sandbox} has no checkpoint {wanted}{}",
        if known.is_empty() { "; it has none yet (agents sandbox checkpoint ID)".to_owned() }
        else { format!("; it has {}", known.join(", ")) }
    )]
    CheckpointNotFound {
        sandbox: SandboxId,
        wanted: String,
        known: Vec<String>,
    },
    #[error("checkpoint label {} refused: {reason}", crate::text::quote(label))]
    BadCheckpointLabel { label: String, reason: String },
    #[error(
        "cannot remove {resource}: it (or what would go with it) has {} ({}); destroy \
         them first (agents sandbox destroy ID), or pass --force to destroy them",
        if sandboxes.len() == 1 { "a live sandbox".to_owned() } else { format!("{} live sandboxes", sandboxes.len()) },
        sandboxes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    HasSandboxes {
        resource: String,
        sandboxes: Vec<SandboxId>,
    },
    #[error(
        "cannot remove {resource}: it (or what would go with it) has containers the engine still \
         holds ({}); stop and remove them first — agents resource remove --force {resource} does",
        containers.join(", ")
    )]
    HasContainers {
        resource: String,
        /// `name (state, container id)` of each.
        containers: Vec<String>,
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
        "cannot link {parent} ({}) → {child} ({}): the types do not allow it — {rule}",
        rule.parent_type, rule.child_type
    )]
    IncompatibleLink {
        parent: String,
        child: String,
        rule: Box<LinkTypeRefusal>,
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
    /// The resource's location is a path on another machine (a shared
    /// registry): its handler, sandboxes and discovery run only there.
    #[error(
        "{resource} is at a location on {machine}, not on this machine; {action} runs only \
         there (listing, showing, trees and links work from any machine)"
    )]
    OtherMachine {
        resource: String,
        action: &'static str,
        machine: String,
    },
    /// A plugin's component is neither in this machine's store nor in the
    /// registry (a registry written before components were kept in it).
    #[error(
        "plugin {module}'s component ({sha256}) is not in this machine's plugin store nor in \
         the registry; add it again on a machine that has it (`agents plugin add FILE`)"
    )]
    ComponentMissing { module: ModuleName, sha256: String },
    #[error("cannot load handler module {module}: {source}")]
    PluginLoad {
        module: ModuleName,
        #[source]
        source: PluginError,
    },
    #[error("{0}")]
    Handler(#[from] Box<CallError>),
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
        "handler {handler} discovered {name} (child {index}), but a resource of that name \
         already exists (id {id}) and was not discovered below {parent}; the handler's names \
         collide with it — rename or remove {name}, then run discovery again"
    )]
    DiscoveredNameTaken {
        handler: HandlerRef,
        index: usize,
        parent: String,
        name: ResourceName,
        id: ResourceId,
    },
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
    #[error(
        "--file {file:?} is refused before any handler ran: it must be a relative path inside \
         {resource} (no `..`, not absolute)"
    )]
    InspectPathRefused { resource: String, file: String },
    #[error("no plugin module {module}; `agents plugin list` shows the added modules")]
    PluginNotFound { module: ModuleName },
    #[error(
        "plugin module {module} is already added (version {version}, sha256 {sha256}); pass \
         --replace to replace it"
    )]
    PluginExists {
        module: ModuleName,
        version: String,
        sha256: String,
    },
    #[error(
        "module names under {} are reserved for the built-in handlers, so {module} cannot be \
         added; pass --module NAME to add it under another name",
        crate::model::BUILTIN_MODULE_PREFIX
    )]
    ReservedModule { module: ModuleName },
    #[error(
        "cannot remove plugin {module}: types {} use it as their handler; remove them first \
         (agents resource type remove NAME)",
        join(.types)
    )]
    PluginInUse {
        module: ModuleName,
        types: Vec<TypeName>,
    },
    #[error(
        "cannot replace plugin {module}: type {type_name} uses class {class}, which the new \
         component does not export (it provides: {})",
        join(.provides)
    )]
    ReplacementDropsClass {
        module: ModuleName,
        type_name: TypeName,
        class: ClassName,
        provides: Vec<ClassName>,
    },
    #[error(
        "type {type_name} names handler {handler}: module {} is not in the plugin store \
         (added: {}); add it first with agents plugin add FILE.wasm",
        handler.module,
        if added.is_empty() { "none".to_owned() } else { join(added) }
    )]
    HandlerModuleMissing {
        type_name: TypeName,
        handler: HandlerRef,
        added: Vec<ModuleName>,
    },
    #[error(
        "type {type_name} names handler {handler}: {} is not a built-in handler module",
        handler.module
    )]
    NotABuiltinModule {
        type_name: TypeName,
        handler: HandlerRef,
    },
    #[error(
        "type {type_name} names handler {handler}: module {} has no class {}; it provides: {}",
        handler.module, handler.class, join(.provides)
    )]
    HandlerClassMissing {
        type_name: TypeName,
        handler: HandlerRef,
        provides: Vec<ClassName>,
    },
    #[error("resource {resource} of type {type_name} has no handler to {action} with ({reason})")]
    NoHandler {
        resource: String,
        type_name: TypeName,
        action: &'static str,
        reason: NoHandlerReason,
    },
    #[error("{0}: this registry has no home, so no plugin store; open it on a home directory")]
    NoPluginStore(&'static str),

    // ---- moving data (registry export / import) ----
    #[error(transparent)]
    Document(#[from] super::document::DocumentError),
    #[error(
        "the document conflicts with this registry in {} place(s); nothing was imported: {}",
        .0.len(),
        join_with(.0, "; ")
    )]
    ImportConflicts(Vec<super::ImportConflict>),
    #[error(
        "the document names plugins this home's plugin store does not hold: {}; export it \
         with --with-plugins, or add those components first (agents plugin add FILE); \
         nothing was imported",
        join(missing)
    )]
    ImportPluginsMissing { missing: Vec<super::MissingPlugin> },
    #[error(
        "the document's resources are of types neither this registry nor the document has: \
         {}; register them first; nothing was imported",
        join(missing)
    )]
    ImportTypesMissing { missing: Vec<super::MissingType> },
    #[error("cannot import {item}: {source}; nothing was imported")]
    ImportRefused {
        item: String,
        #[source]
        source: Box<RegistryError>,
    },
}

impl From<CallError> for RegistryError {
    fn from(e: CallError) -> Self {
        Self::Handler(Box::new(e))
    }
}

pub(super) fn join_with<T: fmt::Display>(items: &[T], separator: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

/// " (did you mean …?)" for near misses, or a pointer to the list.
fn suggest(close: &[TypeName]) -> String {
    if close.is_empty() {
        "; `agents resource type list` shows the registered types".to_owned()
    } else {
        format!(" (did you mean {}?)", join(close))
    }
}
