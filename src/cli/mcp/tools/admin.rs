//! The admin tools (`--allow-admin`): types, plugins and import.

use super::{Access, Done, Progress, Tool, absolute};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::ModuleName;
use resource_host::registry::{
    AddPluginOptions, ImportOptions, ImportReport, InstallPluginOptions, InstallView, PluginView,
    RegisterTypeOptions, Registry, TypeView,
};
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn module(text: &str) -> Result<ModuleName, Refusal> {
    ModuleName::parse(text).map_err(|e| Refusal::invalid(format!("module: {e}")))
}

/// Register a custom resource type from a YAML type file.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeAdd {
    /// The type file's absolute path.
    path: String,
    /// Replace a type of that name.
    replace: Option<bool>,
}

impl Tool for TypeAdd {
    type View = TypeView;
    const NAME: &'static str = "type_add";
    const ACCESS: Access = Access::Admin;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let path = absolute(&self.path)?;
        let mut options = RegisterTypeOptions::default();
        options.replace = self.replace.unwrap_or(false);
        let ty = registry.register_type(&path, options)?;
        let text = format!("added type {}", escape_line(ty.resolved().name.as_str()));
        Done::new(&ty, text)
    }
}

/// Remove a custom resource type that no resource uses.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeRemove {
    /// The type's name.
    name: String,
}

impl Tool for TypeRemove {
    type View = Removed;
    const NAME: &'static str = "type_remove";
    const ACCESS: Access = Access::Admin;
    const DESTRUCTIVE: bool = true;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        registry.remove_type(&self.name)?;
        let text = format!("removed type {}", escape_line(&self.name));
        Done::new(&Removed { removed: self.name }, text)
    }
}

/// `type_remove`'s answer: the type's name.
#[derive(Serialize, JsonSchema)]
pub struct Removed {
    removed: String,
}

/// Add a handler component (.wasm) to the plugin store.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginAdd {
    /// The component's absolute path.
    path: String,
    /// The module name (default: the file's).
    module: Option<String>,
    /// Replace a plugin of that module.
    replace: Option<bool>,
}

impl Tool for PluginAdd {
    type View = PluginView;
    const NAME: &'static str = "plugin_add";
    const ACCESS: Access = Access::Admin;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let path = absolute(&self.path)?;
        let mut options = AddPluginOptions::default();
        options.module = self.module.as_deref().map(module).transpose()?;
        options.replace = self.replace.unwrap_or(false);
        let plugin = registry.add_plugin(&path, options)?;
        Done::new(&plugin, "added the plugin")
    }
}

/// Install a plugin from an OCI registry (HOST[:PORT]/REPOSITORY:TAG or @sha256:DIGEST) or an OCI layout (oci-layout:DIR:TAG), with the types it carries; only with a publisher signature a trusted key verifies (installing unsigned code is a person's decision, `agents plugin install --allow-unsigned`).
// The doc is the tool's description, word for word as agents read it:
// `[:PORT]` is a reference's syntax, not a rustdoc link.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginInstall {
    /// Where the plugin is.
    reference: String,
    /// Replace a plugin of that module (and the types it carries).
    replace: Option<bool>,
}

impl Tool for PluginInstall {
    type View = InstallView;
    const NAME: &'static str = "plugin_install";
    const ACCESS: Access = Access::Admin;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        // An OCI layout is a directory on this machine: inside the
        // roots, as any file an admin tool reads.
        if let Some(layout) = self.reference.strip_prefix("oci-layout:") {
            let dir = layout.rsplit_once(':').map_or(layout, |(dir, _)| dir);
            let dir = absolute(dir)?;
            registry.check_file_in_roots(&dir, "reading an OCI layout")?;
        }
        let mut options = InstallPluginOptions::from(self.reference.clone());
        options.replace = self.replace.unwrap_or(false);
        let installed = registry.install_plugin(options)?;
        let text = format!(
            "installed plugin {} from {}",
            installed.plugin.module,
            escape_line(&self.reference)
        );
        Done::new(&installed, text)
    }
}

/// Remove a plugin that no type uses.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginRemove {
    /// The plugin's module name.
    module: String,
}

impl Tool for PluginRemove {
    type View = PluginView;
    const NAME: &'static str = "plugin_remove";
    const ACCESS: Access = Access::Admin;
    const DESTRUCTIVE: bool = true;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let module = module(&self.module)?;
        let plugin = registry.remove_plugin(&module)?;
        Done::new(&plugin, format!("removed plugin {module}"))
    }
}

/// Import a registry document (JSON or YAML, as `agents registry export` writes it).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegistryImport {
    /// The document's absolute path.
    path: String,
    /// Only say what would be added.
    dry_run: Option<bool>,
}

impl Tool for RegistryImport {
    type View = ImportReport;
    const NAME: &'static str = "registry_import";
    const ACCESS: Access = Access::Admin;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        use resource_host::user_files::{InputKind, read_text};
        let path = absolute(&self.path)?;
        registry.check_file_in_roots(&path, "reading a registry document")?;
        let text = read_text(&path, InputKind::RegistryDocument)
            .map_err(|e| Refusal::new("invalid_arguments", e.to_string()))?;
        let document = resource_host::registry::RegistryDocument::parse(&text)
            .map_err(|e| Refusal::new("invalid_document", e.to_string()))?;
        let mut options = ImportOptions::default();
        options.dry_run = self.dry_run.unwrap_or(false);
        let report = registry.import_document(&document, options)?;
        Done::new(&report, "imported")
    }
}
