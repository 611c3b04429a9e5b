//! Refusals into Python exceptions: every `RegistryError` becomes the
//! class of `resource_host.errors` its `ErrorKind` names (a few variants
//! a caller tells apart get a subclass: `CycleError` is the kind's own,
//! `SandboxRefusedError` one variant of `sandbox_failed`), with the
//! CLI's message — the error's cause chain as `agents: error:` prints
//! it, escaped for a terminal since a handler chose some of its words —
//! and the fields an embedder matches on as attributes.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use resource_host::plugin::{CallError, CallErrorKind};
use resource_host::registry::{
    ErrorKind, LinksError, RegistryError, ResourcesError, SandboxesError,
};
use resource_host::text::{error_chain, escape_line};

/// The class of `resource_host.errors` for an error kind.
fn class_of(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::NotFound => "NotFoundError",
        ErrorKind::Exists => "ExistsError",
        ErrorKind::Cycle => "CycleError",
        ErrorKind::IncompatibleLink => "IncompatibleLinkError",
        ErrorKind::InvalidLink => "InvalidLinkError",
        ErrorKind::InvalidArguments => "InvalidArgumentsError",
        ErrorKind::InUse => "InUseError",
        ErrorKind::HandlerFailed => "HandlerError",
        ErrorKind::NotTrusted => "NotTrustedError",
        ErrorKind::SandboxState => "SandboxStateError",
        ErrorKind::SandboxFailed => "SandboxFailedError",
        ErrorKind::ContainerFailed => "ContainerError",
        ErrorKind::NoRoute => "NoRouteError",
        ErrorKind::Conflict => "ConflictError",
        ErrorKind::OtherMachine => "OtherMachineError",
        ErrorKind::OutsideRoots => "OutsideRootsError",
        ErrorKind::Store => "StoreError",
        ErrorKind::Cancelled => "OperationCancelledError",
        _ => "RefusedError",
    }
}

/// The word for what went wrong in a handler call.
fn call_kind(kind: &CallErrorKind) -> &'static str {
    match kind {
        CallErrorKind::Trap(_) => "trap",
        CallErrorKind::Timeout(_) => "timeout",
        CallErrorKind::OutOfMemory { .. } => "out_of_memory",
        CallErrorKind::Handler(_) => "handler",
        CallErrorKind::RefusedResult(_) => "refused_result",
        CallErrorKind::Load(_) => "load",
        CallErrorKind::Sandbox(_) => "sandbox",
    }
}

/// `HandlerError`'s fields: which call failed, and how.
fn call_fields(call: &CallError, fields: &Bound<'_, PyDict>) -> PyResult<()> {
    fields.set_item("module", &call.module)?;
    fields.set_item(
        "class_name",
        (!call.class.is_empty()).then_some(&call.class),
    )?;
    fields.set_item("operation", call.operation.as_str())?;
    fields.set_item("kind", call_kind(&call.kind))
}

/// The Python exception for `err`.
pub fn to_py_err(err: RegistryError) -> PyErr {
    Python::attach(|py| match build(py, &err) {
        Ok(e) | Err(e) => e,
    })
}

fn build(py: Python<'_>, err: &RegistryError) -> PyResult<PyErr> {
    let kind = err.kind();
    let fields = PyDict::new(py);
    let mut class = class_of(kind);
    match err {
        RegistryError::Handler(call) => call_fields(call, &fields)?,
        RegistryError::PluginLoad { module, .. } => {
            fields.set_item("module", module.to_string())?;
        }
        RegistryError::Sandboxes(SandboxesError::SandboxRefused { .. }) => {
            class = "SandboxRefusedError";
        }
        RegistryError::Links(LinksError::Cycle { parent, child }) => {
            fields.set_item("parent", parent)?;
            fields.set_item("child", child)?;
        }
        RegistryError::Links(LinksError::IncompatibleLink { parent, child, .. }) => {
            fields.set_item("parent", parent.to_string())?;
            fields.set_item("child", child.to_string())?;
        }
        RegistryError::Resources(ResourcesError::RefreshCancelled { checked, changed }) => {
            fields.set_item("checked", checked)?;
            fields.set_item("changed", changed)?;
        }
        _ => {}
    }
    let message = escape_line(&error_chain(err)).into_owned();
    raise(py, class, message, kind.as_str(), &fields)
}

/// An exception of `resource_host.errors.<class>` with `message`, its
/// `error_kind` and `fields` set as attributes.
pub fn raise(
    py: Python<'_>,
    class: &str,
    message: String,
    kind: &str,
    fields: &Bound<'_, PyDict>,
) -> PyResult<PyErr> {
    let module = py.import("resource_host.errors")?;
    let exc = module.getattr(class)?.call1((message,))?;
    exc.setattr("error_kind", kind)?;
    for (k, v) in fields.iter() {
        exc.setattr(k.extract::<String>()?.as_str(), v)?;
    }
    Ok(PyErr::from_value(exc))
}

/// A refusal of the binding's own (an argument the library never sees
/// in that form), as `InvalidArgumentsError`.
pub fn invalid(message: impl Into<String>) -> PyErr {
    fieldless(
        "InvalidArgumentsError",
        ErrorKind::InvalidArguments,
        message.into(),
    )
}

/// A failure of a held transaction (its strategy's own error), as
/// `SandboxFailedError`.
pub fn sandbox_failed(err: &resource_host::sandbox::SandboxError) -> PyErr {
    let message = escape_line(&error_chain(err)).into_owned();
    fieldless("SandboxFailedError", ErrorKind::SandboxFailed, message)
}

fn fieldless(class: &str, kind: ErrorKind, message: String) -> PyErr {
    Python::attach(
        |py| match raise(py, class, message, kind.as_str(), &PyDict::new(py)) {
            Ok(e) | Err(e) => e,
        },
    )
}
