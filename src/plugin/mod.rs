//! The WASM handler host: the only place that touches wasmtime.
//!
//! A resource type names its handler `module:Class`; the module is a
//! WebAssembly component implementing the contract in `wit/v<version>/`
//! (package `cleveragents:resource@<version>`; `contract` lists the
//! versions served). This module owns everything between the registry and
//! such a component:
//!
//! * [`PluginRuntime`]: lazily created engines (one per [`Compiler`]: Winch
//!   for big components, Cranelift for the rest), a compile cache on disk
//!   keyed by (wasm sha256, engine compatibility), an `InstancePre` per
//!   component, and per-call sandboxes with limits ([`Limits`]);
//! * [`PluginFiles`]: the content-addressed plugin store, verified on read;
//! * [`builtin_component`]: the components embedded in the binary;
//! * [`carried_types`]: the type files a component carries (`carried`);
//! * plain mirrors of the WIT types ([`PluginInfo`], [`ResourceView`],
//!   [`Discovered`], [`HandlerError`], [`Operation`]) and the two error
//!   layers ([`PluginError`], [`CallError`]), so no wasmtime or bindgen
//!   type leaves this module.
//!
//! Handler output (the `log` import, captured stdout/stderr) goes to the
//! `log` crate with target `plugin`, labelled `module:Class operation`.

mod answer;
mod builtin;
mod cache;
mod call;
mod capture;
mod carried;
mod contract;
mod engine;
mod engines;
mod error;
mod files;
mod fs_guard;
#[cfg(any(test, feature = "test-support"))]
pub mod fuzzing;
mod git;
mod guest_error;
mod limits;
mod location;
mod runtime;
mod sandbox;
mod seal;
mod trust;
mod types;
mod version;

pub use answer::AnswerRefusal;
pub use builtin::{builtin_component, builtin_components};
pub use cache::LoadOrigin;
pub use carried::{CarriedTypesError, TYPES_SECTION, carried_types, carry_types};
pub use engine::Compiler;
pub use error::{CallError, CallErrorKind, PluginError};
pub use files::{PluginFiles, StoredFile, read_verified};
pub use git::GitSnapshot;
pub use limits::{AnswerBounds, DEFAULT_MAX_CHILDREN, Limits};
pub use location::{PlacementRefusal, ViewRefusal, dangling_symlink};
pub use runtime::{Accepted, ComponentSource, LoadedModule, PluginRuntime};
pub use types::{
    ClassInfo, Discovered, Grant, HandlerError, Inspected, Operation, PluginInfo, ResourceView,
};
pub use version::{CONTRACT_PACKAGE, CONTRACT_VERSION, ContractVersion, served_exports};
