//! `resource_host.Transaction`: a held `transaction_rollback` sandbox
//! (`Registry.open_transaction`), its one connection inside its
//! transaction for as long as the Python object holds it, and a context
//! manager whose exit rolls back what was not applied. Every call runs
//! with the GIL released; once applied or discarded the object refuses
//! further work.

use crate::convert::to_py;
use crate::errors::{invalid, sandbox_failed};
use pyo3::prelude::*;
use resource_host::sandbox::{SandboxError, SqliteTransaction};
use serde::Serialize;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A held `transaction_rollback` sandbox (see `Registry.open_transaction`).
///
/// SQL runs inside the sandbox's transaction; statements that would end
/// or escape it (`COMMIT`, `ATTACH`, …) are refused. Other writers wait
/// for the database's lock while it is held; readers see committed data.
#[pyclass(frozen, module = "resource_host", name = "Transaction")]
#[derive(Debug)]
pub struct NativeTransaction {
    /// `None` once applied or discarded.
    txn: Mutex<Option<SqliteTransaction>>,
}

impl NativeTransaction {
    pub fn new(txn: SqliteTransaction) -> Self {
        Self {
            txn: Mutex::new(Some(txn)),
        }
    }

    fn locked(&self) -> MutexGuard<'_, Option<SqliteTransaction>> {
        self.txn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Run `work` on the open transaction, GIL released, answering its
    /// result as a Python value; with `end`, the transaction ends with
    /// this call, whatever its outcome.
    fn with<T: Serialize + Send>(
        &self,
        py: Python<'_>,
        end: bool,
        work: impl FnOnce(&mut SqliteTransaction) -> Result<T, SandboxError> + Send,
    ) -> PyResult<Py<PyAny>> {
        let outcome = py.detach(|| {
            let mut guard = self.locked();
            match end {
                true => guard.take().as_mut().map(work),
                false => guard.as_mut().map(work),
            }
        });
        match outcome {
            Some(result) => to_py(py, &result.map_err(|e| sandbox_failed(&e))?),
            None => Err(ended()),
        }
    }
}

fn ended() -> PyErr {
    invalid("the transaction has ended (applied or discarded); open another with open_transaction")
}

#[pymethods]
impl NativeTransaction {
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Leaving the block rolls back what was not applied.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<()> {
        self.discard(py)
    }

    fn __repr__(&self) -> &'static str {
        if self.is_open() {
            "<Transaction open>"
        } else {
            "<Transaction ended>"
        }
    }

    /// Whether the transaction is still open.
    #[getter]
    fn is_open(&self) -> bool {
        self.locked()
            .as_ref()
            .is_some_and(SqliteTransaction::is_open)
    }

    /// Run one input of SQL (all or nothing); one outcome per statement:
    /// `{"Rows": {"columns", "rows", "truncated"}}` or `{"Changed": n}`.
    fn execute(&self, py: Python<'_>, sql: String) -> PyResult<Py<PyAny>> {
        self.with(py, false, |t| t.execute(&sql))
    }

    /// Record a checkpoint (a savepoint); answers its name.
    #[pyo3(signature = (label=None))]
    fn checkpoint(&self, py: Python<'_>, label: Option<String>) -> PyResult<Py<PyAny>> {
        self.with(py, false, |t| t.checkpoint(label.as_deref()))
    }

    /// The checkpoints so far: `name` and `label` of each.
    fn checkpoints(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(py, false, |t| Ok(t.checkpoints().to_vec()))
    }

    /// Back to a checkpoint (its name or label; default the latest).
    #[pyo3(signature = (to=None))]
    fn rollback(&self, py: Python<'_>, to: Option<String>) -> PyResult<Py<PyAny>> {
        self.with(py, false, |t| t.rollback(to.as_deref()))
    }

    /// What the transaction changed so far: rows per table and schema changes.
    fn changes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(py, false, |t| t.changes())
    }

    /// Commit to the database and end the transaction; answers what it changed.
    fn apply(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.with(py, true, |t| t.apply())
    }

    /// Roll everything back and end the transaction; a no-op once ended.
    fn discard(&self, py: Python<'_>) -> PyResult<()> {
        let outcome = py.detach(|| self.locked().take().map(SqliteTransaction::discard));
        match outcome {
            Some(Err(e)) => Err(sandbox_failed(&e)),
            _ => Ok(()),
        }
    }
}
