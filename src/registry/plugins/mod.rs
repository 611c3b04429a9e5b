//! Plugins: the one home of the plugin store's operations — add, list,
//! show, remove, check, and distribution through OCI registries. Each
//! room below holds its public operations and their work:
//!
//! | room | holds |
//! |---|---|
//! | `plugin_store` | `agents plugin list/show/remove`, and the plugin views |
//! | `plugin_add` | the one write path of a module: `plugin add`, `install`, `update` |
//! | `plugin_check` | accepting a plugin file: `plugin add`'s checks, and `agents plugin check` |
//! | `carried_types` | the type files a plugin carries, registered with it |
//! | `handlers` | which handler a type has, and calling it for a resource |
//! | `distribution` | plugins through OCI registries: push, install, lock, update, keys |

pub(super) mod carried_types;
pub(super) mod distribution;
pub(super) mod handlers;
pub(super) mod plugin_add;
pub(super) mod plugin_check;
pub(super) mod plugin_store;
