//! Answers into Python values: a library view goes through its serde
//! form (the field names of the CLI's `-o json`, the specification's) and
//! becomes dicts, lists, strings, numbers, booleans and `None` — the
//! values `json.loads` would give for the same document, built without
//! the text in between. Resources and types become the package's
//! objects (`Resource`, `ResourceType`) built on that same form.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyType};
use serde::Serialize;
use serde_json::Value;

/// `view` as a Python value.
pub fn to_py<T: Serialize + ?Sized>(py: Python<'_>, view: &T) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(view)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    value_to_py(py, &value).map(Bound::unbind)
}

/// One JSON value as a Python value.
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py),
            (None, Some(u)) => u.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let items = items.iter().map(|item| value_to_py(py, item));
            Ok(PyList::new(py, items.collect::<PyResult<Vec<_>>>()?)?.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, value_to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// The two views the package answers as objects: its frozen dataclasses
/// in `resource_host.views`, filled by their `_from_view`.
#[derive(Debug, Clone, Copy)]
pub enum Object {
    Resource,
    ResourceType,
}

static RESOURCE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RESOURCE_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `view` (one, or a list) as `class` objects.
pub fn to_objects<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    class: Object,
    view: &T,
) -> PyResult<Py<PyAny>> {
    let (cell, name) = match class {
        Object::Resource => (&RESOURCE, "Resource"),
        Object::ResourceType => (&RESOURCE_TYPE, "ResourceType"),
    };
    let class = cell.import(py, "resource_host.views", name)?;
    let value = to_py(py, view)?.into_bound(py);
    let object = |v: Bound<'py, PyAny>| class.call_method1("_from_view", (v,));
    match value.cast::<PyList>() {
        Ok(list) => {
            let objects = list.iter().map(object).collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, objects)?.into_any().unbind())
        }
        Err(_) => Ok(object(value)?.unbind()),
    }
}
