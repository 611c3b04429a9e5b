//! Open registries for the server's requests, and how many requests run
//! at once.
//!
//! **At most [`Pool::size`] calls at once.** A call takes a permit before
//! it takes a registry; the rest wait for one, at most [`WAIT`], then are
//! refused with kind `busy` (a refusal the client may retry). The size is
//! the machine's: four per core the process may run on, between 4 and 32
//! ([`size_for`]) — calls mostly wait on SQLite, git and handler calls,
//! so a few per core keep the cores busy, and more only multiply what
//! each one holds. Before this bound, 1,000 concurrent calls opened 1,000
//! registries (each its own WebAssembly engine, whose instance pool
//! reserves ~260 GiB of address space) on 1,030 threads, and 449 failed
//! with `mmap failed to reserve`: one call failed because others took the
//! memory.
//!
//! **Registries shared across calls.** Each running call has a registry
//! of its own (a connection, and a handler runtime whose engine is made on
//! its first handler call), so concurrent requests never share a
//! connection and a long discovery does not hold up a `show`; when the
//! call ends the registry goes back idle for the next one, engine and
//! loaded components kept. At most `size` are kept idle, so the server
//! holds at most `size` registries and engines (one more for the
//! watcher's thread), made once each, whatever the load. A registry reads
//! the store at every call, so one kept open sees what other writers did
//! meanwhile.

use super::super::Context;
use super::kinds::Refusal;
use super::roots::Scope;
use resource_host::registry::Registry;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// How long a call waits for a free slot before it is refused as `busy`.
pub const WAIT: Duration = Duration::from_secs(30);

/// Calls run at once on a machine that lets this process run on `cores`.
pub fn size_for(cores: usize) -> usize {
    cores.saturating_mul(4).clamp(4, 32)
}

#[derive(Debug)]
pub struct Pool {
    ctx: Context,
    idle: Mutex<Vec<Registry>>,
    /// The roots every registry handed out acts in.
    scope: Arc<Scope>,
    /// One per call that may run at once.
    slots: Semaphore,
    size: usize,
    wait: Duration,
}

impl Pool {
    pub fn new(ctx: Context, first: Registry, scope: Arc<Scope>) -> Arc<Self> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let size = size_for(cores);
        Arc::new(Self {
            ctx,
            idle: Mutex::new(vec![first]),
            scope,
            slots: Semaphore::new(size),
            size,
            wait: busy_wait(),
        })
    }

    pub fn scope(&self) -> &Arc<Scope> {
        &self.scope
    }

    /// How many calls run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Run `work` with a registry of its own, blocking this worker only,
    /// once one of the [`Pool::size`] slots is free (waiting at most
    /// [`WAIT`]; then refused as `busy`).
    pub async fn with<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Registry) -> Result<T, Refusal> + Send + 'static,
    ) -> Result<T, Refusal> {
        // Waiting holds no thread and no registry: only a running call
        // has either.
        let Ok(Ok(_slot)) = tokio::time::timeout(self.wait, self.slots.acquire()).await else {
            let (size, waited) = (self.size, self.wait.as_secs_f64());
            return Err(Refusal::new(
                "busy",
                format!(
                    "the server is busy: it runs {size} calls at once and none ended in the \
                     {waited} s this one waited; nothing was done, try again"
                ),
            ));
        };
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
        // Every running call holds one registry, so `size` idle ones are
        // all the calls can ever use (the watcher's thread opens one more
        // when they are all busy, closed after).
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < self.size
        {
            idle.push(registry);
        }
    }
}

/// A test seam ([`super::test_seam`]): with
/// `AGENTS_TEST_MCP_BUSY_WAIT_MS` set, a call waits that long for a slot
/// instead of [`WAIT`], so a test sees `busy` without waiting 30 s.
fn busy_wait() -> Duration {
    super::test_seam("AGENTS_TEST_MCP_BUSY_WAIT_MS")
        .and_then(|ms| ms.to_str()?.parse().ok())
        .map_or(WAIT, Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::size_for;

    #[test]
    fn the_pool_is_four_calls_per_core_between_four_and_thirty_two() {
        assert_eq!(size_for(1), 4);
        assert_eq!(size_for(2), 8);
        assert_eq!(size_for(8), 32);
        assert_eq!(size_for(64), 32);
        assert_eq!(size_for(0), 4);
    }
}
