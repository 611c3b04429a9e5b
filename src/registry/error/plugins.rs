//! How a plugin-store or handler operation is refused: a component
//! refused or missing, a module not there, already there, reserved or in
//! use, a replacement dropping a class a type uses, a type naming a
//! handler that does not exist, a resource without a handler, a registry
//! without a plugin store. The rooms `plugin_store`, `plugin_check` and
//! `handlers` produce these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::NoHandlerReason;
use super::join;
use crate::model::{ClassName, HandlerRef, ModuleName, TypeName};
use crate::plugin::PluginError;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum PluginsError {
    #[error("cannot add plugin {}: {source}", path.display())]
    PluginRefused {
        path: PathBuf,
        #[source]
        source: PluginError,
    },
    /// A plugin's component is neither in this machine's store nor in the
    /// registry (a registry written before components were kept in it).
    #[error(
        "plugin {module}'s component ({sha256}) is not in this machine's plugin store nor in \
         the registry; add it again on a machine that has it (`agents plugin add FILE`)"
    )]
    ComponentMissing { module: ModuleName, sha256: String },
    /// A component's carried type files cannot be read.
    #[error("cannot add plugin {module}: {source}")]
    CarriedTypes {
        module: ModuleName,
        #[source]
        source: crate::plugin::CarriedTypesError,
    },
    #[error(
        "cannot add plugin {module}: it carries type {type_name}, whose handler {handler} is \
         not one of its own classes; a plugin carries only the types of its own handler \
         (add it under its own module name, or register the type yourself)"
    )]
    CarriedForeignHandler {
        module: ModuleName,
        type_name: TypeName,
        handler: HandlerRef,
    },
    #[error("cannot add plugin {module}: it carries type {type_name} twice")]
    CarriedTwice {
        module: ModuleName,
        type_name: TypeName,
    },
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
}
