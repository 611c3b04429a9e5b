//! The event log from Python: `Registry.events(…)` (in `registry.rs`)
//! answers a list of `Event` dicts; `Registry.follow_events(…)` answers an
//! [`EventStream`], an endless iterator over the events that land from any
//! process on the same registry (`resource_host::registry::EventFollower`:
//! PostgreSQL's `LISTEN`, else a poll of the last number).
//!
//! The stream keeps a registry of its own (not the pool's), and waits with
//! the GIL released in short turns, looking for Python's signals between
//! them, so Ctrl-C (`KeyboardInterrupt`) ends a `for` loop over it.

use crate::convert::to_py;
use crate::errors::{invalid, to_py_err};
use pyo3::prelude::*;
use pyo3::types::PyString;
use resource_host::registry::{Event, EventFollower, Registry, Since};
use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long one wait lasts before Python's signals are looked at.
const TURN: Duration = Duration::from_millis(200);

/// `since=`: an event number (the events after it) or a time (text:
/// `2026-12-01`, `2026-12-01T08:00:00Z`).
pub fn since(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Since>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(text) = value.cast::<PyString>() {
        return Since::parse(&text.to_cow()?)
            .map(Some)
            .map_err(|e| invalid(e.to_string()));
    }
    match value.extract::<i64>() {
        Ok(n) if n >= 0 => Ok(Some(Since::Seq(n))),
        _ => Err(invalid(format!(
            "since must be an event number (0 or more) or a time, not {}",
            value.repr()?
        ))),
    }
}

/// What a stream holds between two `next` calls.
#[derive(Debug)]
struct Following {
    registry: Registry,
    follower: EventFollower,
    ready: VecDeque<Event>,
}

/// The events that land, one at a time, as they do: an iterator that
/// never ends by itself (break out of the loop, or Ctrl-C).
#[pyclass(frozen, module = "resource_host", name = "EventStream")]
#[derive(Debug)]
pub struct EventStream {
    inner: Mutex<Following>,
}

impl EventStream {
    pub fn new(registry: Registry, follower: EventFollower) -> Self {
        Self {
            inner: Mutex::new(Following {
                registry,
                follower,
                ready: VecDeque::new(),
            }),
        }
    }

    fn locked(&self) -> MutexGuard<'_, Following> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl EventStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next event (an `Event` dict), waiting for one as long as it
    /// takes.
    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        loop {
            let next = py.detach(|| {
                let mut inner = self.locked();
                if inner.ready.is_empty() {
                    let Following {
                        registry,
                        follower,
                        ready,
                    } = &mut *inner;
                    ready.extend(follower.next_batch(registry, TURN)?);
                }
                Ok(inner.ready.pop_front())
            });
            if let Some(event) = next.map_err(to_py_err)? {
                return to_py(py, &event);
            }
            py.check_signals()?;
        }
    }

    /// The number of the last event this stream has looked past.
    #[getter]
    fn last_seq(&self) -> i64 {
        self.locked().follower.last_seq()
    }
}
