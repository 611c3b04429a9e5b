//! The admin tools (`--allow-admin`): types, plugins and import.

use super::{absolute, parsed};
use crate::cli::mcp::kinds::Refusal;
use resource_host::registry::{
    AddPluginOptions, ImportOptions, ImportReport, InstallPluginOptions, InstallView, PluginView,
    RegisterTypeOptions, TypeView,
};
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::Serialize;

tools! {
    /// Register a custom resource type from a YAML type file.
    type_add: TypeAdd(Admin, IDEMPOTENT = false) -> TypeView {
        /// The type file's absolute path.
        path: String,
        /// Replace a type of that name.
        replace: Option<bool>,
    } |registry, args, _| {
        let path = absolute(&args.path)?;
        let mut options = RegisterTypeOptions::default();
        options.replace = args.replace.unwrap_or(false);
        let ty = registry.register_type(&path, options)?;
        let text = format!("added type {}", escape_line(ty.resolved().name.as_str()));
        Done::new(&ty, text)
    }

    /// Remove a custom resource type that no resource uses.
    type_remove: TypeRemove(Admin, DESTRUCTIVE = true) -> Removed {
        /// The type's name.
        name: String,
    } |registry, args, _| {
        registry.remove_type(&args.name)?;
        let text = format!("removed type {}", escape_line(&args.name));
        Done::new(&Removed { removed: args.name }, text)
    }

    /// Add a handler component (.wasm) to the plugin store.
    plugin_add: PluginAdd(Admin, IDEMPOTENT = false) -> PluginView {
        /// The component's absolute path.
        path: String,
        /// The module name (default: the file's).
        module: Option<String>,
        /// Replace a plugin of that module.
        replace: Option<bool>,
    } |registry, args, _| {
        let path = absolute(&args.path)?;
        let mut options = AddPluginOptions::default();
        options.module = args.module.as_deref().map(|m| parsed("module", m)).transpose()?;
        options.replace = args.replace.unwrap_or(false);
        let plugin = registry.add_plugin(&path, options)?;
        Done::new(&plugin, "added the plugin")
    }

    /// Install a plugin from an OCI registry (HOST[:PORT]/REPOSITORY:TAG or @sha256:DIGEST) or an OCI layout (oci-layout:DIR:TAG), with the types it carries; only with a publisher signature a trusted key verifies (installing unsigned code is a person's decision, `agents plugin install --allow-unsigned`).
    // The doc is the tool's description, word for word as agents read it:
    // `[:PORT]` is a reference's syntax, not a rustdoc link.
    #[allow(rustdoc::broken_intra_doc_links)]
    plugin_install: PluginInstall(Admin, IDEMPOTENT = false) -> InstallView {
        /// Where the plugin is.
        reference: String,
        /// Replace a plugin of that module (and the types it carries).
        replace: Option<bool>,
    } |registry, args, _| {
        // An OCI layout is a directory on this machine: inside the
        // roots, as any file an admin tool reads.
        if let Some(layout) = args.reference.strip_prefix("oci-layout:") {
            let dir = layout.rsplit_once(':').map_or(layout, |(dir, _)| dir);
            registry.check_file_in_roots(&absolute(dir)?, "reading an OCI layout")?;
        }
        let mut options = InstallPluginOptions::from(args.reference.clone());
        options.replace = args.replace.unwrap_or(false);
        let installed = registry.install_plugin(options)?;
        let (module, from) = (&installed.plugin.module, escape_line(&args.reference));
        Done::new(&installed, format!("installed plugin {module} from {from}"))
    }

    /// Remove a plugin that no type uses.
    plugin_remove: PluginRemove(Admin, DESTRUCTIVE = true) -> PluginView {
        /// The plugin's module name.
        module: String,
    } |registry, args, _| {
        let module = parsed("module", &args.module)?;
        let plugin = registry.remove_plugin(&module)?;
        Done::new(&plugin, format!("removed plugin {module}"))
    }

    /// Import a registry document (JSON or YAML, as `agents registry export` writes it).
    registry_import: RegistryImport(Admin) -> ImportReport {
        /// The document's absolute path.
        path: String,
        /// Only say what would be added.
        dry_run: Option<bool>,
    } |registry, args, _| {
        use resource_host::user_files::{InputKind, read_text};
        let path = absolute(&args.path)?;
        registry.check_file_in_roots(&path, "reading a registry document")?;
        let text = read_text(&path, InputKind::RegistryDocument)
            .map_err(|e| Refusal::new("invalid_arguments", e.to_string()))?;
        let document = resource_host::registry::RegistryDocument::parse(&text)
            .map_err(|e| Refusal::new("invalid_document", e.to_string()))?;
        let mut options = ImportOptions::default();
        options.dry_run = args.dry_run.unwrap_or(false);
        let report = registry.import_document(&document, options)?;
        Done::new(&report, "imported")
    }
}

/// `type_remove`'s answer: the type's name.
#[derive(Serialize, JsonSchema)]
pub struct Removed {
    removed: String,
}
