//! Plugins as packages: publishing a component to an OCI registry, and
//! installing, pinning and updating it from one — the one home of what is
//! checked before a pulled plugin is added, and what is recorded about
//! where it came from.
//!
//! **Every check before anything is added.** An install pulls the
//! manifest (its media types: one `application/wasm` layer), the layer
//! (its digest), the signature (a pinned key, pinned for this repository
//! prefix, vouching for this layer), then accepts the component as `plugin
//! add` would (a contract version this host serves, imports the sandbox
//! satisfies, its carried types) — and only then writes, in the one
//! transaction of `plugin_add`: the module, its types and its provenance
//! (registry, repository, tag, manifest and layer digests, contract,
//! signer). A refusal at any step leaves the registry as it was.
//!
//! **Pinned means exact.** A lock file records each installed plugin's
//! digests and signer; installing from it re-resolves the tag and refuses
//! when it no longer points at the locked manifest, naming the plugin.
//! An update looks for a newer semver tag in the same repository and
//! refuses a type change that would leave a registered resource without a
//! field its type requires, unless forced; until the new component is
//! fully added, the old one stays.
//!
//! Each operation is one public method taking an options struct and
//! answering a `Serialize` view, so every face (CLI, MCP, Python) is one
//! line over it.

mod install;
mod lock;
mod pull;
mod push;
mod update;

pub use install::{InstallPluginOptions, InstallView};
pub use lock::{LockEntry, LockFile, LockedInstallOptions};
pub use push::{PushPluginOptions, PushView};
pub use update::{TypeChange, UpdatePluginsOptions, UpdateView};

use crate::registry::DistributionError;
use crate::registry::{Registry, RegistryError};
use crate::signing::{KeyView, Keyring, TrustPin};
use std::path::Path;

impl Registry {
    /// Publish the component at `file` (see [`PushPluginOptions`]).
    pub fn push_plugin(
        &self,
        file: &Path,
        options: PushPluginOptions,
    ) -> Result<PushView, RegistryError> {
        push::push_plugin(self, file, options)
    }

    /// Pull, check and add a plugin with its types, recording where it
    /// came from (see the module doc for every check).
    pub fn install_plugin(
        &mut self,
        options: InstallPluginOptions,
    ) -> Result<InstallView, RegistryError> {
        install::install_plugin(self, options)
    }

    /// The lock file of every installed plugin.
    pub fn lock_plugins(&self) -> Result<LockFile, RegistryError> {
        lock::lock_plugins(self)
    }

    /// Install exactly what `lock` pins, or refuse naming the plugin that
    /// differs (nothing is added then).
    pub fn install_locked(
        &mut self,
        lock: &LockFile,
        options: LockedInstallOptions,
    ) -> Result<Vec<InstallView>, RegistryError> {
        lock::install_locked(self, lock, options)
    }

    /// Update installed plugins to the newest semver tag of their
    /// repository (see [`UpdatePluginsOptions`]).
    pub fn update_plugins(
        &mut self,
        options: UpdatePluginsOptions,
    ) -> Result<Vec<UpdateView>, RegistryError> {
        update::update_plugins(self, options)
    }

    /// Make a signing key pair named `name`, kept in the home.
    pub fn new_plugin_key(&self, name: &str) -> Result<KeyView, RegistryError> {
        Ok(self.keyring("making a key")?.create(name)?)
    }

    /// The signing keys kept in the home.
    pub fn plugin_keys(&self) -> Result<Vec<KeyView>, RegistryError> {
        Ok(self.keyring("listing keys")?.list()?)
    }

    /// Pin `public_key` as one that may publish plugins under `prefix`
    /// (`HOST[:PORT]/REPOSITORY-PREFIX`). A person's decision: no face
    /// but the CLI's offers it.
    pub fn trust_plugin_key(
        &self,
        public_key: &str,
        prefix: &str,
    ) -> Result<TrustPin, RegistryError> {
        Ok(self.keyring("pinning a key")?.trust(public_key, prefix)?)
    }

    /// The pinned keys.
    pub fn trusted_plugin_keys(&self) -> Result<Vec<TrustPin>, RegistryError> {
        Ok(self.keyring("listing pinned keys")?.pins()?)
    }

    fn keyring(&self, action: &'static str) -> Result<&Keyring, RegistryError> {
        self.keys
            .as_ref()
            .ok_or(DistributionError::NoKeyring { action }.into())
    }
}

impl From<crate::signing::SigningError> for RegistryError {
    fn from(e: crate::signing::SigningError) -> Self {
        Self::Distribution(e.into())
    }
}
