//! Resources: the one home of the registry's resource operations — look
//! up, list, register, discover, refresh, watch, inspect and remove.
//! The public operations are here; the rooms below keep the work. How a
//! key names a row, how a row becomes a [`Resource`], which resources lie
//! at a path and what a removal takes along are shared with the other
//! concerns, in [`lookup`](super::lookup):
//!
//! | room | holds |
//! |---|---|
//! | `listing` | `agents resource list` and `list_resources`: filter, name glob, below, order, limit |
//! | `neighbours` | the labels of resources named by id |
//! | `register` | registering resources (one and many) |
//! | `children` | the host's checks on what `discover` answered |
//! | `discovery` | rediscovery (`agents resource discover`) |
//! | `refresh`, `watch` | refreshing resources, once or on every change |
//! | `inspect` | `agents resource inspect` |
//! | `removal` | `remove` |
//! | `equivalence` | virtual identities, reconciled after every write |
//! | `scrub` | removing credentials rows stored before they were kept out |

pub(super) mod children;
pub(super) mod discovery;
pub(super) mod equivalence;
pub(super) mod inspect;
pub(super) mod listing;
pub(super) mod neighbours;
pub(super) mod refresh;
pub(super) mod register;
pub(super) mod removal;
pub(super) mod scrub;
pub(super) mod watch;

use super::lookup::{self, at_path};
use super::{
    DiscoverOptions, DiscoveryReport, Inspection, ListOptions, NewResource, RefreshOptions,
    RefreshReport, RegisterOptions, RegistrationForm, Registry, RegistryError, RemovalReport,
    RemoveOptions, ResourceFilter, ResourceLabel, ResourceList, WatchEvent, WatchOptions,
};
use crate::model::{Resource, ResourceId, ResourceKey};
use std::path::Path;
use std::sync::atomic::AtomicBool;

impl Registry {
    /// Resources in registration order (`list_resources(type_name=)`).
    pub fn list_resources(&self, filter: &ResourceFilter) -> Result<Vec<Resource>, RegistryError> {
        listing::list_resources(self, filter)
    }

    /// A page of the resources someone registered (discovered ones are
    /// left out): at most `limit` whose ids follow `after` (none: from the
    /// first), in id order, so a page's last id is the next page's
    /// `after`. Each page reads its own rows only, however deep.
    pub fn registered_page(
        &self,
        after: Option<ResourceId>,
        limit: usize,
    ) -> Result<Vec<Resource>, RegistryError> {
        self.store.read(|r| {
            let ids = r.registered_ids_after(after, limit)?;
            lookup::load_resources(r, &*self.types.get(r)?, &ids)
        })
    }

    /// One resource by namespaced name or ULID (`show_resource(name_or_id)`).
    pub fn show_resource(&self, key: &ResourceKey) -> Result<Resource, RegistryError> {
        self.resource(key)
    }

    /// The resources `opts` selects, in its order, at most its limit.
    pub fn list(&self, opts: &ListOptions) -> Result<ResourceList, RegistryError> {
        listing::list(self, opts)
    }

    /// The resources whose location is `path` or one of its ancestors,
    /// nearest first; at one location, each before those it lies below.
    /// `path` is compared as given: pass it absolute and canonical, as
    /// locations are stored.
    pub fn resources_at(&self, path: &Path) -> Result<Vec<Resource>, RegistryError> {
        self.store.read(|r| {
            let types = self.types.get(r)?;
            lookup::assemble_rows(r, &types, at_path::rows_at_or_above(r, path)?)
        })
    }

    /// The label of each of `ids` that exists, in id order (an id absent
    /// from the answer names no resource now).
    pub fn labels(&self, ids: &[ResourceId]) -> Result<Vec<ResourceLabel>, RegistryError> {
        self.store.read(|r| {
            Ok(r.resources_by_ids(ids)?
                .into_iter()
                .map(|row| ResourceLabel {
                    resource_id: row.id,
                    name: row.name,
                    resource_type_name: row.type_name,
                })
                .collect())
        })
    }

    /// How to register a resource of `type_name` (refused for a type whose
    /// resources are not registered by hand).
    pub fn registration_form(&self, type_name: &str) -> Result<RegistrationForm, RegistryError> {
        register::registration_form(self, type_name)
    }

    /// Register one resource (`register_resource(type_name, name=, location=, …)`);
    /// answers the resource as written. [`RegisterOptions::progress`]
    /// hears how far its discovery came after each handler call;
    /// answering `Break` stops it there, nothing written
    /// ([`ResourcesError::Cancelled`](super::ResourcesError::Cancelled)).
    pub fn register_resource(
        &mut self,
        request: NewResource,
        options: RegisterOptions<'_>,
    ) -> Result<Resource, RegistryError> {
        register::register_resource(self, request, options.progress)
    }

    /// Register many resources in one transaction: all or none.
    pub fn register_resources(
        &mut self,
        requests: impl IntoIterator<Item = NewResource>,
    ) -> Result<Vec<ResourceId>, RegistryError> {
        register::register_resources(self, requests)
    }

    /// Run discovery again below a resource, [`DiscoverOptions::depth`]
    /// levels (default 1: its children): add what is found for the first
    /// time, drop discovered resources no longer found (with what only
    /// they kept), refresh the rest and the hashes of everything visited.
    /// One transaction. [`DiscoverOptions::progress`] hears how far it
    /// came after each handler call; answering `Break` stops it there,
    /// nothing written
    /// ([`ResourcesError::Cancelled`](super::ResourcesError::Cancelled)).
    /// When another process changes what it explored before it could write
    /// (the same discovery run twice at once), it explores again.
    pub fn discover(
        &mut self,
        key: &ResourceKey,
        options: DiscoverOptions<'_>,
    ) -> Result<DiscoveryReport, RegistryError> {
        discovery::discover(self, key, options.depth, options.progress)
    }

    /// Refresh `keys` (none: every resource someone registered whose type
    /// has a handler) and what was explored below them (see `refresh` for
    /// what changes). [`RefreshOptions::progress`] hears how far it came
    /// after each resource; answering `Break` stops it before the next
    /// (what it refreshed stays:
    /// [`ResourcesError::RefreshCancelled`](super::ResourcesError::RefreshCancelled)).
    pub fn refresh(
        &mut self,
        keys: &[ResourceKey],
        options: RefreshOptions<'_>,
    ) -> Result<RefreshReport, RegistryError> {
        refresh::refresh(self, keys, options.progress)
    }

    /// Keep `keys` (none: every resource someone registered) in step
    /// with the filesystem until `stop` is set: each burst of
    /// notifications under a resource's location refreshes that resource
    /// (and what was explored below it). Runs on the caller's thread, so
    /// an agent runtime gives it one of its own; `on_event` hears what
    /// happened. Returns when `stop` is set (checked every 100 ms).
    pub fn watch(
        &mut self,
        keys: &[ResourceKey],
        options: WatchOptions,
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(WatchEvent),
    ) -> Result<(), RegistryError> {
        watch::watch(self, keys, options, stop, on_event)
    }

    /// The handler's description of a resource, or of one file in it
    /// (`agents resource inspect [--file PATH]`).
    pub fn inspect(
        &self,
        key: &ResourceKey,
        file: Option<&str>,
    ) -> Result<Inspection, RegistryError> {
        inspect::inspect(self, key, file)
    }

    /// Remove a resource, its links, and the auto-discovered descendants no
    /// other parent keeps ([`RemoveOptions`]: only report what would go, or
    /// first clear the containers and sandboxes that would refuse it).
    pub fn remove_resource(
        &mut self,
        key: &ResourceKey,
        options: RemoveOptions,
    ) -> Result<RemovalReport, RegistryError> {
        removal::remove_resource(self, key, options)
    }
}
