//! `resource_host`: a resource registry (SQLite) with a sandboxed
//! WebAssembly handler host.
//!
//! Dependencies point one way: `registry` → {`typespec`, `builtin`, `dag`,
//! `store`, `plugin`} → `model` (and `digest`, `effects`, `home`). The `agents` binary is a thin layer over
//! [`registry::Registry`].

mod atomic;
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
pub(crate) mod store;
pub mod text;
pub mod typespec;
pub mod user_files;
pub mod yaml_bounds;

/// Where a registry lives (a SQLite file or a PostgreSQL schema): all an
/// embedder needs of the store, which is otherwise the registry's alone
/// (only `store` writes SQL, and only `registry` calls it).
pub use store::{RegistryLocation, StoreError};

/// Hooks for tests and fuzz targets outside the crate (feature
/// `test-support`): a throwaway PostgreSQL schema per test.
#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    pub use crate::store::testing::*;
}
