//! The plugin acceptance path: any bytes, as `agents plugin add FILE`
//! (and `agents plugin check`) judge a file before the registry's own
//! rules — `PluginRuntime::accept` (WebAssembly, a component, a served
//! contract version, imports the sandbox satisfies, a sound `describe()`
//! answer), then the refusal of a reserved module name.
//!
//! One runtime (one wasmtime engine, no compile cache on disk) serves the
//! whole run, as `agents plugin check`'s does one file: `accept` keeps
//! nothing of a component once it has answered, so memory stays flat.

#![no_main]

use libfuzzer_sys::fuzz_target;
use resource_host::plugin::{Limits, PluginRuntime};
use std::sync::OnceLock;
use std::time::Duration;

fn runtime() -> &'static PluginRuntime {
    static RUNTIME: OnceLock<PluginRuntime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        PluginRuntime::without_cache(Limits {
            // `describe()` of a mutated component may spin: end it well
            // inside libFuzzer's own timeout.
            timeout: Duration::from_secs(2),
            concurrent_calls: 2,
            ..Limits::default()
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let runtime = runtime();
    match runtime.accept(data) {
        Ok(accepted) => {
            let info = &accepted.info;
            assert!(
                !info.classes.is_empty(),
                "a component with no classes was accepted"
            );
            // `plugin add` refuses a reserved module; the name is checked.
            let _ = info.module.is_reserved();
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
