//! The integration tests, as one test binary.
//!
//! Each suite is a module in its own file beside this one. One binary
//! instead of one per file: every test binary links the whole host
//! (wasmtime and Cranelift included), so each extra one cost a link and
//! tens of megabytes of disk. `tests/timeouts.rs` stays its own binary: it
//! counts the process's threads and descriptors, which other tests running
//! beside it would change.
//!
//! Run one suite with `cargo test --test integration refresh::`.

mod common;
mod plugin_support;

mod architecture;
mod bounds;
mod builtin_fs;
mod builtin_git;
mod builtin_git_deep;
mod cli_containment;
mod cli_escapes;
mod cli_faults;
mod cli_graph;
mod cli_inputs;
mod cli_plugins;
mod cli_resources;
mod cli_types;
mod compilers;
mod concurrency;
mod contract_versions;
mod crash;
mod credentials;
mod devcontainer;
mod devcontainer_agrees;
mod devcontainer_hostile;
mod devcontainer_lifecycle;
mod devcontainer_resolved;
mod devcontainer_trust;
mod embedding;
mod embedding_trust;
mod environments;
mod equivalence;
mod events;
mod events_follow;
mod exhaustion;
mod git_neutral;
mod load;
mod mcp;
mod ordinary_use;
mod path_keys;
mod placeholders;
mod plugin_check;
mod plugin_faults;
mod plugin_registry;
mod plugin_runtime;
mod plugin_scaffold;
mod provenance;
mod python_plugin;
mod readable_names;
mod refresh;
mod registry_export;
mod registry_files;
mod registry_import_checks;
mod sandboxes;
mod shared_cache;
mod shared_registry;
mod watch;
