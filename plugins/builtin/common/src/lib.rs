//! What the built-in handler components share (linked into each; not a
//! component itself).

pub mod devcontainer;
pub mod jsonc;
