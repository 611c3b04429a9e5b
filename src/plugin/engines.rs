//! A runtime's engines, one per [`Compiler`], and the one home of which
//! of them compiles a component: the one its size picks
//! ([`Compiler::for_size`]) unless the runtime forces one.
//!
//! Each engine is made on the first component that needs it (its pool,
//! epoch thread and executor with it), so a process that runs only small
//! components never makes the Winch one. Compiled code is cached per
//! engine (the cache key holds the engine's compatibility digest): a
//! component is looked up under the engine that compiles it.
//!
//! Winch compiles fewer proposals than Cranelift (no tail calls, relaxed
//! SIMD, exceptions, GC or function references, and not every SIMD
//! instruction), so a component Winch refuses to compile is compiled by
//! Cranelift instead — choosing the faster compiler never turns a
//! component Cranelift accepts into a refusal. Before compiling with
//! Winch, a Cranelift entry of the same component (such a fallback's, or a
//! forced runtime's) is used if there is one, so the fallback is paid once.

use super::cache::{CompileCache, LoadOrigin, WasmSource};
use super::engine::{Compiler, EngineState};
use super::error::PluginError;
use super::limits::Limits;
use std::sync::{Arc, OnceLock};
use wasmtime::component::Component;

/// The engines of one runtime.
#[derive(Debug)]
pub(crate) struct Engines {
    /// One per compiler ([`Compiler::index`]), each made on first use.
    made: [OnceLock<Result<Arc<EngineState>, String>>; 2],
    /// The compiler of every component, when one is forced; else each
    /// one's size picks.
    pub forced: Option<Compiler>,
}

/// A compiled (or cached) component and the engine it belongs to.
pub(crate) struct Compiled {
    pub engine: Arc<EngineState>,
    pub component: Component,
    pub origin: LoadOrigin,
}

impl Engines {
    pub fn new() -> Self {
        Self {
            made: [OnceLock::new(), OnceLock::new()],
            forced: None,
        }
    }

    /// Whether no engine has been made yet.
    #[cfg(test)]
    pub fn none_made(&self) -> bool {
        self.made.iter().all(|engine| engine.get().is_none())
    }

    /// The compiler a component of `size` bytes is compiled with.
    pub fn compiler_for(&self, size: u64) -> Compiler {
        self.forced.unwrap_or(Compiler::for_size(size))
    }

    /// The engine of `compiler`, made on first use.
    pub fn get(
        &self,
        compiler: Compiler,
        limits: &Limits,
    ) -> Result<Arc<EngineState>, PluginError> {
        self.made[compiler.index()]
            .get_or_init(|| {
                EngineState::new(limits, compiler)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(PluginError::Engine)
    }

    /// Whether `engine` is one of these (never makes one).
    pub fn owns(&self, engine: &Arc<EngineState>) -> bool {
        matches!(
            self.made[engine.compiler.index()].get(),
            Some(Ok(ours)) if Arc::ptr_eq(ours, engine)
        )
    }

    /// The component `sha256` of `size` bytes, from `cache` or compiled
    /// from `wasm()` (checked by `classify` first) by the engine its size
    /// picks — Cranelift's when Winch cannot compile it.
    pub fn component(
        &self,
        limits: &Limits,
        cache: &CompileCache,
        sha256: &str,
        size: u64,
        wasm: WasmSource<'_>,
        classify: fn(&[u8]) -> Result<(), PluginError>,
    ) -> Result<Compiled, PluginError> {
        let compiler = self.compiler_for(size);
        let engine = self.get(compiler, limits)?;
        if compiler == Compiler::Cranelift || self.forced.is_some() {
            let (component, origin) =
                cache.component(&engine.engine, &engine.compat, sha256, wasm, classify)?;
            return Ok(Compiled {
                engine,
                component,
                origin,
            });
        }
        let cached = |engine: Arc<EngineState>| -> Result<Option<Compiled>, PluginError> {
            Ok(cache
                .lookup(&engine.engine, &engine.compat, sha256)?
                .map(|component| Compiled {
                    engine,
                    component,
                    origin: LoadOrigin::DiskCache,
                }))
        };
        if let Some(found) = cached(engine.clone())? {
            return Ok(found);
        }
        if cache.has_entry_besides(sha256, &engine.compat)
            && let Some(found) = cached(self.get(Compiler::Cranelift, limits)?)?
        {
            return Ok(found);
        }
        match cache.compile(&engine.engine, &engine.compat, sha256, wasm, classify) {
            Ok(component) => Ok(Compiled {
                engine,
                component,
                origin: LoadOrigin::Compiled,
            }),
            Err(PluginError::Invalid(why)) => {
                log::info!(
                    target: "plugin",
                    "Winch cannot compile component sha256:{} ({why}); compiling it with Cranelift",
                    &sha256[..sha256.len().min(12)]
                );
                let engine = self.get(Compiler::Cranelift, limits)?;
                let component =
                    cache.compile(&engine.engine, &engine.compat, sha256, wasm, classify)?;
                Ok(Compiled {
                    engine,
                    component,
                    origin: LoadOrigin::Compiled,
                })
            }
            Err(other) => Err(other),
        }
    }
}
