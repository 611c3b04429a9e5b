//! `resource_host._native.Registry`: one method per façade operation the
//! package offers, each parsing its text arguments (names, ids,
//! strategies) as the CLI does, running the operation on a pooled
//! registry with the GIL released (handler calls, git, SQLite and
//! PostgreSQL I/O never hold up other Python threads), and answering the
//! view in its `-o json` form. The keyword names and defaults people see
//! are the package's (`resource_host/_registry.py`).

use crate::convert::to_py;
use crate::errors::{invalid, to_py_err};
use crate::open::Pool;
use crate::progress::Callback;
use crate::transaction::NativeTransaction;
use pyo3::prelude::*;
use resource_host::model::{ModuleName, ResourceKey, SandboxId, SandboxStrategy};
use resource_host::registry::{
    AddPluginOptions, Depth, ExportOptions, GraphOptions, ImportOptions, InstallPluginOptions,
    NewResource, RegisterTypeOptions, Registry, RegistryDocument, RegistryError, RemoveOptions,
    ResourceFilter, ToolRequest,
};
use serde::Serialize;
use std::path::PathBuf;

#[pyclass(frozen, module = "resource_host._native", name = "Registry")]
#[derive(Debug)]
pub struct NativeRegistry {
    pool: Pool,
}

fn key(text: &str) -> Result<ResourceKey, RegistryError> {
    text.parse::<ResourceKey>().map_err(RegistryError::from)
}

fn sandbox_id(text: &str) -> Result<SandboxId, RegistryError> {
    SandboxId::parse(text).map_err(RegistryError::from)
}

impl NativeRegistry {
    /// Run `work` on a registry of the pool with the GIL released, and
    /// answer its view as a Python value.
    fn run<T: Serialize + Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce(&mut Registry) -> Result<T, RegistryError> + Send,
    ) -> PyResult<Py<PyAny>> {
        let view = py.detach(|| self.pool.with(work)).map_err(to_py_err)?;
        to_py(py, &view)
    }

    /// [`run`](Self::run) for an operation that reports progress to the
    /// Python callable `progress` (and stops when it says so).
    fn run_watched<T: Serialize + Send>(
        &self,
        py: Python<'_>,
        progress: Option<Py<PyAny>>,
        work: impl FnOnce(&mut Registry, &mut Callback) -> Result<T, RegistryError> + Send,
    ) -> PyResult<Py<PyAny>> {
        let mut callback = Callback::new(progress);
        let result = py.detach(|| self.pool.with(|r| work(r, &mut callback)));
        let view = callback.finish(result)?;
        to_py(py, &view)
    }
}

#[pymethods]
impl NativeRegistry {
    #[new]
    #[pyo3(signature = (home=None, registry=None, handler_timeout=None, actor=None, roots=None))]
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

    /// The home directory this registry keeps its files in.
    #[getter]
    fn home(&self) -> PathBuf {
        self.pool.home().root().to_path_buf()
    }

    // ---- types ----

    fn bootstrap_builtin_types(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.pool.with(|r| r.bootstrap_builtin_types()))
            .map_err(to_py_err)
    }

    fn register_type(
        &self,
        py: Python<'_>,
        config_path: PathBuf,
        replace: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = if replace {
            RegisterTypeOptions::replacing()
        } else {
            RegisterTypeOptions::default()
        };
        self.run(py, move |r| r.register_type(&config_path, options))
    }

    #[pyo3(signature = (namespace=None))]
    fn list_types(&self, py: Python<'_>, namespace: Option<String>) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.list_types(namespace.as_deref()))
    }

    fn remove_type(&self, py: Python<'_>, name: String) -> PyResult<()> {
        py.detach(|| self.pool.with(|r| r.remove_type(&name)))
            .map_err(to_py_err)
    }

    fn show_type(&self, py: Python<'_>, name: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.show_type(&name))
    }

    fn registration_form_args(&self, py: Python<'_>, type_name: String) -> PyResult<Vec<String>> {
        py.detach(|| self.pool.with(|r| r.registration_form(&type_name)))
            .map(|form| form.args.into_iter().map(|a| a.name).collect())
            .map_err(to_py_err)
    }

    // ---- resources ----

    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (type_name, name, location, args, description, sandbox_strategy, read_only, progress=None))]
    fn register_resource(
        &self,
        py: Python<'_>,
        type_name: String,
        name: Option<String>,
        location: Option<String>,
        args: Vec<(String, String)>,
        description: Option<String>,
        sandbox_strategy: Option<String>,
        read_only: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let mut all = Vec::with_capacity(args.len() + 1);
        if let Some(location) = location {
            all.push((
                resource_host::registry::args::LOCATION_ARG.to_owned(),
                location,
            ));
        }
        all.extend(args);
        let request = NewResource {
            type_name,
            name,
            args: all,
            description,
            sandbox_strategy,
            read_only,
            base_dir: std::env::current_dir().ok(),
        };
        self.run_watched(py, progress, move |r, cb| {
            r.register_resource(
                request,
                resource_host::registry::RegisterOptions {
                    progress: Some(&mut |p| cb.report(p.visited, p.found)),
                },
            )
        })
    }

    #[pyo3(signature = (type_name=None, exact=false))]
    fn list_resources(
        &self,
        py: Python<'_>,
        type_name: Option<String>,
        exact: bool,
    ) -> PyResult<Py<PyAny>> {
        let filter = match (type_name, exact) {
            (None, _) => ResourceFilter::All,
            (Some(t), false) => ResourceFilter::TypeOrSubtype(t),
            (Some(t), true) => ResourceFilter::ExactType(t),
        };
        self.run(py, move |r| r.list_resources(&filter))
    }

    fn show_resource(&self, py: Python<'_>, name_or_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.show_resource(&key(&name_or_id)?))
    }

    fn remove_resource(
        &self,
        py: Python<'_>,
        name_or_id: String,
        dry_run: bool,
        force: bool,
    ) -> PyResult<Py<PyAny>> {
        let mut options = RemoveOptions::default();
        options.dry_run = dry_run;
        options.force = force;
        self.run(py, move |r| r.remove_resource(&key(&name_or_id)?, options))
    }

    #[pyo3(signature = (name_or_id, depth=Some(1), progress=None))]
    fn discover(
        &self,
        py: Python<'_>,
        name_or_id: String,
        depth: Option<u32>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let depth = depth.map_or(Depth::All, Depth::Levels);
        self.run_watched(py, progress, move |r, cb| {
            r.discover(
                &key(&name_or_id)?,
                resource_host::registry::DiscoverOptions {
                    depth,
                    progress: Some(&mut |p| cb.report(p.visited, p.found)),
                },
            )
        })
    }

    #[pyo3(signature = (names_or_ids, progress=None))]
    fn refresh(
        &self,
        py: Python<'_>,
        names_or_ids: Vec<String>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.run_watched(py, progress, move |r, cb| {
            let keys = names_or_ids
                .iter()
                .map(|k| key(k))
                .collect::<Result<Vec<_>, _>>()?;
            r.refresh(
                &keys,
                resource_host::registry::RefreshOptions {
                    progress: Some(&mut |p| cb.report(p.checked, p.changed)),
                },
            )
        })
    }

    #[pyo3(signature = (name_or_id, file=None))]
    fn inspect(
        &self,
        py: Python<'_>,
        name_or_id: String,
        file: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.inspect(&key(&name_or_id)?, file.as_deref()))
    }

    // ---- links ----

    fn link_child(&self, py: Python<'_>, parent: String, child: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.link_child(&key(&parent)?, &key(&child)?))
    }

    fn unlink_child(&self, py: Python<'_>, parent: String, child: String) -> PyResult<()> {
        py.detach(|| {
            self.pool
                .with(|r| r.unlink_child(&key(&parent)?, &key(&child)?))
        })
        .map_err(to_py_err)
    }

    fn get_children(&self, py: Python<'_>, name_or_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.get_children(&key(&name_or_id)?))
    }

    #[pyo3(signature = (name_or_id, depth=None, type_filter=None))]
    fn get_resource_tree(
        &self,
        py: Python<'_>,
        name_or_id: String,
        depth: Option<u32>,
        type_filter: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, |r| {
            r.get_resource_tree(&key(&name_or_id)?, depth, type_filter.as_deref())
        })
    }

    /// The graph below a resource: its view (`format` `json`) or the
    /// drawing (`dot`, `mermaid`, `svg`) as text.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (name_or_id, format, depth, type_filter, max_children, max_nodes))]
    fn graph(
        &self,
        py: Python<'_>,
        name_or_id: String,
        format: String,
        depth: Option<u32>,
        type_filter: Option<String>,
        max_children: usize,
        max_nodes: usize,
    ) -> PyResult<Py<PyAny>> {
        let render: Option<fn(&resource_host::graph::GraphView) -> String> = match format.as_str() {
            "json" => None,
            "dot" => Some(resource_host::graph::dot::render),
            "mermaid" => Some(resource_host::graph::mermaid::render),
            "svg" => Some(resource_host::graph::svg::render),
            other => {
                return Err(invalid(format!(
                    "format {other:?}: give json, dot, mermaid or svg"
                )));
            }
        };
        let options = GraphOptions {
            depth,
            type_filter,
            max_children,
            max_nodes,
        };
        let view = py
            .detach(|| self.pool.with(|r| r.graph(&key(&name_or_id)?, &options)))
            .map_err(to_py_err)?;
        match render {
            None => to_py(py, &view),
            Some(render) => Ok(render(&view).into_pyobject(py)?.into_any().unbind()),
        }
    }

    // ---- plugins ----

    #[pyo3(signature = (path, module=None, replace=false))]
    fn add_plugin(
        &self,
        py: Python<'_>,
        path: PathBuf,
        module: Option<String>,
        replace: bool,
    ) -> PyResult<Py<PyAny>> {
        let mut options = AddPluginOptions::default();
        options.replace = replace;
        options.module = match module {
            Some(m) => Some(ModuleName::parse(&m).map_err(|e| to_py_err(e.into()))?),
            None => None,
        };
        self.run(py, move |r| r.add_plugin(&path, options))
    }

    #[pyo3(signature = (reference, allow_unsigned=false, replace=false))]
    fn install_plugin(
        &self,
        py: Python<'_>,
        reference: String,
        allow_unsigned: bool,
        replace: bool,
    ) -> PyResult<Py<PyAny>> {
        let mut options = InstallPluginOptions::from(reference);
        options.allow_unsigned = allow_unsigned;
        options.replace = replace;
        self.run(py, move |r| r.install_plugin(options))
    }

    fn list_plugins(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.list_plugins())
    }

    // ---- sandboxes ----

    #[pyo3(signature = (name_or_id, strategy=None))]
    fn create_sandbox(
        &self,
        py: Python<'_>,
        name_or_id: String,
        strategy: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let strategy = match strategy {
            Some(s) => Some(SandboxStrategy::parse(&s).ok_or_else(|| {
                let all: Vec<&str> = SandboxStrategy::ALL.iter().map(|s| s.as_str()).collect();
                invalid(format!(
                    "{s:?} is not a sandbox strategy; use one of {}",
                    all.join(", ")
                ))
            })?),
            None => None,
        };
        self.run(py, move |r| r.create_sandbox(&key(&name_or_id)?, strategy))
    }

    #[pyo3(signature = (name_or_id=None))]
    fn list_sandboxes(&self, py: Python<'_>, name_or_id: Option<String>) -> PyResult<Py<PyAny>> {
        self.run(py, move |r| {
            let resource = name_or_id.as_deref().map(key).transpose()?;
            r.list_sandboxes(resource.as_ref())
        })
    }

    fn show_sandbox(&self, py: Python<'_>, sandbox_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.show_sandbox(self::sandbox_id(&sandbox_id)?))
    }

    #[pyo3(signature = (sandbox_id, label=None))]
    fn checkpoint_sandbox(
        &self,
        py: Python<'_>,
        sandbox_id: String,
        label: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, |r| {
            r.checkpoint_sandbox(self::sandbox_id(&sandbox_id)?, label.as_deref())
        })
    }

    #[pyo3(signature = (sandbox_id, to=None))]
    fn rollback_sandbox(
        &self,
        py: Python<'_>,
        sandbox_id: String,
        to: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, |r| {
            r.rollback_sandbox(self::sandbox_id(&sandbox_id)?, to.as_deref())
        })
    }

    fn diff_sandbox(&self, py: Python<'_>, sandbox_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.diff_sandbox(self::sandbox_id(&sandbox_id)?))
    }

    fn apply_sandbox(&self, py: Python<'_>, sandbox_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.apply_sandbox(self::sandbox_id(&sandbox_id)?))
    }

    fn destroy_sandbox(&self, py: Python<'_>, sandbox_id: String) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.destroy_sandbox(self::sandbox_id(&sandbox_id)?))
    }

    #[pyo3(signature = (sandbox_id, input_timeout=None, max_growth_bytes=None))]
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
        let txn = py
            .detach(|| {
                self.pool
                    .with(|r| r.open_transaction(self::sandbox_id(&sandbox_id)?, limits))
            })
            .map_err(to_py_err)?;
        Ok(NativeTransaction::new(txn))
    }

    // ---- environments ----

    #[pyo3(signature = (name_or_id, plan=None, tool=None))]
    fn resolve_environment(
        &self,
        py: Python<'_>,
        name_or_id: String,
        plan: Option<String>,
        tool: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let tool = match tool.as_deref() {
            None | Some("") | Some("none") => ToolRequest::None,
            Some(text) => ToolRequest::parse(text).map_err(invalid)?,
        };
        self.run(py, move |r| {
            r.resolve_environment(&key(&name_or_id)?, plan.as_deref(), &tool)
        })
    }

    // ---- moving data ----

    /// The registry document as JSON text.
    fn export_document(&self, py: Python<'_>, with_plugins: bool) -> PyResult<String> {
        let options = if with_plugins {
            ExportOptions::with_plugins()
        } else {
            ExportOptions::default()
        };
        py.detach(|| self.pool.with(|r| r.export_document(options)))
            .map(|doc| doc.to_json())
            .map_err(to_py_err)
    }

    /// Import a document given as JSON or YAML text.
    fn import_document(&self, py: Python<'_>, text: String, dry_run: bool) -> PyResult<Py<PyAny>> {
        let options = if dry_run {
            ImportOptions::dry_run()
        } else {
            ImportOptions::default()
        };
        self.run(py, move |r| {
            let document = RegistryDocument::parse(&text)?;
            r.import_document(&document, options)
        })
    }

    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.run(py, |r| r.info())
    }
}
