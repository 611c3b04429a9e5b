//! The Rust half of the Python package `resource_host`: the registry's
//! façade (`resource_host::registry::Registry`) as the extension module
//! `resource_host._native`, whose `Registry` and `Transaction` are the
//! package's public classes (re-exported by `resource_host/__init__.py`,
//! typed by `_native.pyi`). It owns how a Python call reaches the library
//! — its signature, which registry it runs on, with the GIL released —
//! and how the answer and the refusals come back: views as plain Python
//! values in their `-o json` form (resources and types as the objects of
//! `resource_host/views.py`), refusals as the classes of
//! `resource_host.errors` with the CLI's words. Python code is only where
//! Python adds something: those objects and the error classes.

// The closures run on a registry answer the library's own `RegistryError`
// (≥ 128 bytes) as it is: it becomes a Python exception at once.
#![allow(clippy::result_large_err)]

use pyo3::prelude::*;

mod args;
mod convert;
mod errors;
mod events;
mod open;
mod progress;
mod registry;
mod transaction;

#[pymodule(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<registry::NativeRegistry>()?;
    m.add_class::<transaction::NativeTransaction>()?;
    m.add_class::<events::EventStream>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
