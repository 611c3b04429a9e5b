//! The WASM handler host: the only place that touches wasmtime.
//! (Stub: filled in by the plugin work.)
