//! Open registries for the server's requests: each blocking call takes
//! one (opening another when all are busy) and gives it back, so
//! concurrent requests never share a connection and a long discovery
//! does not hold up a `show`. A registry reads the store at every call,
//! so one kept open sees what other writers did meanwhile.

use super::super::Context;
use super::kinds::Refusal;
use super::roots::Scope;
use resource_host::registry::Registry;
use std::sync::{Arc, Mutex};

/// At most this many idle registries are kept; more are closed.
const KEPT: usize = 4;

#[derive(Debug)]
pub struct Pool {
    ctx: Context,
    idle: Mutex<Vec<Registry>>,
    /// The roots every registry handed out acts in.
    scope: Arc<Scope>,
}

impl Pool {
    pub fn new(ctx: Context, first: Registry, scope: Arc<Scope>) -> Arc<Self> {
        Arc::new(Self {
            ctx,
            idle: Mutex::new(vec![first]),
            scope,
        })
    }

    pub fn scope(&self) -> &Arc<Scope> {
        &self.scope
    }

    /// Run `work` with a registry of its own, blocking this worker only.
    pub async fn with<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Registry) -> Result<T, Refusal> + Send + 'static,
    ) -> Result<T, Refusal> {
        // On this worker, which tokio hands its other tasks off from (a
        // multi-thread runtime): no hop to a blocking thread and back,
        // which was most of a short call's round trip, and still no
        // request waits for another's handler call. A panic is a refusal,
        // as a failed join was.
        tokio::task::block_in_place(|| {
            let mut registry = self.take()?;
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut registry)));
            match outcome {
                Ok(outcome) => {
                    self.give(registry);
                    outcome
                }
                Err(_) => Err(Refusal::internal("the operation failed: it panicked")),
            }
        })
    }

    /// Run `work` with a registry of its own, on this thread (a thread
    /// that is already blocking, such as the watcher's).
    pub fn with_blocking<T>(
        &self,
        work: impl FnOnce(&mut Registry) -> Result<T, Refusal>,
    ) -> Result<T, Refusal> {
        let mut registry = self.take()?;
        let outcome = work(&mut registry);
        self.give(registry);
        outcome
    }

    /// The idle registries, to be closed outside the async runtime (a
    /// registry owns a runtime of its own for handler calls, which must
    /// not be dropped from within another's).
    pub fn drain(&self) -> Vec<Registry> {
        self.idle
            .lock()
            .map(|mut idle| std::mem::take(&mut *idle))
            .unwrap_or_default()
    }

    fn take(&self) -> Result<Registry, Refusal> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut registry = match idle {
            Some(registry) => registry,
            None => self.ctx.open().map_err(Refusal::from)?,
        };
        registry.set_roots(Some(self.scope.now()));
        Ok(registry)
    }

    fn give(&self, registry: Registry) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < KEPT
        {
            idle.push(registry);
        }
    }
}
