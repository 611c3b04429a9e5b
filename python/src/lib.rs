//! The Rust half of the Python package `resource_host`: the registry's
//! façade (`resource_host::registry::Registry`) as the private extension
//! module `resource_host._native`. It owns how a Python call reaches the
//! library — which registry it runs on, with the GIL released — and how
//! the answer and the refusals come back: views as plain Python values in
//! their `-o json` form, refusals as the classes of
//! `resource_host.errors` with the CLI's words. The objects people use
//! (`Resource`, `ResourceType`, `Registry`'s signatures) are built on
//! this in the package's Python half.

// The closures run on a registry answer the library's own `RegistryError`
// (≥ 128 bytes) as it is: it becomes a Python exception at once.
#![allow(clippy::result_large_err)]

use pyo3::prelude::*;

mod convert;
mod errors;
mod open;
mod progress;
mod registry;
mod transaction;

#[pymodule(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<registry::NativeRegistry>()?;
    m.add_class::<transaction::NativeTransaction>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
