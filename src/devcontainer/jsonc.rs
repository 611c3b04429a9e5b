//! JSON with comments, as `devcontainer.json` is written: the built-in
//! handlers' reader (`plugins/builtin/common/src/jsonc.rs`), compiled in
//! here from that very file, so that detection (inside the WebAssembly
//! sandbox) and activation (here) read a configuration with one parser —
//! and where the Dev Containers CLI could read it otherwise, both refuse
//! (that file's doc says where). Its tests run in both crates.

#[path = "../../plugins/builtin/common/src/jsonc.rs"]
mod shared;

pub use shared::{parse_jsonc, strip_jsonc};
