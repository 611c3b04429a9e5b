//! The registry's public operations, in one place: [`Registry`] is a
//! thin façade, cargo's `ops` way. Each method here says what the
//! operation does and hands the work to one free function of the room
//! that owns the concern (`types::register_type`,
//! `removal::remove_resource`, `sandboxes::create_sandbox`, …), which
//! takes the registry and the operation's options; the rooms share
//! nothing through `Registry` methods of their own but the few helpers
//! every operation needs (the clock, the handlers, the machine check).
//!
//! Operations with choices take an options struct ([`RemoveOptions`],
//! [`RegisterTypeOptions`], [`AddPluginOptions`], [`ExportOptions`],
//! [`ImportOptions`], [`WatchOptions`]); none takes a positional `bool`.

use super::*;
use crate::graph::GraphView;
use crate::model::{Link, ModuleName, Priority, ResolvedType, Resource, ResourceId, ResourceKey};
use crate::model::{SandboxId, SandboxStrategy, SettingScope};
use crate::routing::Route;
use crate::sandbox::{self, Applied, SandboxDiff};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::AtomicBool;

impl Registry {
    // ---- Types: register, list, show, explain, remove (`types`) ----

    /// Register the built-in types (idempotent; a no-op read when the
    /// catalogue is unchanged since the last bootstrap).
    pub fn bootstrap_builtin_types(&mut self) -> Result<(), RegistryError> {
        types::bootstrap_builtin_types(self)
    }

    /// Register the custom type in the YAML file at `config_path`
    /// ([`RegisterTypeOptions::replace`]: overwriting a type of the same
    /// name).
    pub fn register_type(
        &mut self,
        config_path: &Path,
        options: RegisterTypeOptions,
    ) -> Result<TypeView, RegistryError> {
        types::register_type(self, config_path, options)
    }

    /// Register a custom type from YAML text; `source_name` names it in
    /// messages and is recorded as the type's `source`.
    pub fn register_type_text(
        &mut self,
        text: &str,
        source_name: &str,
        options: RegisterTypeOptions,
    ) -> Result<TypeView, RegistryError> {
        types::register_type_text(self, text, source_name, options)
    }

    /// Every type, or those in `namespace` (`builtin` for the built-ins).
    pub fn list_types(&self, namespace: Option<&str>) -> Result<Vec<TypeView>, RegistryError> {
        types::list_types(self, namespace)
    }

    /// One type, effective (after inheritance).
    pub fn show_type(&self, name: &str) -> Result<TypeView, RegistryError> {
        types::show_type(self, name)
    }

    /// One type after inheritance, with the origin of every field and list
    /// item (`agents resource type explain`); also what embedders use for
    /// `is_a`.
    pub fn resolved_type(&self, name: &str) -> Result<ResolvedType, RegistryError> {
        types::resolved_type(self, name)
    }

    /// Remove a custom type no subtype, resource or other type depends on.
    pub fn remove_type(&mut self, name: &str) -> Result<(), RegistryError> {
        types::remove_type(self, name)
    }

    // ---- Resources: look up, list, register, discover, refresh, watch,
    // inspect (`lookup`, `listing`, `at_path`, `neighbours`, `register`,
    // `discovery`, `refresh`, `watch`, `inspect`) ----

    /// Resources in registration order (`list_resources(type_name=)`).
    pub fn list_resources(&self, filter: &ResourceFilter) -> Result<Vec<Resource>, RegistryError> {
        lookup::list_resources(self, filter)
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
        lookup::registered_page(self, after, limit)
    }

    /// One resource by namespaced name or ULID (`show_resource(name_or_id)`).
    pub fn show_resource(&self, key: &ResourceKey) -> Result<Resource, RegistryError> {
        lookup::show_resource(self, key)
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
        at_path::resources_at(self, path)
    }

    /// The label of each of `ids` that exists, in id order (an id absent
    /// from the answer names no resource now).
    pub fn labels(&self, ids: &[ResourceId]) -> Result<Vec<ResourceLabel>, RegistryError> {
        neighbours::labels(self, ids)
    }

    /// How to register a resource of `type_name` (refused for a type whose
    /// resources are not registered by hand).
    pub fn registration_form(&self, type_name: &str) -> Result<RegistrationForm, RegistryError> {
        register::registration_form(self, type_name)
    }

    /// Register one resource (`register_resource(type_name, name=, location=, …)`);
    /// answers the resource as written.
    pub fn register_resource(&mut self, request: NewResource) -> Result<Resource, RegistryError> {
        register::register_resource(self, request)
    }

    /// [`Registry::register_resource`], telling `progress` how far its
    /// discovery came after each handler call; `progress` answering
    /// `Break` stops it there, nothing written
    /// ([`ResourcesError::Cancelled`]).
    pub fn register_resource_with(
        &mut self,
        request: NewResource,
        progress: &mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>,
    ) -> Result<Resource, RegistryError> {
        register::register_resource_with(self, request, progress)
    }

    /// Register many resources in one transaction: all or none.
    pub fn register_resources(
        &mut self,
        requests: impl IntoIterator<Item = NewResource>,
    ) -> Result<Vec<ResourceId>, RegistryError> {
        register::register_resources(self, requests)
    }

    /// Run discovery again below a resource, `depth` levels (1: its
    /// children): add what is found for the first time, drop discovered
    /// resources no longer found (with what only they kept), refresh the
    /// rest and the hashes of everything visited. One transaction.
    pub fn discover(&mut self, key: &ResourceKey) -> Result<DiscoveryReport, RegistryError> {
        discovery::discover(self, key)
    }

    /// [`Registry::discover`] to `depth`, telling `progress` how far it came
    /// after each handler call; `progress` answering `Break` stops it
    /// there, nothing written ([`ResourcesError::Cancelled`]).
    /// When another process changes what it explored before it could write
    /// (the same discovery run twice at once), it explores again.
    pub fn discover_with(
        &mut self,
        key: &ResourceKey,
        depth: Depth,
        progress: &mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>,
    ) -> Result<DiscoveryReport, RegistryError> {
        discovery::discover_with(self, key, depth, progress)
    }

    /// Refresh `keys` (none: every resource someone registered whose type
    /// has a handler) and what was explored below them. See the module
    /// documentation for what changes.
    pub fn refresh(&mut self, keys: &[ResourceKey]) -> Result<RefreshReport, RegistryError> {
        refresh::refresh(self, keys)
    }

    /// [`Registry::refresh`], telling `progress` how far it came after each
    /// resource; `progress` answering `Break` stops it before the next
    /// (what it refreshed stays: [`ResourcesError::RefreshCancelled`]).
    pub fn refresh_with(
        &mut self,
        keys: &[ResourceKey],
        progress: &mut dyn FnMut(RefreshProgress) -> ControlFlow<()>,
    ) -> Result<RefreshReport, RegistryError> {
        refresh::refresh_with(self, keys, progress)
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

    /// The roots this registry acts in (`None`: anywhere its user can).
    pub fn roots(&self) -> Option<&crate::roots::Roots> {
        self.roots.as_ref()
    }

    /// Act only inside `roots` from now on (`None`: anywhere), as
    /// `Options::roots` says. A server whose client's roots change hands
    /// each call's registry the current ones.
    pub fn set_roots(&mut self, roots: Option<crate::roots::Roots>) {
        self.roots = roots;
    }

    /// Refuse `action` on the file `path` names when the file it opens
    /// lies outside the roots (by the opened descriptor; free without
    /// roots): for a face that reads a file itself before handing the
    /// registry its contents (`agents mcp`'s `registry_import`).
    pub fn check_file_in_roots(
        &self,
        path: &Path,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        roots::check_file(self, path, action)
    }

    // ---- Links: link, unlink, children, tree, graph (`links`, `graph`) ----

    /// Link `child` below `parent` (`link_child(parent, child)`).
    pub fn link_child(
        &mut self,
        parent: &ResourceKey,
        child: &ResourceKey,
    ) -> Result<Link, RegistryError> {
        links::link_child(self, parent, child)
    }

    /// Remove the link `parent` → `child` (`unlink_child(parent, child)`).
    /// Both resources stay.
    pub fn unlink_child(
        &mut self,
        parent: &ResourceKey,
        child: &ResourceKey,
    ) -> Result<(), RegistryError> {
        links::unlink_child(self, parent, child)
    }

    /// The direct children of a resource (`get_children(name_or_id)`).
    pub fn get_children(&self, key: &ResourceKey) -> Result<Vec<Resource>, RegistryError> {
        links::get_children(self, key)
    }

    /// The tree below a resource, `depth` links deep (all when `None`),
    /// showing only paths to resources of `type_filter` (or its subtypes)
    /// when given (`get_resource_tree(name_or_id, depth=, type_filter=)`).
    pub fn get_resource_tree(
        &self,
        key: &ResourceKey,
        depth: Option<u32>,
        type_filter: Option<&str>,
    ) -> Result<TreeView, RegistryError> {
        links::get_resource_tree(self, key, depth, type_filter)
    }

    /// The graph below `key`: breadth first from it, siblings in natural
    /// order of their names, each resource once, with the identities
    /// joining at least two of the resources shown.
    pub fn graph(
        &self,
        key: &ResourceKey,
        opts: &GraphOptions,
    ) -> Result<GraphView, RegistryError> {
        graph::graph(self, key, opts)
    }

    // ---- Removal (`removal`) ----

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

    // ---- Sandboxes (`sandboxes`) ----

    /// Make a sandbox of a resource with its strategy — `strategy` if
    /// given, else the resource's own override, else its type's.
    pub fn create_sandbox(
        &mut self,
        key: &ResourceKey,
        strategy: Option<SandboxStrategy>,
    ) -> Result<SandboxView, RegistryError> {
        sandboxes::create_sandbox(self, key, strategy)
    }

    /// Every sandbox, or those of one resource, oldest first.
    pub fn list_sandboxes(
        &self,
        resource: Option<&ResourceKey>,
    ) -> Result<Vec<SandboxView>, RegistryError> {
        sandboxes::list_sandboxes(self, resource)
    }

    pub fn show_sandbox(&self, id: SandboxId) -> Result<SandboxView, RegistryError> {
        sandboxes::show_sandbox(self, id)
    }

    /// Record the working copy's whole state as the next checkpoint.
    pub fn checkpoint_sandbox(
        &mut self,
        id: SandboxId,
        label: Option<&str>,
    ) -> Result<CheckpointView, RegistryError> {
        sandboxes::checkpoint_sandbox(self, id, label)
    }

    /// Bring the working copy back to a checkpoint: `to` is its number or
    /// label; the latest when `None`. Later checkpoints are kept.
    pub fn rollback_sandbox(
        &mut self,
        id: SandboxId,
        to: Option<&str>,
    ) -> Result<CheckpointView, RegistryError> {
        sandboxes::rollback_sandbox(self, id, to)
    }

    /// What changed in the sandbox against the original.
    pub fn diff_sandbox(&self, id: SandboxId) -> Result<SandboxDiff, RegistryError> {
        sandboxes::diff_sandbox(self, id)
    }

    /// Promote the sandbox's changes to the original (a branch for git, a
    /// copy-back refused on conflicts for directories) — all or nothing.
    pub fn apply_sandbox(&mut self, id: SandboxId) -> Result<Applied, RegistryError> {
        sandboxes::apply_sandbox(self, id)
    }

    /// Remove everything the sandbox made (its area, worktree, refs) and
    /// its rows. Also finishes a sandbox a crash left `creating` or
    /// `destroying`.
    pub fn destroy_sandbox(&mut self, id: SandboxId) -> Result<SandboxView, RegistryError> {
        sandboxes::destroy_sandbox(self, id)
    }

    /// Hold a `transaction_rollback` sandbox: its one connection, inside
    /// its transaction, for as long as the caller keeps it (dropping it
    /// rolls back; `apply` commits). Refused for other strategies and for
    /// a read-only resource (whose original is never written).
    pub fn open_transaction(
        &self,
        id: SandboxId,
    ) -> Result<sandbox::SqliteTransaction, RegistryError> {
        sandboxes::open_transaction(self, id)
    }

    /// [`open_transaction`](Self::open_transaction) with the session
    /// bounded by `limits`. The session's lock (see `session.rs`) is held
    /// by the transaction until it ends, so `destroy` refuses meanwhile.
    pub fn open_transaction_with(
        &self,
        id: SandboxId,
        limits: sandbox::SessionLimits,
    ) -> Result<sandbox::SqliteTransaction, RegistryError> {
        sandboxes::open_transaction_with(self, id, limits)
    }

    // ---- Execution environments, containers and trust ----
    // (`environments`, `containers`, `trust`)

    /// Store the project's (or a plan's) execution environment. The
    /// resource must exist and be an execution environment.
    pub fn set_environment(
        &mut self,
        scope: SettingScope,
        target: &EnvironmentKey,
        priority: Priority,
    ) -> Result<SettingView, RegistryError> {
        environments::set_environment(self, scope, target, priority)
    }

    pub fn environment_setting(
        &self,
        scope: &SettingScope,
    ) -> Result<Option<SettingView>, RegistryError> {
        environments::environment_setting(self, scope)
    }

    /// Every stored setting: the project's, then the plans'.
    pub fn environment_settings(&self) -> Result<Vec<SettingView>, RegistryError> {
        environments::environment_settings(self)
    }

    /// Remove a setting; answers whether there was one.
    pub fn unset_environment(&mut self, scope: &SettingScope) -> Result<bool, RegistryError> {
        environments::unset_environment(self, scope)
    }

    /// Where a tool acting on `key` runs (`plan`: the plan's name, else
    /// the default plan), and which level decided. A pure answer: nothing
    /// is built or started here. When the environment is a devcontainer,
    /// the route says whether it may be activated (`trust`); a tool that
    /// requires a container is refused one that may not.
    pub fn resolve_environment(
        &self,
        key: &ResourceKey,
        plan: Option<&str>,
        tool: &ToolRequest,
    ) -> Result<Route, RegistryError> {
        environments::resolve_environment(self, key, plan, tool)
    }

    /// The lifecycle of a devcontainer resource (`detected` until it was
    /// first started).
    pub fn container_status(&self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        containers::container_status(self, key)
    }

    /// A resource's container lifecycle when it is a devcontainer, `None`
    /// for any other resource (`resource show`): unlike
    /// [`Registry::container_status`], not being one is no refusal, while
    /// every other failure is.
    pub fn container_of(&self, key: &ResourceKey) -> Result<Option<ContainerView>, RegistryError> {
        containers::container_of(self, key)
    }

    /// Build and start the container (lazy activation: what the router's
    /// first selection does). A running container is left as it is.
    pub fn start_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        containers::start_container(self, key)
    }

    /// Route a tool call and make its environment ready: what an agent
    /// runtime does before running a tool. When the router lands on a
    /// devcontainer, it is built and started if it is not running (lazy
    /// activation); other environments are answered as they are.
    pub fn enter_environment(
        &mut self,
        key: &ResourceKey,
        plan: Option<&str>,
        tool: &super::ToolRequest,
    ) -> Result<(crate::routing::Route, Option<ContainerView>), RegistryError> {
        containers::enter_environment(self, key, plan, tool)
    }

    /// Rebuild the container from its current configuration (after
    /// `devcontainer.json` changed): the old one is removed first.
    pub fn rebuild_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        containers::rebuild_container(self, key)
    }

    /// Stop the running container (it stays, stopped, until started again
    /// or rebuilt). Like `docker stop`, stopping what is not running is no
    /// error: one never started, or with no container (a failed build),
    /// is answered as it is, and nothing is asked of the engine.
    pub fn stop_container(&mut self, key: &ResourceKey) -> Result<ContainerView, RegistryError> {
        containers::stop_container(self, key)
    }

    /// What activating each devcontainer at or below `key` will do, and
    /// where each stands for this registry's person. Nothing is written
    /// and no tool is run. A configuration refused even when trusted (a
    /// Dockerfile outside the repository, …) is refused here too.
    pub fn trust_summary(&self, key: &ResourceKey) -> Result<TrustSummary, RegistryError> {
        trust::trust_summary(self, key)
    }

    /// Record the person's consent: each devcontainer of the summary is
    /// trusted at the digest shown. Refused, with nothing written, when
    /// the registry has no person or a configuration changed since it
    /// was shown.
    pub fn trust(&mut self, consent: Consent) -> Result<Vec<TrustRecord>, RegistryError> {
        trust::trust(self, consent)
    }

    /// Take the person's trust back from each devcontainer at or below
    /// `key`; answers the names it was taken from.
    pub fn untrust(&mut self, key: &ResourceKey) -> Result<Vec<String>, RegistryError> {
        trust::untrust(self, key)
    }

    // ---- Transfer: export, import and info (`export`, `import`) ----

    /// Everything worth moving, as one document (see
    /// [`document`]); [`ExportOptions::with_plugins`]
    /// embeds each plugin component (base64), so the document alone can
    /// fill a new home.
    pub fn export_document(
        &self,
        options: ExportOptions,
    ) -> Result<RegistryDocument, RegistryError> {
        export::export_document(self, options)
    }

    /// Import `document` (see [`document`] for the format and the `import`
    /// room for what is checked); [`ImportOptions::dry_run`] checks and
    /// rehearses everything and writes nothing.
    pub fn import_document(
        &mut self,
        document: &RegistryDocument,
        options: ImportOptions,
    ) -> Result<ImportReport, RegistryError> {
        import::import_document(self, document, options)
    }

    /// Which backend, where, which schema, how much (`agents registry info`).
    pub fn info(&self) -> Result<RegistryInfo, RegistryError> {
        export::info(self)
    }

    // ---- Plugins (`plugin_store`) ----

    /// Add the component at `path` to the plugin store (`agents plugin add`).
    /// It must be a component of a contract version this host serves whose
    /// `describe()` answers; it is registered under
    /// [`AddPluginOptions::module`] if given, else under the module name it
    /// reports. An added module is refused unless
    /// [`replace`](AddPluginOptions::replace); a replacement must still
    /// export every class a type uses.
    pub fn add_plugin(
        &mut self,
        path: &Path,
        options: AddPluginOptions,
    ) -> Result<PluginView, RegistryError> {
        plugin_add::add_plugin(self, path, options)
    }

    /// The built-in modules (when the registry can run handlers), then the
    /// added ones.
    pub fn list_plugins(&self) -> Result<Vec<PluginView>, RegistryError> {
        plugin_store::list_plugins(self)
    }

    pub fn show_plugin(&self, module: &ModuleName) -> Result<PluginView, RegistryError> {
        plugin_store::show_plugin(self, module)
    }

    /// Remove a module no type uses; its file goes when no module shares it.
    pub fn remove_plugin(&mut self, module: &ModuleName) -> Result<PluginView, RegistryError> {
        plugin_store::remove_plugin(self, module)
    }
}
