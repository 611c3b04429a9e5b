//! Accepting and loading a component: the bytes classified, compiled
//! (or read from the compile cache) by the compiler their size picks,
//! bound to the contract version the component exports, its imports
//! checked and `describe()` answered; a component already loaded under
//! the same name and hash is reused.

use super::{Accepted, ComponentSource, Loaded, LoadedModule, PluginRuntime};
use crate::digest::sha256_hex;
use crate::model::ModuleName;
use crate::plugin::cache::{LoadOrigin, WasmSource};
use crate::plugin::contract::{Answer, Call, HandlerPre};
use crate::plugin::engine::EngineState;
use crate::plugin::engines::Compiled;
use crate::plugin::error::{CallError, CallErrorKind, PluginError};
use crate::plugin::files::{CheckedFile, check_stored, read_verified};
use crate::plugin::sandbox::Label;
use crate::plugin::types::{Operation, PluginInfo};
use crate::plugin::version::ContractVersion;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};
use wasmtime::component::Component;

/// A component compiled and bound to its contract version.
struct Prepared {
    pre: HandlerPre,
    origin: LoadOrigin,
    engine: Arc<EngineState>,
    imports: Vec<String>,
    compile_time: Duration,
}

impl PluginRuntime {
    /// For `agents plugin add` and `check`: is `wasm` a component of a
    /// served contract version whose imports the sandbox satisfies, and
    /// what does its `describe()` answer? Compiles it into the cache (if
    /// the runtime has one), so the first real load is fast.
    pub fn accept(&self, wasm: &[u8]) -> Result<Accepted, PluginError> {
        let sha256 = sha256_hex(wasm);
        let anonymous = format!("sha256:{}", &sha256[..12]);
        let size = wasm.len() as u64;
        let prepared = self.prepare(&|| Ok(Cow::Borrowed(wasm)), &sha256, size, false)?;
        let info = self.call_describe(&prepared.pre, &prepared.engine, &anonymous)?;
        Ok(Accepted {
            sha256,
            info,
            imports: prepared.imports,
            compile_time: prepared.compile_time,
            origin: prepared.origin,
            compiler: prepared.engine.compiler,
        })
    }

    /// [`accept`](Self::accept)'s `describe()` answer alone.
    pub fn describe(&self, wasm: &[u8]) -> Result<PluginInfo, PluginError> {
        self.accept(wasm).map(|a| a.info)
    }

    /// Compile (or load from the on-disk cache) and prepare a component;
    /// a component already loaded under the same name and hash is reused.
    pub fn load(&self, source: ComponentSource<'_>) -> Result<LoadedModule, PluginError> {
        let (pre, origin, engine, module, sha256) = match source {
            ComponentSource::Embedded { module, bytes } => {
                let key = (module.clone(), "embedded".to_owned());
                if let Some(m) = self.reuse(&key) {
                    return Ok(m);
                }
                let sha256 = sha256_hex(bytes);
                let Prepared {
                    pre,
                    origin,
                    engine,
                    ..
                } = self.prepare(
                    &|| Ok(Cow::Borrowed(bytes)),
                    &sha256,
                    bytes.len() as u64,
                    true,
                )?;
                (pre, origin, engine, module, sha256)
            }
            ComponentSource::Stored {
                module,
                path,
                sha256,
            } => {
                if let Some(m) = self.reuse(&(module.clone(), sha256.to_owned())) {
                    return Ok(m);
                }
                // The file is checked (tampering refused) whether or not
                // its compiled form is cached; it is read only when it
                // must be compiled, or when its seal did not vouch for it.
                let CheckedFile { size, bytes } = check_stored(path, sha256)?;
                let wasm = || match &bytes {
                    Some(bytes) => Ok(Cow::Borrowed(bytes.as_slice())),
                    None => read_verified(path, sha256).map(Cow::Owned),
                };
                let Prepared {
                    pre,
                    origin,
                    engine,
                    ..
                } = self.prepare(&wasm, sha256, size, false)?;
                (pre, origin, engine, module, sha256.to_owned())
            }
        };
        let info = self.call_describe(&pre, &engine, module.as_str())?;
        let loaded = LoadedModule(Arc::new(Loaded {
            module: module.clone(),
            sha256: sha256.clone(),
            info,
            origin,
            pre,
            engine,
        }));
        let key = match source {
            ComponentSource::Embedded { .. } => (module.clone(), "embedded".to_owned()),
            ComponentSource::Stored { .. } => (module.clone(), sha256),
        };
        self.loaded_map().insert(key, loaded.clone());
        Ok(loaded)
    }

    fn loaded_map(&self) -> std::sync::MutexGuard<'_, HashMap<(ModuleName, String), LoadedModule>> {
        self.loaded.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn reuse(&self, key: &(ModuleName, String)) -> Option<LoadedModule> {
        let found = self.loaded_map().get(key)?.0.clone();
        Some(LoadedModule(Arc::new(Loaded {
            origin: LoadOrigin::Memory,
            ..(*found).clone()
        })))
    }

    /// Classify, compile with the compiler its `size` picks (or read the
    /// cache: the shared one for a built-in, `embedded`; see `engines`),
    /// find the contract version it was built for, and build the
    /// `InstancePre`.
    fn prepare(
        &self,
        wasm: WasmSource<'_>,
        sha256: &str,
        size: u64,
        embedded: bool,
    ) -> Result<Prepared, PluginError> {
        // A figure for people (`plugin check`), not a decision: the
        // process clock is fine here.
        let started = Instant::now();
        let Compiled {
            engine: state,
            component,
            origin,
        } = self.engines.component(
            &self.limits,
            self.cache_for(embedded),
            sha256,
            size,
            wasm,
            classify,
        )?;
        let compile_time = started.elapsed();
        if origin == LoadOrigin::Compiled {
            log::debug!(
                target: "plugin",
                "compiled component sha256:{} ({size} bytes) with {} in {compile_time:.1?}",
                &sha256[..sha256.len().min(12)],
                state.compiler
            );
        }
        let version = contract_version(&state, &component)?;
        let imports = component
            .component_type()
            .imports(&state.engine)
            .map(|(name, _)| name.to_owned())
            .collect();
        let pre = state
            .linker
            .instantiate_pre(&component)
            .map_err(|e| PluginError::Imports(format!("{e:#}")))?;
        Ok(Prepared {
            pre: HandlerPre::new(version, pre)?,
            origin,
            engine: state,
            imports,
            compile_time,
        })
    }

    fn call_describe(
        &self,
        pre: &HandlerPre,
        engine: &Arc<EngineState>,
        module: &str,
    ) -> Result<PluginInfo, PluginError> {
        let label = Label {
            module: module.to_owned(),
            class: String::new(),
            operation: Operation::Describe,
        };
        let answer = self.run(
            pre,
            engine,
            &label,
            &crate::plugin::Grant::none(),
            Call::Describe,
        )?;
        let Answer::Info(info) = answer else {
            unreachable!("describe answers plugin-info")
        };
        crate::plugin::answer::plugin_info(info, pre.version(), &self.limits.answer).map_err(
            |why| {
                let refused = CallError {
                    module: label.module.clone(),
                    class: String::new(),
                    operation: Operation::Describe,
                    kind: CallErrorKind::RefusedResult(Box::new(why.clone())),
                };
                log::debug!(target: "plugin", "{refused}");
                PluginError::Describe(why)
            },
        )
    }
}

/// Refuse bytes that are not a WebAssembly component before compiling.
fn classify(wasm: &[u8]) -> Result<(), PluginError> {
    if wasm.len() < 8 || &wasm[..4] != b"\0asm" {
        return Err(PluginError::NotWasm);
    }
    // Bytes 4..8: version and layer; layer 0 is a core module, 1 a component.
    if wasm[6..8] == [0, 0] {
        return Err(PluginError::CoreModule);
    }
    Ok(())
}

/// The contract version whose `handler` the component exports.
fn contract_version(
    state: &EngineState,
    component: &Component,
) -> Result<ContractVersion, PluginError> {
    let ty = component.component_type();
    let found: Vec<String> = ty
        .exports(&state.engine)
        .map(|(n, _)| n.to_owned())
        .collect();
    ContractVersion::of_exports(&found).ok_or(PluginError::WrongWorld { found })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_core_modules_are_told_apart_from_components() {
        assert!(matches!(
            classify(b"hello world"),
            Err(PluginError::NotWasm)
        ));
        assert!(matches!(
            classify(b"\0asm\x01\0\0\0"),
            Err(PluginError::CoreModule)
        ));
        assert!(classify(b"\0asm\x0d\0\x01\0").is_ok());
    }
}
