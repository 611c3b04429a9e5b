//! `resource_host.Registry`, the class people use: one method per façade
//! operation, whose `#[pyo3(signature)]` is the Python signature (names,
//! defaults, keyword-only flags) and whose doc is its `__doc__`. Each
//! parses its arguments as the CLI does (`args`), runs the operation on a
//! pooled registry with the GIL released (handler calls, git, SQLite and
//! PostgreSQL I/O never hold up other Python threads), and answers the
//! view in its `-o json` form — resources and types as the package's
//! objects (`convert::to_objects`). `resource_host/_native.pyi` types it;
//! stubtest holds the two together.
//!
//! One file: PyO3 takes one `#[pymethods]` block per class (without the
//! `multiple-pymethods` feature and its `inventory` dependency). The
//! methods of one shape — arguments in (parsed first if need be), one
//! library call on a pooled registry, its view out — are one item each
//! of the `methods!` table at the end; the others are written out above
//! it: the constructor and getters, what answers a class of its own
//! (`open_transaction`, `follow_events`), and `register_resource`, whose
//! `**kwargs` PyO3 must see spelled `Option<…>` (a macro's `ty` fragment
//! hides it).

use crate::args::{dashed, key, path_text, sandbox_id, strategy, type_args};
use crate::convert::{Object, to_objects, to_py};
use crate::errors::{invalid, to_py_err};
use crate::events::EventStream;
use crate::open::Pool;
use crate::progress::Callback;
use crate::transaction::NativeTransaction;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use resource_host::graph::GraphView;
use resource_host::model::ModuleName;
use resource_host::registry::{
    AddPluginOptions, Depth, DiscoverOptions, EventQuery, ExportOptions, GraphOptions,
    ImportOptions, InstallPluginOptions, NewResource, RefreshOptions, RegisterOptions,
    RegisterTypeOptions, Registry, RegistryDocument, RegistryError, RemoveOptions, ResourceFilter,
    ToolRequest,
};
use serde::Serialize;
use std::path::PathBuf;

/// A registry under a home directory (the specification's `ResourceRegistryService`).
///
/// `home` is where the registry keeps its files (`registry.db`, plugins,
/// sandboxes); default `$AGENTS_HOME`, else `$XDG_DATA_HOME/agents`
/// (`~/.local/share/agents`). `registry` is where the registry itself
/// lives when not the home's `registry.db`: `sqlite:///path/registry.db`
/// or `postgres://user@host/db` (default `$AGENTS_REGISTRY`). The rest is
/// read from the environment as `agents` reads it. `handler_timeout`:
/// seconds one handler call may take (default 10). `actor`: the label
/// this program is recorded under as the registrant (face `python`;
/// default: the OS user). `roots`: the directories the registry may act
/// in — anything outside every one is refused with `OutsideRootsError`
/// (what is registered elsewhere stays readable); give it when the
/// caller is an agent.
///
/// One `Registry` may be used from several threads at once: each call
/// runs on an open registry of its own with the GIL released. There is
/// no `trust` method: trusting a devcontainer is a person's consent.
#[pyclass(frozen, subclass, module = "resource_host", name = "Registry")]
#[derive(Debug)]
pub struct NativeRegistry {
    pool: Pool,
}

impl NativeRegistry {
    /// Run `work` on a registry of the pool with the GIL released.
    fn call<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce(&mut Registry) -> Result<T, RegistryError> + Send,
    ) -> PyResult<T> {
        py.detach(|| self.pool.with(work)).map_err(to_py_err)
    }

    /// [`call`](Self::call) for an operation that reports progress to the
    /// Python callable `progress` (and stops when it says so).
    fn watch<T: Send>(
        &self,
        py: Python<'_>,
        progress: Option<Py<PyAny>>,
        work: impl FnOnce(&mut Registry, &mut Callback) -> Result<T, RegistryError> + Send,
    ) -> PyResult<T> {
        let mut callback = Callback::new(progress);
        let result = py.detach(|| self.pool.with(|r| work(r, &mut callback)));
        callback.finish(result)
    }
}

/// What `graph` answers: the view, or its drawing as text.
#[derive(Serialize)]
#[serde(untagged)]
enum Drawn {
    View(GraphView),
    Text(String),
}

/// The `#[pymethods]` block: the methods written out (in braces), then
/// the table of those of one shape, each
/// `/// doc  #[pyo3(signature = …)]  fn name(arg: Type, …) -> answer = { prepare } |r| call;`
/// where `answer` is `to_py` (the view as a dict; `()` as `None`) or
/// `to_objects(Object::Resource)` / `to_objects(Object::ResourceType)`
/// (the package's objects), followed by `watching progress` for an
/// operation that reports to the callback `progress` (the closure is
/// then `|r, cb|`, reporting to `cb`); `prepare` (optional) turns the
/// Python arguments into what the call takes, GIL held, and `call` is the
/// library operation on the pooled registry `r` (the arguments are moved
/// into it), run by [`call`](NativeRegistry::call) or
/// [`watch`](NativeRegistry::watch).
macro_rules! methods {
    ({ $($written:tt)* } $(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?)
            -> $answer:ident $(($class:expr))? $(watching $progress:ident)? =
            $({ $($prepare:tt)* })? |$r:ident $(, $cb:ident)?| $call:expr;
    )*) => {
        #[pymethods]
        impl NativeRegistry {
            $($written)*
            $(
                $(#[$attr])*
                fn $name(&self, py: Python<'_>, $($arg: $ty),*) -> PyResult<Py<PyAny>> {
                    $($($prepare)*)?
                    let view = methods!(@run self, py, $($progress)?, move |$r $(, $cb)?| $call)?;
                    $answer(py, $($class,)? &view)
                }
            )*
        }
    };
    (@run $self:ident, $py:ident, , $work:expr) => {
        $self.call($py, $work)
    };
    (@run $self:ident, $py:ident, $progress:ident, $work:expr) => {
        $self.watch($py, $progress, $work)
    };
}

methods! {{
    #[new]
    #[pyo3(signature = (home=None, registry=None, *, handler_timeout=None, actor=None, roots=None))]
    fn new(
        py: Python<'_>,
        home: Option<PathBuf>,
        registry: Option<String>,
        handler_timeout: Option<f64>,
        actor: Option<String>,
        roots: Option<Vec<PathBuf>>,
    ) -> PyResult<Self> {
        let roots = roots
            .map(resource_host::roots::Roots::new)
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        let mut limits = resource_host::plugin::Limits::default();
        if let Some(secs) = handler_timeout {
            let range = resource_host::plugin::Limits::TIMEOUT_SECS;
            if !range.contains(&secs) {
                return Err(invalid(format!(
                    "handler_timeout {secs} is not a number of seconds from {} to {}",
                    range.start(),
                    range.end()
                )));
            }
            limits.timeout = std::time::Duration::from_secs_f64(secs);
        }
        let pool = py
            .detach(|| Pool::open(home, registry, limits, actor, roots))
            .map_err(to_py_err)?;
        Ok(Self { pool })
    }

    /// The home directory.
    #[getter]
    fn home(&self) -> std::ffi::OsString {
        self.pool.home().root().as_os_str().to_owned()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let home = PyString::new(py, &self.pool.home().root().to_string_lossy()).repr()?;
        Ok(format!("<Registry home={home}>"))
    }

    /// Register a resource of `type_name` and discover what lies below it.
    ///
    /// `location` is the type's `path` argument (relative paths are taken
    /// from the current directory); the type's other arguments (its
    /// `cli_args`) are keywords, as `agents resource add` takes them as
    /// flags: `register_resource("git-checkout", name="local/repo",
    /// location="/src/repo", branch="main")`. A keyword spelled with `_`
    /// names the argument spelled with `-` when the type has no argument
    /// of that name. Values are `str`, `int`, `bool` or a path.
    ///
    /// `progress(visited, found)` is called as the discovery below it
    /// goes; answering `False` (or raising) stops it, and nothing is
    /// registered.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (type_name, name=None, location=None, *, description=None, sandbox_strategy=None, read_only=false, progress=None, **type_args))]
    fn register_resource(
        &self,
        py: Python<'_>,
        type_name: String,
        name: Option<String>,
        location: Option<PathBuf>,
        description: Option<String>,
        sandbox_strategy: Option<String>,
        read_only: bool,
        progress: Option<Py<PyAny>>,
        type_args: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut args = Vec::new();
        if let Some(location) = location {
            let text = path_text("location", location)?;
            args.push((resource_host::registry::args::LOCATION_ARG.to_owned(), text));
        }
        let mut given = self::type_args(type_args)?;
        let mut request = NewResource {
            type_name,
            name,
            args,
            description,
            sandbox_strategy,
            read_only,
            base_dir: std::env::current_dir().ok(),
        };
        let view = self.watch(py, progress, move |r, cb| {
            if given.iter().any(|(k, _)| k.contains('_')) {
                dashed(&mut given, &r.registration_form(&request.type_name)?);
            }
            request.args.extend(given);
            r.register_resource(
                request,
                RegisterOptions {
                    progress: Some(&mut |p| cb.report(p.visited, p.found)),
                },
            )
        })?;
        to_objects(py, Object::Resource, &view)
    }

    /// Hold a `transaction_rollback` sandbox: its connection, inside its transaction.
    ///
    /// Use it as a context manager (`with reg.open_transaction(sid) as
    /// txn:`); leaving the block without `txn.apply()` rolls everything
    /// back, whether or not an exception is propagating. `input_timeout`
    /// (seconds per `execute`) and `max_growth_bytes` bound the session
    /// (defaults 60 s, 1 GiB).
    #[pyo3(signature = (sandbox_id, *, input_timeout=None, max_growth_bytes=None))]
    fn open_transaction(
        &self,
        py: Python<'_>,
        sandbox_id: String,
        input_timeout: Option<f64>,
        max_growth_bytes: Option<u64>,
    ) -> PyResult<NativeTransaction> {
        let mut limits = resource_host::sandbox::SessionLimits::default();
        if let Some(secs) = input_timeout {
            limits.input_timeout = std::time::Duration::try_from_secs_f64(secs)
                .map_err(|_| invalid(format!("input_timeout {secs} is not a number of seconds")))?;
        }
        if let Some(bytes) = max_growth_bytes {
            limits.max_growth_bytes = bytes;
        }
        let txn = self.call(py, |r| {
            r.open_transaction(self::sandbox_id(&sandbox_id)?, limits)
        })?;
        Ok(NativeTransaction::new(txn))
    }

    /// Follow the log: an `EventStream`, an iterator over each event as
    /// it lands, from any process on this registry (`for e in
    /// reg.follow_events(): …`; it never ends by itself).
    ///
    /// `since`: as for `events` (none: only what lands from now on).
    /// `poll_interval`: seconds between two looks at a SQLite registry
    /// (at most 0.2); a PostgreSQL one wakes the stream at once
    /// (`LISTEN`).
    #[pyo3(signature = (since=None, poll_interval=0.2))]
    fn follow_events(
        &self,
        py: Python<'_>,
        since: Option<Bound<'_, PyAny>>,
        poll_interval: f64,
    ) -> PyResult<EventStream> {
        let since = crate::events::since(since.as_ref())?;
        let poll = std::time::Duration::try_from_secs_f64(poll_interval)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                invalid(format!(
                    "poll_interval {poll_interval} is not a number of seconds above 0"
                ))
            })?;
        let (registry, follower) = py
            .detach(|| {
                let registry = self.pool.open_one()?;
                let query = EventQuery {
                    since,
                    ..EventQuery::default()
                };
                let follower = registry.follow_events(query, poll)?;
                Ok((registry, follower))
            })
            .map_err(to_py_err)?;
        Ok(EventStream::new(registry, follower))
    }}

    // ---- types ----

    /// Register the built-in types (idempotent).
    fn bootstrap_builtin_types() -> to_py = |r| r.bootstrap_builtin_types();

    /// Register the custom type defined in the YAML file at `config_path`.
    ///
    /// `replace=True` replaces a custom type of the same name (still
    /// checked against the resources and types that rely on it).
    #[pyo3(signature = (config_path, *, replace=false))]
    fn register_type(config_path: PathBuf, replace: bool) -> to_objects(Object::ResourceType) = |r| {
        let mut options = RegisterTypeOptions::default();
        options.replace = replace;
        r.register_type(&config_path, options)
    };

    /// Every type, or those in `namespace` (`"builtin"` for the built-ins).
    #[pyo3(signature = (namespace=None))]
    fn list_types(namespace: Option<String>) -> to_objects(Object::ResourceType) =
        |r| r.list_types(namespace.as_deref());

    /// Remove a custom type no resource or other type relies on.
    fn remove_type(name: String) -> to_py = |r| r.remove_type(&name);

    /// One type, effective (after inheritance).
    fn show_type(name: String) -> to_objects(Object::ResourceType) = |r| r.show_type(&name);

    // ---- resources ----

    /// Resources in registration order; of `type_name` or its subtypes (`exact`: that type only).
    #[pyo3(signature = (type_name=None, *, exact=false))]
    fn list_resources(type_name: Option<String>, exact: bool) -> to_objects(Object::Resource) =
        |r| r.list_resources(&match (type_name, exact) {
            (None, _) => ResourceFilter::All,
            (Some(t), false) => ResourceFilter::TypeOrSubtype(t),
            (Some(t), true) => ResourceFilter::ExactType(t),
        });

    /// One resource by namespaced name or ULID.
    fn show_resource(name_or_id: String) -> to_objects(Object::Resource) =
        |r| r.show_resource(&key(&name_or_id)?);

    /// Run the type's discovery rules below a resource, one level (the specification's call).
    fn auto_discover_children(resource_id: String) -> to_py =
        |r| r.discover(&key(&resource_id)?, DiscoverOptions::default());

    /// Discover again below a resource, `depth` levels (`None`: all the way down).
    ///
    /// `progress(visited, found)` is called after each handler call;
    /// stopped, the discovery writes nothing.
    #[pyo3(
        signature = (name_or_id, depth=Some(1), *, progress=None),
        text_signature = "(self, /, name_or_id, depth=1, *, progress=None)"
    )]
    fn discover(name_or_id: String, depth: Option<u32>, progress: Option<Py<PyAny>>)
        -> to_py watching progress = |r, cb| r.discover(&key(&name_or_id)?, DiscoverOptions {
            depth: depth.map_or(Depth::All, Depth::Levels),
            progress: Some(&mut |p| cb.report(p.visited, p.found)),
        });

    /// Refresh the resources named (none: every resource someone registered) and what lies below them.
    ///
    /// `progress(checked, changed)` is called after each resource;
    /// stopped, what was refreshed stays refreshed (each resource is its
    /// own transaction) and nothing further is checked.
    #[pyo3(signature = (*names_or_ids, progress=None))]
    fn refresh(names_or_ids: &Bound<'_, PyTuple>, progress: Option<Py<PyAny>>) -> to_py watching progress = {
        let names: Vec<String> = names_or_ids.extract()?;
    } |r, cb| r.refresh(
        &names.iter().map(|k| key(k)).collect::<Result<Vec<_>, _>>()?,
        RefreshOptions { progress: Some(&mut |p| cb.report(p.checked, p.changed)) },
    );

    /// Remove a resource, its links and the discovered resources only it kept.
    ///
    /// `dry_run`: only report what would go. `force`: first destroy the
    /// sandboxes and containers that would refuse it.
    #[pyo3(signature = (name_or_id, *, dry_run=false, force=false))]
    fn remove_resource(name_or_id: String, dry_run: bool, force: bool) -> to_py = |r| {
        let mut options = RemoveOptions::default();
        options.dry_run = dry_run;
        options.force = force;
        r.remove_resource(&key(&name_or_id)?, options)
    };

    /// The handler's description of a resource, or of one file in it.
    #[pyo3(signature = (name_or_id, file=None))]
    fn inspect(name_or_id: String, file: Option<String>) -> to_py =
        |r| r.inspect(&key(&name_or_id)?, file.as_deref());

    /// The DAG below a resource, as `agents resource graph` draws it.
    ///
    /// `format="json"`: the view (`root`, `nodes`, `edges`, `folded`);
    /// `"dot"`, `"mermaid"` or `"svg"`: the drawing as text. Past
    /// `max_children` per resource or `max_nodes` in all, what is not
    /// drawn is folded into a "+N more" of its parent.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (name_or_id, *, format="json", depth=None, type_filter=None, max_children=12, max_nodes=150))]
    fn graph(
        name_or_id: String, format: &str, depth: Option<u32>, type_filter: Option<String>,
        max_children: usize, max_nodes: usize,
    ) -> to_py = {
        let draw: Option<fn(&GraphView) -> String> = match format {
            "json" => None,
            "dot" => Some(resource_host::graph::dot::render),
            "mermaid" => Some(resource_host::graph::mermaid::render),
            "svg" => Some(resource_host::graph::svg::render),
            other => return Err(invalid(format!("format {other:?}: give json, dot, mermaid or svg"))),
        };
        let options = GraphOptions { depth, type_filter, max_children, max_nodes };
    } |r| r.graph(&key(&name_or_id)?, &options).map(|view| match draw {
        None => Drawn::View(view),
        Some(draw) => Drawn::Text(draw(&view)),
    });

    // ---- links ----

    /// Link `child` below `parent`; answers the link.
    fn link_child(parent: String, child: String) -> to_py =
        |r| r.link_child(&key(&parent)?, &key(&child)?);

    /// Remove the link `parent` → `child` (both resources stay).
    fn unlink_child(parent: String, child: String) -> to_py =
        |r| r.unlink_child(&key(&parent)?, &key(&child)?);

    /// The direct children of a resource.
    fn get_children(name_or_id: String) -> to_objects(Object::Resource) =
        |r| r.get_children(&key(&name_or_id)?);

    /// The tree below a resource, `depth` links deep (all when `None`).
    ///
    /// With `type_filter`, only the paths to resources of that type (or
    /// its subtypes). A tree deeper than 60 links is refused
    /// (`InvalidArgumentsError` naming the bound): ask for `depth`.
    #[pyo3(signature = (name_or_id, depth=None, type_filter=None))]
    fn get_resource_tree(name_or_id: String, depth: Option<u32>, type_filter: Option<String>)
        -> to_py = |r| r.get_resource_tree(&key(&name_or_id)?, depth, type_filter.as_deref());

    // ---- plugins ----

    /// Add the WebAssembly component at `path` to the plugin store.
    #[pyo3(signature = (path, *, module=None, replace=false))]
    fn add_plugin(path: PathBuf, module: Option<String>, replace: bool) -> to_py = |r| {
        let mut options = AddPluginOptions::default();
        options.replace = replace;
        options.module = module.as_deref().map(ModuleName::parse).transpose()?;
        r.add_plugin(&path, options)
    };

    /// Install a plugin (and the types it carries) from an OCI registry
    /// (`HOST[:PORT]/REPOSITORY:TAG`, `…@sha256:DIGEST`) or an OCI layout
    /// (`oci-layout:DIR:TAG`); refused without a publisher signature a
    /// trusted key verifies unless `allow_unsigned`.
    #[pyo3(signature = (reference, *, allow_unsigned=false, replace=false))]
    fn install_plugin(reference: String, allow_unsigned: bool, replace: bool) -> to_py = |r| {
        let mut options = InstallPluginOptions::from(reference);
        options.allow_unsigned = allow_unsigned;
        options.replace = replace;
        r.install_plugin(options)
    };

    /// The built-in modules, then the added ones.
    fn list_plugins() -> to_py = |r| r.list_plugins();

    // ---- sandboxes ----

    /// Make a sandbox of a resource (`strategy`: else the resource's, else its type's).
    #[pyo3(signature = (name_or_id, strategy=None))]
    fn create_sandbox(name_or_id: String, strategy: Option<String>) -> to_py = {
        let strategy = strategy.as_deref().map(self::strategy).transpose()?;
    } |r| r.create_sandbox(&key(&name_or_id)?, strategy);

    /// Every sandbox, or one resource's, oldest first.
    #[pyo3(signature = (name_or_id=None))]
    fn list_sandboxes(name_or_id: Option<String>) -> to_py =
        |r| r.list_sandboxes(name_or_id.as_deref().map(key).transpose()?.as_ref());

    /// One sandbox and its checkpoints.
    fn show_sandbox(sandbox_id: String) -> to_py = |r| r.show_sandbox(self::sandbox_id(&sandbox_id)?);

    /// Record the working copy's whole state as the next checkpoint.
    #[pyo3(signature = (sandbox_id, label=None))]
    fn checkpoint_sandbox(sandbox_id: String, label: Option<String>) -> to_py =
        |r| r.checkpoint_sandbox(self::sandbox_id(&sandbox_id)?, label.as_deref());

    /// Bring the working copy back to a checkpoint (number or label; default the latest).
    #[pyo3(signature = (sandbox_id, to=None))]
    fn rollback_sandbox(sandbox_id: String, to: Option<String>) -> to_py =
        |r| r.rollback_sandbox(self::sandbox_id(&sandbox_id)?, to.as_deref());

    /// What changed in the sandbox against the original.
    fn diff_sandbox(sandbox_id: String) -> to_py = |r| r.diff_sandbox(self::sandbox_id(&sandbox_id)?);

    /// Promote the sandbox's changes to the original, all or nothing.
    fn apply_sandbox(sandbox_id: String) -> to_py = |r| r.apply_sandbox(self::sandbox_id(&sandbox_id)?);

    /// Remove everything the sandbox made, and its rows.
    fn destroy_sandbox(sandbox_id: String) -> to_py =
        |r| r.destroy_sandbox(self::sandbox_id(&sandbox_id)?);

    // ---- environments ----

    /// Where a tool acting on a resource runs, and which level decided.
    ///
    /// `tool`: what the tool asks for — `required:container`,
    /// `preferred:container`, `specific:NAME`, or `None`. Nothing is
    /// built or started.
    #[pyo3(signature = (name_or_id, plan=None, tool=None))]
    fn resolve_environment(name_or_id: String, plan: Option<String>, tool: Option<String>) -> to_py = {
        let tool = match tool.as_deref() {
            None | Some("") | Some("none") => ToolRequest::None,
            Some(text) => ToolRequest::parse(text).map_err(invalid)?,
        };
    } |r| r.resolve_environment(&key(&name_or_id)?, plan.as_deref(), &tool);

    // ---- moving data ----

    /// Everything worth moving, as one document (`with_plugins`: each component embedded).
    #[pyo3(signature = (*, with_plugins=false))]
    fn export_document(with_plugins: bool) -> to_py = |r| {
        r.export_document(if with_plugins { ExportOptions::with_plugins() } else { ExportOptions::default() })
    };

    /// Import a document (a dict, or JSON/YAML text); `dry_run` checks and writes nothing.
    #[pyo3(signature = (document, *, dry_run=false))]
    fn import_document(document: &Bound<'_, PyAny>, dry_run: bool) -> to_py = {
        let text: String = match document.cast::<PyString>() {
            Ok(text) => text.extract()?,
            Err(_) => document.py().import("json")?.call_method1("dumps", (document,))?.extract()?,
        };
        let options = if dry_run { ImportOptions::dry_run() } else { ImportOptions::default() };
    } |r| r.import_document(&RegistryDocument::parse(&text)?, options);

    /// Which backend, where, which schema, how much.
    fn info() -> to_py = |r| r.info();

    // ---- the event log ----

    /// The recorded changes, oldest first, as `Event` dicts.
    ///
    /// `since`: an event number (the events after it: keep the last
    /// `seq` seen) or a time (`"2026-12-01"`, `"2026-12-01T08:00:00Z"`:
    /// those at or after it). `resource`: only the events about it (by
    /// name or ULID; a removed one by its old name), `below` its
    /// descendants' too. `limit`: at most this many (default 1000, at
    /// most 10000).
    #[pyo3(signature = (since=None, resource=None, below=false, limit=None))]
    fn events(since: Option<Bound<'_, PyAny>>, resource: Option<String>, below: bool, limit: Option<u32>)
        -> to_py = {
        if below && resource.is_none() {
            return Err(invalid("below=True needs a resource"));
        }
        let since = crate::events::since(since.as_ref())?;
    } |r| r.events(&EventQuery {
        since,
        resource: resource.as_deref().map(key).transpose()?,
        below,
        limit,
        ..EventQuery::default()
    });
}
