//! Refusals into Python exceptions: every `RegistryError` becomes the
//! class of `resource_host.errors` its `ErrorKind` names (a few variants
//! a caller tells apart get a subclass: `CycleError` is the kind's own,
//! `SandboxRefusedError` one variant of `sandbox_failed`), with the
//! CLI's message — the error's cause chain as `agents: error:` prints
//! it, escaped for a terminal since a handler chose some of its words —
//! and the fields an embedder matches on as attributes.

use pyo3::prelude::*;
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

/// `HandlerError`'s attributes: which call failed, and how.
fn call_fields(call: &CallError, exc: &Bound<'_, PyAny>) -> PyResult<()> {
    exc.setattr("module", &call.module)?;
    exc.setattr(
        "class_name",
        (!call.class.is_empty()).then_some(&call.class),
    )?;
    exc.setattr("operation", call.operation.as_str())?;
    exc.setattr("kind", call_kind(&call.kind))
}

/// The Python exception for `err`.
pub fn to_py_err(err: RegistryError) -> PyErr {
    let kind = err.kind();
    let class = match &err {
        RegistryError::Sandboxes(SandboxesError::SandboxRefused { .. }) => "SandboxRefusedError",
        _ => class_of(kind),
    };
    let message = escape_line(&error_chain(&err)).into_owned();
    raise(class, kind, message, |exc| match &err {
        RegistryError::Handler(call) => call_fields(call, exc),
        RegistryError::PluginLoad { module, .. } => exc.setattr("module", module.to_string()),
        RegistryError::Links(LinksError::Cycle { parent, child }) => {
            exc.setattr("parent", parent)?;
            exc.setattr("child", child)
        }
        RegistryError::Links(LinksError::IncompatibleLink { parent, child, .. }) => {
            exc.setattr("parent", parent.to_string())?;
            exc.setattr("child", child.to_string())
        }
        RegistryError::Resources(ResourcesError::RefreshCancelled { checked, changed }) => {
            exc.setattr("checked", checked)?;
            exc.setattr("changed", changed)
        }
        _ => Ok(()),
    })
}

/// An exception of `resource_host.errors.<class>` with `message`, its
/// `error_kind`, and the attributes `fields` sets on it.
fn raise(
    class: &str,
    kind: ErrorKind,
    message: String,
    fields: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<()>,
) -> PyErr {
    Python::attach(|py| {
        let made = || -> PyResult<PyErr> {
            let module = py.import("resource_host.errors")?;
            let exc = module.getattr(class)?.call1((message,))?;
            exc.setattr("error_kind", kind.as_str())?;
            fields(&exc)?;
            Ok(PyErr::from_value(exc))
        };
        made().unwrap_or_else(|failed| failed)
    })
}

/// A refusal of the binding's own (an argument the library never sees
/// in that form), as `InvalidArgumentsError`.
pub fn invalid(message: impl Into<String>) -> PyErr {
    let kind = ErrorKind::InvalidArguments;
    raise("InvalidArgumentsError", kind, message.into(), |_| Ok(()))
}

/// A failure of a held transaction (its strategy's own error), as
/// `SandboxFailedError`.
pub fn sandbox_failed(err: &resource_host::sandbox::SandboxError) -> PyErr {
    let message = escape_line(&error_chain(err)).into_owned();
    raise(
        "SandboxFailedError",
        ErrorKind::SandboxFailed,
        message,
        |_| Ok(()),
    )
}
