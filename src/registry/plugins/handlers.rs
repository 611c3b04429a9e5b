//! Handlers for resources: which component a type's `module:Class`
//! resolves to (a built-in one embedded in the binary, or one from the
//! plugin store, verified against its recorded sha256), the rule that a
//! type may only name a handler that exists, and calling it for a
//! resource — what the sandbox of a call may see, and how a resource is
//! shown to a handler.
//!
//! **Handlers compute; the host decides.** Every call runs outside any
//! write transaction, in a fresh sandbox that sees only the resource's
//! location, read-only (none of these operations writes). What a handler
//! answers is checked (`plugin` bounds it, `children` applies the DAG and
//! discovery rules) before anything is written.

use super::plugin_store::find_plugin;
use crate::model::{HandlerRef, ResolvedType};
use crate::plugin::{
    CallError, CallErrorKind, ComponentSource, Discovered, Grant, HandlerError, Inspected,
    LoadOrigin, LoadedModule, PluginFiles, PluginRuntime, ResourceView, builtin_component,
};
use crate::registry::PluginsError;
use crate::registry::{Registry, RegistryError, args};
use crate::store::ResourceRow;

/// The plugin runtime (built-in handlers run in every registry), and the
/// plugin store's files when the registry lives in a home.
#[derive(Debug)]
pub(crate) struct Plugins {
    pub runtime: PluginRuntime,
    pub files: Option<PluginFiles>,
}

impl Plugins {
    pub fn files(&self, what: &'static str) -> Result<&PluginFiles, RegistryError> {
        self.files
            .as_ref()
            .ok_or(PluginsError::NoPluginStore(what).into())
    }
}

/// A handler ready to call: the loaded component and the class.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub reference: HandlerRef,
    pub module: LoadedModule,
}

impl Handler {
    fn class(&self) -> &str {
        self.reference.class.as_str()
    }
}

impl Registry {
    /// The loaded handler of `ty`, or `None` when it has none — or names a
    /// built-in module that is not in this build (logged).
    pub(crate) fn handler_for(&self, ty: &ResolvedType) -> Result<Option<Handler>, RegistryError> {
        let Some(reference) = ty.handler_ref() else {
            return Ok(None);
        };
        let module = &reference.module;
        let (row, path);
        let source = if module.is_reserved() {
            let Some(bytes) = builtin_component(module) else {
                log::info!(
                    "built-in handler module {module} is not in this build; {} runs without \
                     its handler (no validation or discovery by it)",
                    ty.name
                );
                return Ok(None);
            };
            ComponentSource::Embedded { module, bytes }
        } else {
            row = self.store.read(|r| find_plugin(r, module))?;
            let files = self.plugins.files("cannot run a plugin handler")?;
            path = self.local_component(files, &row)?;
            ComponentSource::Stored {
                module,
                path: &path,
                sha256: &row.sha256,
            }
        };
        let loaded = self
            .plugins
            .runtime
            .load(source)
            .map_err(RegistryError::plugin_load(module))?;
        log::debug!(
            "handler module {module} {} ({} code)",
            match loaded.origin() {
                LoadOrigin::Compiled => "compiled (and written to the compile cache)",
                LoadOrigin::DiskCache => "loaded from the compile cache",
                LoadOrigin::Memory => "already loaded in this process",
            },
            loaded.compiler()
        );
        Ok(Some(Handler {
            reference: reference.clone(),
            module: loaded,
        }))
    }

    /// The handler of `row`'s type, or why there is none to `action` with.
    pub(crate) fn require_handler(
        &self,
        ty: &ResolvedType,
        row: &ResourceRow,
        action: &'static str,
    ) -> Result<Handler, RegistryError> {
        self.handler_for(ty)?
            .ok_or_else(|| no_handler(ty, row, action))
    }

    /// One operation's git snapshot (see [`PluginRuntime::git_snapshot`]):
    /// its calls ask each repository-wide question once.
    pub(crate) fn git_snapshot(&self) -> crate::plugin::GitSnapshot {
        self.plugins.runtime.git_snapshot()
    }

    fn runtime(&self) -> &PluginRuntime {
        &self.plugins.runtime
    }

    /// `validate` with `row`'s arguments (its location as `path`); the
    /// properties it answers, as text.
    pub(crate) fn call_validate(
        &self,
        handler: &Handler,
        row: &ResourceRow,
    ) -> Result<Vec<(String, String)>, RegistryError> {
        self.check_machine(row, "its handler (validate)")?;
        let mut args = view(row).properties;
        if let Some(location) = &row.location {
            args.insert(0, (args::LOCATION_ARG.to_owned(), location.clone()));
        }
        log::debug!("{} validate {}", handler.reference, row.type_name);
        Ok(self
            .runtime()
            .validate(&handler.module, handler.class(), &args, &grant(row))?)
    }

    /// `discover` for `row`; an `unsupported` answer is no children.
    pub(crate) fn call_discover(
        &self,
        handler: &Handler,
        row: &ResourceRow,
    ) -> Result<Vec<Discovered>, RegistryError> {
        self.check_machine(row, "discovery")?;
        let runtime = self.runtime();
        let found = runtime.discover(&handler.module, handler.class(), &view(row), &grant(row));
        optional(found).map(Option::unwrap_or_default)
    }

    /// `content-hash` for `row`; an `unsupported` answer is no hash.
    pub(crate) fn call_content_hash(
        &self,
        handler: &Handler,
        row: &ResourceRow,
    ) -> Result<Option<String>, RegistryError> {
        self.check_machine(row, "its handler (content-hash)")?;
        let runtime = self.runtime();
        optional(runtime.content_hash(&handler.module, handler.class(), &view(row), &grant(row)))
    }

    /// `inspect` for `row`, or one file in it.
    pub(crate) fn call_inspect(
        &self,
        handler: &Handler,
        row: &ResourceRow,
        file: Option<&str>,
    ) -> Result<Inspected, RegistryError> {
        self.check_machine(row, "its handler (inspect)")?;
        Ok(self.runtime().inspect(
            &handler.module,
            handler.class(),
            &view(row),
            file,
            &grant(row),
        )?)
    }
}

/// An operation the handler was entitled to decline (`unsupported`)
/// becomes `None`.
fn optional<T>(answer: Result<T, CallError>) -> Result<Option<T>, RegistryError> {
    match answer {
        Ok(value) => Ok(Some(value)),
        Err(e) if matches!(e.kind, CallErrorKind::Handler(HandlerError::Unsupported(_))) => {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// What a call on `row` is granted: its location, read-only; with none,
/// a resource a person registered with a `url` (a remote `git`) has its
/// git questions asked of that URL.
fn grant(row: &ResourceRow) -> Grant {
    match &row.location {
        Some(location) => Grant::read_only(location),
        None => match row
            .properties
            .get("url")
            .and_then(serde_json::Value::as_str)
        {
            Some(url) if !row.auto_discovered => Grant::remote(url),
            _ => Grant::none(),
        },
    }
}

/// `row` as a handler sees it.
fn view(row: &ResourceRow) -> ResourceView {
    ResourceView {
        id: row.id.to_string(),
        name: row.name.as_ref().map(ToString::to_string),
        type_name: row.type_name.to_string(),
        location: row.location.clone(),
        properties: row
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), args::render(v)))
            .collect(),
    }
}

/// The refusal for `action` on `row`, whose type `ty` has no handler to
/// run.
pub(crate) fn no_handler(
    ty: &ResolvedType,
    row: &ResourceRow,
    action: &'static str,
) -> RegistryError {
    PluginsError::NoHandler {
        resource: row.label(),
        type_name: ty.name.clone(),
        action,
        reason: match ty.handler_ref() {
            Some(h) => crate::registry::NoHandlerReason::BuiltinNotInBuild(h.clone()),
            None => crate::registry::NoHandlerReason::TypeNamesNone,
        },
    }
    .into()
}
