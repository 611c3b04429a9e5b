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
mod error;
mod links;
mod resources;
mod types;
mod views;

pub use error::RegistryError;
pub use links::TreeView;
pub use resources::{NewResource, RemovalReport, ResourceFilter};
pub use views::{ExplainView, TypeView};

use crate::effects::{Clock, IdSource, SystemClock, UlidSource, iso8601};
use crate::home::Home;
use crate::store::Store;
use catalogue::Catalogue;

/// The registry over one store.
#[derive(Debug)]
pub struct Registry {
    store: Store,
    home: Option<Home>,
    clock: Box<dyn Clock>,
    ids: Box<dyn IdSource>,
}

/// Effects a registry is handed (defaults: the system clock, monotonic ULIDs).
#[derive(Debug)]
pub struct Effects {
    pub clock: Box<dyn Clock>,
    pub ids: Box<dyn IdSource>,
}

impl Default for Effects {
    fn default() -> Self {
        Self {
            clock: Box::new(SystemClock),
            ids: Box::new(UlidSource::default()),
        }
    }
}

impl Registry {
    /// Open the registry under `home` (created if missing), bring its
    /// schema up to date and bootstrap the built-in types.
    pub fn open(home: &Home) -> Result<Self, RegistryError> {
        Self::open_with(home, Effects::default())
    }

    pub fn open_with(home: &Home, effects: Effects) -> Result<Self, RegistryError> {
        std::fs::create_dir_all(home.root()).map_err(|source| RegistryError::Home {
            path: home.root().to_owned(),
            source,
        })?;
        let store = Store::open(&home.database())?;
        Self::start(store, Some(home.clone()), effects)
    }

    /// A private registry in memory (tests, short-lived embedders).
    pub fn open_in_memory() -> Result<Self, RegistryError> {
        Self::start(Store::open_in_memory()?, None, Effects::default())
    }

    fn start(store: Store, home: Option<Home>, effects: Effects) -> Result<Self, RegistryError> {
        let mut registry = Self {
            store,
            home,
            clock: effects.clock,
            ids: effects.ids,
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

#[cfg(test)]
mod tests;
