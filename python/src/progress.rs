//! A Python progress callback as the library's cancellation point: it is
//! called with two counts after each handler call (with the GIL taken for
//! the call only), and the operation stops when it answers `False` or
//! raises — a registration or discovery then writes nothing, a refresh
//! keeps what it refreshed. An exception the callback raised is what the
//! caller sees, not the library's "cancelled".

use crate::errors::to_py_err;
use pyo3::prelude::*;
use resource_host::registry::RegistryError;
use std::ops::ControlFlow;

pub struct Callback {
    callable: Option<Py<PyAny>>,
    raised: Option<PyErr>,
}

impl Callback {
    pub fn new(callable: Option<Py<PyAny>>) -> Self {
        Self {
            callable,
            raised: None,
        }
    }

    /// Report `(a, b)`; `Break` once the callback answered `False` or
    /// raised (it is not called again).
    pub fn report(&mut self, a: usize, b: usize) -> ControlFlow<()> {
        let Some(callable) = &self.callable else {
            return ControlFlow::Continue(());
        };
        if self.raised.is_some() {
            return ControlFlow::Break(());
        }
        Python::attach(|py| match callable.call1(py, (a, b)) {
            Ok(answer) if matches!(answer.extract::<bool>(py), Ok(false)) => ControlFlow::Break(()),
            Ok(_) => ControlFlow::Continue(()),
            Err(raised) => {
                self.raised = Some(raised);
                ControlFlow::Break(())
            }
        })
    }

    /// The operation's result as Python sees it: the callback's own
    /// exception first, else the library's answer or refusal.
    pub fn finish<T>(self, result: Result<T, RegistryError>) -> PyResult<T> {
        match self.raised {
            Some(raised) => Err(raised),
            None => result.map_err(to_py_err),
        }
    }
}
