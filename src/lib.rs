//! `resource_host`: a resource registry (SQLite) with a sandboxed
//! WebAssembly handler host.
//!
//! Dependencies point one way: `registry` → {`typespec`, `builtin`, `dag`,
//! `store`, `plugin`} → `model` (and `digest`, `effects`, `home`). The `agents` binary is a thin layer over
//! [`registry::Registry`].

pub mod builtin;
pub mod credentials;
pub mod dag;
pub mod devcontainer;
pub mod digest;
pub mod effects;
pub mod front_end;
pub mod git_env;
pub mod graph;
pub mod home;
pub mod machine;
pub mod model;
pub mod natural;
pub mod oci;
pub mod plugin;
mod private_dir;
#[cfg(test)]
mod props;
pub mod registry;
pub mod roots;
pub mod routing;
pub mod sandbox;
pub mod scaffold;
pub mod signing;
pub mod store;
pub mod text;
pub mod typespec;
pub mod user_files;
pub mod yaml_bounds;
