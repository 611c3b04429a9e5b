//! A wasmtime `Engine` of the runtime (one per [`Compiler`]), its
//! `Linker`, the epoch ticker and the async executor calls run on: the
//! one home of the engine configuration (which also fixes what the
//! compile cache may reuse, through the compatibility hash) and of which
//! compiler a component gets.
//!
//! Each is built only on the first load or call that needs it, so
//! registry commands that never run a handler never pay for one, and a
//! process that runs only small components never makes the Winch one. Deadlines have two halves, because a
//! guest is either computing or waiting on the host:
//!
//! * epoch interruption for guest code: one thread per engine advances the
//!   epoch every [`TICK`], and a call's store traps once its deadline (in
//!   ticks) has passed (the thread holds only a weak reference and ends
//!   when the engine is dropped);
//! * an async timeout for host calls: calls are futures (WASI's async
//!   bindings), run on a small tokio runtime under
//!   `tokio::time::timeout`, so a guest sleeping or polling is abandoned at
//!   the deadline — the future and its `Store` are dropped, nothing keeps
//!   running. Opening a file can no longer block (see `fs_guard`), so no
//!   host call blocks a thread for long.
//!
//! Instances come from a pooling allocator sized by
//! [`Limits::concurrent_calls`]: a call reuses a warm memory slot instead
//! of mapping fresh memory, which is most of a warm call's cost otherwise.
//! A call beyond that many at once on one engine fails to instantiate
//! (reported as a trap naming the pool limit). Each engine has its own
//! pool of that shape: a pool reserves address space, not memory (each
//! memory slot is wasmtime's 4 GiB reservation plus its 32 MiB guard,
//! `PROT_NONE` until used: ~260 GiB of address space per engine with the
//! default 32 calls, of x86_64's 128 TiB), so the Winch engine's pool is
//! not made smaller — a big component may be called as often at once as a
//! small one.

use super::error::PluginError;
use super::limits::Limits;
use super::sandbox::{CallState, MAX_TABLE_ELEMENTS};
use std::hash::{Hash, Hasher};
use std::time::Duration;
use wasmtime::component::Linker;
use wasmtime::{Config, Enabled, Engine, PoolingAllocationConfig, Strategy};

/// Which of wasmtime's compilers turns a component into machine code.
/// A runtime has one engine per compiler, each made on first use, and
/// picks by the component's size ([`Compiler::for_size`]) unless told one
/// ([`PluginRuntime::with_compiler`](super::PluginRuntime::with_compiler)).
/// Winch code checks the same epoch deadlines, runs in a pool of the same
/// shape and traps the same way; the compatibility hash differs, so the
/// two compilers' forms are cached apart and never reused by the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compiler {
    /// Cranelift, the optimising compiler: slower to compile, faster code.
    #[default]
    Cranelift,
    /// Winch, the baseline compiler: one pass per function, ~4× faster to
    /// compile, slower code (docs/benchmarks.md, "Winch against
    /// Cranelift"). Only in a build with this crate's `winch` feature on
    /// x86_64 ([`Compiler::WINCH_AVAILABLE`]); elsewhere an engine forced
    /// to it refuses to start ("winch support not compiled in").
    Winch,
}

impl Compiler {
    /// Whether this build compiles with Winch: the `winch` feature (on by
    /// default) on x86_64, the one target where Winch is Tier 1.
    pub const WINCH_AVAILABLE: bool = cfg!(all(feature = "winch", target_arch = "x86_64"));

    /// Components of at least this many bytes are compiled by Winch where
    /// it is available. Every componentize-py component is over 10 MB
    /// (an interpreter and its standard library; the example is 18.6 MB:
    /// 19 s with Cranelift, 4.3 s with Winch, a warm call 3–4% slower);
    /// Rust ones are under 1 MB and compile in a fraction of a second
    /// with Cranelift, whose faster code they keep.
    pub const WINCH_THRESHOLD: u64 = 4 << 20;

    /// The compiler the host picks for a component of `size` bytes.
    pub const fn for_size(size: u64) -> Self {
        if Self::WINCH_AVAILABLE && size >= Self::WINCH_THRESHOLD {
            Compiler::Winch
        } else {
            Compiler::Cranelift
        }
    }

    /// Its name, as messages and `plugin check` give it.
    pub const fn name(self) -> &'static str {
        match self {
            Compiler::Cranelift => "Cranelift",
            Compiler::Winch => "Winch",
        }
    }

    /// Its place in a per-compiler array.
    pub(crate) const fn index(self) -> usize {
        match self {
            Compiler::Cranelift => 0,
            Compiler::Winch => 1,
        }
    }
}

impl std::fmt::Display for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Bytes at the bottom of each pooled linear memory kept resident between
/// calls (reset with `memset`, or only the dirty pages where the kernel
/// has `PAGEMAP_SCAN`): a Rust guest's stack and data live there, so a
/// warm call takes no page faults for them.
const KEEP_RESIDENT: usize = 2 << 20;

/// Bytes of each pooled table kept resident between calls (reset with
/// `memset`): the whole table. Without it every call's tables were given
/// back with `madvise`, whose TLB shootdowns across the process's threads
/// were half of a trivial call (48 µs → 21–25 µs with it; see the README's
/// figures). A funcref element is at most 16 bytes.
const TABLE_KEEP_RESIDENT: usize = MAX_TABLE_ELEMENTS * 16;

/// Bytes at the top of each pooled async stack kept resident between
/// calls: a call's stack frames live there, so a warm call takes no page
/// faults for them.
const STACK_KEEP_RESIDENT: usize = 256 << 10;

/// How often the epoch advances: the resolution of every timeout.
pub(crate) const TICK: Duration = Duration::from_millis(5);

/// The engine and everything built once from it.
pub(crate) struct EngineState {
    pub engine: Engine,
    /// The compiler it compiles with.
    pub compiler: Compiler,
    pub linker: Linker<CallState>,
    /// Hex digest of the engine's precompile compatibility hash: compiled
    /// code is reused only by an engine with the same digest.
    pub compat: String,
    /// Drives the timers of call timeouts and WASI clocks and the git
    /// processes of host calls; calls run on the calling thread.
    pub executor: tokio::runtime::Runtime,
}

impl std::fmt::Debug for EngineState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineState")
            .field("compiler", &self.compiler)
            .field("compat", &self.compat)
            .finish_non_exhaustive()
    }
}

impl EngineState {
    pub fn new(limits: &Limits, compiler: Compiler) -> Result<Self, PluginError> {
        let fail = |e: wasmtime::Error| PluginError::Engine(format!("{e:#}"));
        let slots = limits.concurrent_calls.max(1);
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(slots)
            .total_core_instances(slots.saturating_mul(16))
            .total_memories(slots.saturating_mul(2))
            .total_tables(slots.saturating_mul(8))
            .max_memories_per_module(4)
            .table_elements(MAX_TABLE_ELEMENTS)
            .max_memory_size(usize::try_from(limits.memory_bytes).unwrap_or(usize::MAX))
            .linear_memory_keep_resident(KEEP_RESIDENT)
            .table_keep_resident(TABLE_KEEP_RESIDENT)
            .pagemap_scan(Enabled::Auto)
            .total_stacks(slots)
            .async_stack_keep_resident(STACK_KEEP_RESIDENT);
        let mut config = Config::new();
        config.strategy(match compiler {
            Compiler::Cranelift => Strategy::Cranelift,
            Compiler::Winch => Strategy::Winch,
        });
        config.epoch_interruption(true);
        config.wasm_component_model(true);
        config.allocation_strategy(pool);
        let engine = Engine::new(&config).map_err(fail)?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(fail)?;
        super::fs_guard::install(&mut linker).map_err(fail)?;
        super::contract::add_to_linker(&mut linker).map_err(fail)?;
        let compat = compat_digest(&engine);
        spawn_ticker(&engine)?;
        let executor = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| PluginError::Engine(format!("cannot start the call executor: {e}")))?;
        Ok(Self {
            engine,
            compiler,
            linker,
            compat,
            executor,
        })
    }
}

impl EngineState {
    /// Run `future` to completion on the calling thread, with the
    /// executor's timers. From inside another tokio runtime (an embedder
    /// calling from async code) it runs on a scoped helper thread instead,
    /// because a runtime cannot block inside another.
    pub fn block_on<F: std::future::Future + Send>(&self, future: F) -> F::Output
    where
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_err() {
            return self.executor.block_on(future);
        }
        std::thread::scope(|scope| {
            scope
                .spawn(|| self.executor.block_on(future))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

/// Ticks from now until `timeout` has surely passed.
pub(crate) fn deadline_ticks(timeout: Duration) -> u64 {
    // +1: the next tick may come at once, so one tick is not a full TICK.
    (timeout.as_nanos().div_ceil(TICK.as_nanos()) as u64).saturating_add(1)
}

/// A stable digest of `precompile_compatibility_hash`. SipHash with fixed
/// keys is deterministic for one build of this binary; if a toolchain
/// change alters it, the cost is a cache miss, never a wrong reuse
/// (wasmtime checks compatibility again when deserializing).
fn compat_digest(engine: &Engine) -> String {
    #[allow(deprecated)]
    let mut hasher = std::hash::SipHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

fn spawn_ticker(engine: &Engine) -> Result<(), PluginError> {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("plugin-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(TICK);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => break,
                }
            }
        })
        .map(drop)
        .map_err(|e| PluginError::Engine(format!("cannot start the epoch thread: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_covers_the_whole_timeout_plus_one_tick() {
        assert_eq!(deadline_ticks(Duration::from_millis(10)), 3);
        assert_eq!(deadline_ticks(Duration::from_millis(11)), 4);
        assert_eq!(deadline_ticks(Duration::ZERO), 1);
    }
}
