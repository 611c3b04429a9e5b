//! `resource_host._native.Transaction`: a held `transaction_rollback`
//! sandbox (`Registry::open_transaction`), its one connection inside its
//! transaction for as long as the Python object holds it. Every call runs
//! with the GIL released; once applied or discarded the object refuses
//! further work. The package's `Transaction` makes it a context manager.

use crate::convert::to_py;
use crate::errors::{invalid, sandbox_failed};
use pyo3::prelude::*;
use resource_host::sandbox::{SandboxError, SqliteTransaction, TxnCheckpoint};
use std::sync::{Mutex, MutexGuard, PoisonError};

#[pyclass(frozen, module = "resource_host._native", name = "Transaction")]
#[derive(Debug)]
pub struct NativeTransaction {
    /// `None` once applied or discarded.
    txn: Mutex<Option<SqliteTransaction>>,
}

fn checkpoint_view(c: &TxnCheckpoint) -> serde_json::Value {
    serde_json::json!({ "name": c.name, "label": c.label })
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

    /// Run `work` on the open transaction, GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce(&mut SqliteTransaction) -> Result<T, SandboxError> + Send,
    ) -> PyResult<T> {
        let outcome = py.detach(|| {
            let mut guard = self.locked();
            guard.as_mut().map(work)
        });
        match outcome {
            Some(result) => result.map_err(|e| sandbox_failed(&e)),
            None => Err(ended()),
        }
    }
}

fn ended() -> PyErr {
    invalid("the transaction has ended (applied or discarded); open another with open_transaction")
}

#[pymethods]
impl NativeTransaction {
    /// Whether the transaction is still open.
    #[getter]
    fn is_open(&self) -> bool {
        self.locked()
            .as_ref()
            .is_some_and(SqliteTransaction::is_open)
    }

    fn execute(&self, py: Python<'_>, sql: String) -> PyResult<Py<PyAny>> {
        let outcomes = self.with(py, |t| t.execute(&sql))?;
        to_py(py, &outcomes)
    }

    #[pyo3(signature = (label=None))]
    fn checkpoint(&self, py: Python<'_>, label: Option<String>) -> PyResult<String> {
        self.with(py, |t| t.checkpoint(label.as_deref()))
    }

    fn checkpoints(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let views = self.with(py, |t| {
            Ok(t.checkpoints()
                .iter()
                .map(checkpoint_view)
                .collect::<Vec<_>>())
        })?;
        to_py(py, &views)
    }

    #[pyo3(signature = (to=None))]
    fn rollback(&self, py: Python<'_>, to: Option<String>) -> PyResult<Py<PyAny>> {
        let checkpoint = self.with(py, |t| t.rollback(to.as_deref()))?;
        to_py(py, &checkpoint_view(&checkpoint))
    }

    fn changes(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let changes = self.with(py, |t| t.changes())?;
        to_py(py, &changes)
    }

    /// Commit the transaction to the database and end it.
    fn apply(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let outcome = py.detach(|| {
            let mut guard = self.locked();
            let mut txn = guard.take()?;
            Some(txn.apply())
        });
        match outcome {
            Some(Ok(changes)) => to_py(py, &changes),
            Some(Err(e)) => Err(sandbox_failed(&e)),
            None => Err(ended()),
        }
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
