//! The registry service: the spec's `ResourceRegistryService` and the
//! single write path. One [`Registry`] owns the store connection, the
//! effects it was handed (clock, id source) and the handler runtime.
//!
//! **Check, then write, in one transaction.** Every operation that changes
//! the registry loads what it needs, applies the rules (`typespec` for
//! types, `dag` for links, [`args`] for registration arguments) and writes
//! inside one `BEGIN IMMEDIATE` transaction, so a refusal — or any failure
//! half way — leaves the database exactly as it was. Handlers run before
//! that transaction, never inside it.
//!
//! **Concerns own their operations.** [`Registry`]'s public operations
//! live with their concern, cargo's `ops` way: each concern is a
//! directory whose `mod.rs` holds its `impl Registry { pub fn … }` (with
//! the rustdoc), and the rooms below it keep the work as functions
//! private to the registry. An operation with choices takes an options
//! struct; each concern's refusals are its own enum inside
//! [`RegistryError`] (`error`).
//!
//! | concern | directory | operations |
//! |---|---|---|
//! | types | `types/` | bootstrap, register, list, show, explain, remove; the resolved-type cache is `type_set` (shared, below) |
//! | resources | `resources/` | look up, list, which, labels, register, discover, refresh, watch, inspect, remove; identities (`equivalence`), the credential scrub |
//! | links | `links/` | link, unlink, children, tree, graph |
//! | environments and containers | `environments/` | execution-environment settings, the router's inputs, the devcontainer lifecycle (`containers`) |
//! | sandboxes | `sandboxes/` | create, list, show, checkpoint, rollback, diff, apply, destroy, transactions; local mode |
//! | plugins | `plugins/` | add, list, show, remove, check, handlers, distribution through OCI registries |
//! | events | `events/` | the event log read back: events, history, pruning and its setting |
//! | transfer | `transfer/` | export, import, info; the registry [`document`] they write and read is shared (below) |
//! | trust | `trust/` | a person's trust in a devcontainer's configuration; provenance |
//!
//! Shared by every concern, and using none of them (`tests/architecture.rs`
//! checks it): `args` (registration arguments), [`document`] (the registry
//! document's format: what transfer writes and reads, and what its
//! refusals name), `recording` (the event each write records, in its own
//! transaction) and `event_op` (the operations it names), `roots` (where a
//! registry given roots may act, and the checks each operation makes),
//! `type_set` (the resolved types), `views` (the type view and its mapping
//! to the spec's field names) and `error`.

pub mod args;
mod devcontainer_config;
pub mod document;
mod environments;
mod error;
mod event_op;
mod events;
mod links;
mod lookup;
mod plugins;
mod recording;
mod resources;
mod roots;
mod sandboxes;
mod transfer;
mod trust;
mod type_set;
mod types;
mod views;

pub use devcontainer_config::ContainerTools;
pub use document::{DocumentError, RegistryDocument};
pub use environments::containers::ContainerView;
pub use environments::{
    DEFAULT_PLAN, DEVCONTAINER_TYPE, ENVIRONMENT_TYPE, EnvironmentKey, SettingView, ToolRequest,
};
use error::link_refused;
pub use error::{
    ChildRefusal, DistributionError, EnvironmentsError, ErrorKind, ImportConflict, LinksError,
    MissingPlugin, MissingType, NoHandlerReason, NotAddable, PluginsError, RegistryError,
    ResourcesError, SandboxRefusal, SandboxesError, StrategyRefusal, TransferError, TrustState,
    TypesError,
};
pub use events::{
    Event, EventFollower, EventOp, EventQuery, EventsError, HistoryEntry, KINDS as EVENT_KINDS,
    Keep, MAX_LIMIT as EVENTS_MAX_LIMIT, MAX_POLL as EVENTS_MAX_POLL, Since,
};
pub use links::TreeView;
pub use links::graph::GraphOptions;
pub use plugins::distribution::{
    InstallPluginOptions, InstallView, LockEntry, LockFile, LockedInstallOptions,
    PushPluginOptions, PushView, TypeChange, UpdatePluginsOptions, UpdateView,
};
pub use plugins::plugin_check::{PluginCheckView, check_plugin};
pub use plugins::plugin_store::{AddPluginOptions, PluginView, ProvenanceView};
pub use resources::discovery::{
    Depth, DiscoverOptions, DiscoveryProgress, DiscoveryReport, MAX_FOUND, REGISTRATION_DEPTH,
};
pub use resources::inspect::Inspection;
pub use resources::listing::ResourceFilter;
pub use resources::listing::{ListOptions, ListOrder, ResourceList};
pub use resources::neighbours::ResourceLabel;
pub use resources::refresh::{
    ChangedResource, RefreshOptions, RefreshProgress, RefreshReport, StaleResource,
};
pub use resources::register::{NewResource, RegisterOptions, RegistrationForm};
pub use resources::removal::{Forced, RemovalReport, RemoveOptions};
pub use resources::watch::{WatchEvent, WatchOptions};
pub use sandboxes::local_mode;
pub use sandboxes::{CheckpointView, SandboxView};
pub use transfer::export::{ExportOptions, RegistryInfo};
pub use transfer::import::{ImportOptions, ImportReport, Tally};
pub use trust::{AgentBrought, Consent, DevcontainerSummary, Person, TrustRecord, TrustSummary};
pub use types::RegisterTypeOptions;
pub use views::TypeView;

use crate::effects::{Clock, IdSource, SystemClock, UlidSource, iso8601};
use crate::home::Home;
use crate::plugin::{Limits, PluginFiles, PluginRuntime};
use crate::store::Store;
use plugins::handlers::Plugins;
use type_set::TypeCache;

/// The `registry_meta` key saying the pass that removes stored
/// credentials ran (its value: when). The pass is `resources`'; an open
/// reads the key with the catalogue's (`types`), in one read.
const CREDENTIALS_KEY: &str = "credentials_scrubbed";

/// The built-in type a detected devcontainer is ([`DEVCONTAINER_TYPE`]),
/// as a name: trust, environments and discovery all ask "is this one?".
pub(crate) fn devcontainer_type() -> crate::model::TypeName {
    crate::model::TypeName::parse(DEVCONTAINER_TYPE)
        .unwrap_or_else(|e| unreachable!("a built-in name: {e}"))
}

/// The registry over one store.
#[derive(Debug)]
pub struct Registry {
    store: Store,
    clock: Box<dyn Clock>,
    ids: Box<dyn IdSource>,
    /// The handler runtime (and, with a home, the plugin files). Creating
    /// it is cheap: the WebAssembly engine starts on the first handler
    /// call, so `list`, `show` and `tree` never pay for it.
    plugins: Plugins,
    /// The resolved types, kept while no type changes.
    types: TypeCache,
    /// The home directory, when there is one (a watch ignores its own
    /// files).
    home: Option<std::path::PathBuf>,
    /// How `overlay` sandboxes are made.
    overlay: crate::sandbox::Overlay,
    /// Which `git` the `git_worktree` sandboxes run (the handlers' git
    /// questions are the runtime's, handed the same).
    git: crate::git_env::GitTools,
    /// Where the container tools are looked for.
    container_tools: ContainerTools,
    /// This machine, when the registry tells machines apart (a shared
    /// registry): resources registered elsewhere are not handled here.
    machine: Option<crate::machine::Machine>,
    /// Whose trust decisions apply (`trust`).
    person: Option<Person>,
    /// Who is acting, through which face: recorded as each new row's
    /// provenance.
    actor: crate::model::Actor,
    /// How OCI registries are reached (`distribution`).
    oci: crate::oci::RegistryAccess,
    /// The home's signing keys and pins (none in memory).
    keys: Option<crate::signing::Keyring>,
    /// Where this registry may act on the filesystem (`None`: anywhere
    /// the user can; see `roots`).
    roots: Option<crate::roots::Roots>,
}

/// What a registry is handed: its effects (defaults: the system clock,
/// monotonic ULIDs) and the limits every handler call runs under.
#[derive(Debug)]
pub struct Options {
    /// Where the registry lives (default: the home's `registry.db`).
    pub registry: Option<crate::store::RegistryLocation>,
    pub clock: Box<dyn Clock>,
    pub ids: Box<dyn IdSource>,
    pub limits: Limits,
    /// How `overlay` sandboxes are made (default: the kernel's overlayfs
    /// where it mounts, else the user-space fallback).
    pub overlay: crate::sandbox::Overlay,
    /// Where `git` is found, and the `PATH` every `git` process is handed
    /// (default: the system's standard directories,
    /// [`STANDARD_PATH`](crate::git_env::STANDARD_PATH); the library reads
    /// no `PATH` of its own — the CLI hands in its own).
    pub git: crate::git_env::GitTools,
    /// Where devcontainers' tools are found (default: nowhere — starting
    /// a devcontainer is refused until an embedder says where to look).
    pub container_tools: ContainerTools,
    /// This machine, on a shared (PostgreSQL) registry (default: detected
    /// — the OS's machine id, else one kept in the home).
    pub machine: Option<crate::machine::Machine>,
    /// The person using the registry: whose trust decisions
    /// devcontainer activation checks, and who records new ones (default:
    /// none — then nothing is trusted and no devcontainer is activated;
    /// the CLI hands in the OS user).
    pub person: Option<Person>,
    /// Who is acting and through which face (default: `library`, no
    /// name): recorded as the provenance of every resource registered and
    /// every link made. The CLI says `cli` and the OS user; `agents mcp`
    /// says `mcp` and its client; the Python package says `python` and
    /// the embedder's label. Only `mcp` is an agent's: what it registers
    /// or links never carries a person's consent.
    pub actor: crate::model::Actor,
    /// A per-user cache directory shared by every home: the built-in
    /// components are compiled into its `components/` once per user, not
    /// once per home (default: none — each home compiles them; the CLI
    /// hands in `$XDG_CACHE_HOME/agents`).
    pub user_cache: Option<std::path::PathBuf>,
    /// How OCI registries are reached for `plugin push|install|update`:
    /// credentials and whether plain http is allowed beyond loopback
    /// (default: no credentials, https only; the CLI hands in the docker
    /// config and the `AGENTS_REGISTRY_*` variables).
    pub oci: crate::oci::RegistryAccess,
    /// The directories the registry may act in on the filesystem
    /// (default: `None`, anywhere the user can — a person at the CLI).
    /// With roots, every operation that takes or acts on a location
    /// outside them is refused ([`RegistryError::OutsideRoots`]):
    /// registration, inspect, discovery and refresh, sandboxes, removal
    /// and links of such a resource, containers, import, type and plugin
    /// files. Reads of the rows (list, show, tree) are not: what a
    /// person registered elsewhere stays visible. `agents mcp` hands in
    /// its `--root`s (intersected with its client's); the Python package
    /// its `roots=`.
    pub roots: Option<crate::roots::Roots>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            registry: None,
            clock: Box::new(SystemClock),
            ids: Box::new(UlidSource::default()),
            limits: Limits::default(),
            overlay: crate::sandbox::Overlay::new(),
            git: crate::git_env::GitTools::default(),
            container_tools: ContainerTools::default(),
            machine: None,
            person: None,
            actor: crate::model::Actor::default(),
            user_cache: None,
            oci: crate::oci::RegistryAccess::default(),
            roots: None,
        }
    }
}

impl Registry {
    /// Open the registry under `home` (created if missing), bring its
    /// schema up to date and bootstrap the built-in types.
    pub fn open(home: &Home) -> Result<Self, RegistryError> {
        Self::open_with(home, Options::default())
    }

    /// Open the registry under `home` as [`Registry::open`] does, with
    /// `options` in place of the defaults (a shared registry's location,
    /// the roots it may act in, the limits, …).
    pub fn open_with(home: &Home, options: Options) -> Result<Self, RegistryError> {
        home.prepare()?;
        let mut store = match &options.registry {
            Some(location) => Store::connect(location)?,
            None => Store::open(&home.database())?,
        };
        // A shared registry records which machine each location is on; a
        // SQLite home is one machine's, and records nothing.
        let machine = (store.backend() == "postgres").then(|| {
            options
                .machine
                .clone()
                .unwrap_or_else(|| crate::machine::Machine::detect(home.root()))
        });
        store.record_machine(machine.as_ref().map(|m| m.id.clone()));
        let plugins = Plugins {
            runtime: PluginRuntime::new(home.compile_cache(), options.limits.clone())
                .with_views_dir(home.views())
                .with_git(options.git.clone())
                .with_shared_cache(options.user_cache.as_ref().map(|d| d.join("components"))),
            files: Some(PluginFiles::new(home.plugins())),
        };
        let mut registry = Self::start(store, plugins, options)?;
        if let Some(machine) = machine {
            registry.note_machine(&machine)?;
            registry.machine = Some(machine);
        }
        registry.keys = Some(crate::signing::Keyring::new(home.keys()));
        registry.home =
            Some(std::fs::canonicalize(home.root()).unwrap_or_else(|_| home.root().to_owned()));
        Ok(registry)
    }

    /// A private registry in memory (tests, short-lived embedders). It
    /// runs the built-in handlers (compiled in memory, no cache) but has no
    /// plugin store, so types with plugin handlers cannot be used.
    pub fn open_in_memory() -> Result<Self, RegistryError> {
        Self::without_home(Store::open_in_memory()?)
    }

    /// A registry over `store` with no home, as [`Registry::open_in_memory`].
    fn without_home(store: Store) -> Result<Self, RegistryError> {
        let options = Options::default();
        let plugins = Plugins {
            runtime: PluginRuntime::without_cache(options.limits.clone()),
            files: None,
        };
        Self::start(store, plugins, options)
    }

    fn start(store: Store, plugins: Plugins, options: Options) -> Result<Self, RegistryError> {
        let mut registry = Self {
            store,
            clock: options.clock,
            ids: options.ids,
            plugins,
            types: TypeCache::default(),
            home: None,
            overlay: options.overlay,
            git: options.git,
            container_tools: options.container_tools,
            machine: None,
            person: options.person,
            actor: options.actor,
            oci: options.oci,
            keys: None,
            roots: options.roots,
        };
        // What an open may have to do once, found in one read: remove the
        // credentials an older binary stored, register a changed built-in
        // catalogue.
        let (catalogue, scrubbed) = registry.store.read(|r| {
            Ok::<_, RegistryError>((r.meta(types::CATALOGUE_KEY)?, r.meta(CREDENTIALS_KEY)?))
        })?;
        if scrubbed.is_none()
            && let Err(e) = registry.scrub_stored_credentials()
        {
            // (A full disk, a read-only role: reading must still work; the
            // next open tries again.)
            log::warn!(target: "registry", "could not remove stored credentials yet: {e}");
        }
        if catalogue.as_deref() != Some(&crate::builtin::fingerprint()) {
            registry.bootstrap_builtin_types()?;
        }
        Ok(registry)
    }

    fn now(&self) -> String {
        iso8601(self.clock.now())
    }

    /// Keep this machine's host name current in the registry (one read
    /// when it is).
    fn note_machine(&mut self, machine: &crate::machine::Machine) -> Result<(), RegistryError> {
        let known = self.store.read(|r| r.machine_hostname(&machine.id))?;
        if known.as_deref() != Some(machine.hostname.as_str()) {
            let now = self.now();
            self.store
                .write(|w| w.put_machine(&machine.id, &machine.hostname, &now))?;
        }
        Ok(())
    }

    /// Refuse to `action` on `row` when its location is on another
    /// machine (only a shared registry knows; elsewhere this is free).
    pub(crate) fn check_machine(
        &self,
        row: &crate::store::ResourceRow,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        self.check_machine_of(row.id, || row.label(), action)
    }

    /// [`Registry::check_machine`] by id (`label` names it in the refusal).
    pub(crate) fn check_machine_of(
        &self,
        id: crate::model::ResourceId,
        label: impl FnOnce() -> String,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        let Some(here) = &self.machine else {
            return Ok(());
        };
        match self.store.read(|r| r.resource_machine(id))? {
            Some(there) if there.id != here.id => Err(RegistryError::OtherMachine {
                resource: label(),
                action,
                machine: crate::machine::Machine::label(&there.id, there.hostname.as_deref()),
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
