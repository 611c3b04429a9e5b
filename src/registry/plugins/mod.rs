//! Plugins: the one home of the plugin store's operations — add, list,
//! show, remove, check, and distribution through OCI registries. The
//! public operations are here; the rooms below keep the work:
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

use super::{AddPluginOptions, PluginView, Registry, RegistryError};
use crate::model::ModuleName;
use std::path::Path;

impl Registry {
    /// Add the component at `path` to the plugin store (`agents plugin add`).
    /// It must be a component of a contract version this host serves whose
    /// `describe()` answers; it is registered under
    /// [`AddPluginOptions::module`] if given, else under the module name it
    /// reports. An added module is refused unless
    /// [`replace`](AddPluginOptions::replace); a replacement must still
    /// export every class a type uses.
    pub fn add_plugin(
        &mut self,
        path: &Path,
        options: AddPluginOptions,
    ) -> Result<PluginView, RegistryError> {
        plugin_add::add_plugin(self, path, options)
    }

    /// The built-in modules (when the registry can run handlers), then the
    /// added ones.
    pub fn list_plugins(&self) -> Result<Vec<PluginView>, RegistryError> {
        plugin_store::list_plugins(self)
    }

    pub fn show_plugin(&self, module: &ModuleName) -> Result<PluginView, RegistryError> {
        plugin_store::show_plugin(self, module)
    }

    /// Remove a module no type uses; its file goes when no module shares it.
    pub fn remove_plugin(&mut self, module: &ModuleName) -> Result<PluginView, RegistryError> {
        plugin_store::remove_plugin(self, module)
    }
}
