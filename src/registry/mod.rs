//! The registry service: the spec's `ResourceRegistryService` and the
//! single write path. Type operations ([`types`]), resource operations
//! ([`resources`]) and DAG operations ([`links`]) all go through one
//! [`Registry`], which owns the store connection and the effects (clock,
//! id source) it was handed.
//!
//! **Check, then write, in one transaction.** Every operation that changes
//! the registry loads what it needs, applies the rules (`spec` for types,
//! `dag` for links, [`args`] for registration arguments) and writes inside
//! one `BEGIN IMMEDIATE` transaction, so a refusal — or any failure half
//! way — leaves the database exactly as it was.

pub mod args;
mod catalogue;
mod discovery;
mod error;
mod links;
mod plugins;
mod resources;
mod types;
mod views;

pub use discovery::{DiscoveryReport, Inspection};
pub use error::RegistryError;
pub use links::TreeView;
pub use plugins::{ClassView, PluginView};
pub use resources::{NewResource, RemovalReport, ResourceFilter};
pub use views::TypeView;

use crate::effects::{Clock, IdSource, SystemClock, UlidSource, iso8601};
use crate::home::Home;
use crate::plugin::{Limits, PluginFiles, PluginRuntime};
use crate::store::Store;
use catalogue::Catalogue;
use plugins::Plugins;

/// The registry over one store.
#[derive(Debug)]
pub struct Registry {
    store: Store,
    home: Option<Home>,
    clock: Box<dyn Clock>,
    ids: Box<dyn IdSource>,
    /// The handler runtime and plugin files; only with a home. Creating it
    /// is cheap: the WebAssembly engine starts on the first handler call,
    /// so `list`, `show` and `tree` never pay for it.
    plugins: Option<Plugins>,
}

/// What a registry is handed: its effects (defaults: the system clock,
/// monotonic ULIDs) and the limits every handler call runs under.
#[derive(Debug)]
pub struct Options {
    pub clock: Box<dyn Clock>,
    pub ids: Box<dyn IdSource>,
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            clock: Box::new(SystemClock),
            ids: Box::new(UlidSource::default()),
            limits: Limits::default(),
        }
    }
}

impl Registry {
    /// Open the registry under `home` (created if missing), bring its
    /// schema up to date and bootstrap the built-in types.
    pub fn open(home: &Home) -> Result<Self, RegistryError> {
        Self::open_with(home, Options::default())
    }

    pub fn open_with(home: &Home, options: Options) -> Result<Self, RegistryError> {
        std::fs::create_dir_all(home.root()).map_err(|source| RegistryError::Home {
            path: home.root().to_owned(),
            source,
        })?;
        let store = Store::open(&home.database())?;
        let plugins = Plugins {
            runtime: PluginRuntime::new(home.compile_cache(), options.limits.clone()),
            files: PluginFiles::new(home.plugins()),
        };
        Self::start(store, Some(home.clone()), Some(plugins), options)
    }

    /// A private registry in memory (tests, short-lived embedders). It has
    /// no plugin store, so types with plugin handlers cannot be used.
    pub fn open_in_memory() -> Result<Self, RegistryError> {
        Self::start(Store::open_in_memory()?, None, None, Options::default())
    }

    fn start(
        store: Store,
        home: Option<Home>,
        plugins: Option<Plugins>,
        options: Options,
    ) -> Result<Self, RegistryError> {
        let mut registry = Self {
            store,
            home,
            clock: options.clock,
            ids: options.ids,
            plugins,
        };
        registry.bootstrap_builtin_types()?;
        Ok(registry)
    }

    /// The home this registry lives in (none for an in-memory registry).
    pub fn home(&self) -> Option<&Home> {
        self.home.as_ref()
    }

    fn now(&self) -> String {
        iso8601(self.clock.now())
    }

    fn catalogue(&self) -> Result<Catalogue, RegistryError> {
        self.store.read(Catalogue::load)
    }
}

/// Type names as `a, b, c`, for messages.
fn join_names(names: &[crate::model::TypeName]) -> String {
    names
        .iter()
        .map(crate::model::TypeName::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
