//! `agents plugin …`: add, list, show, remove; new, check and wit (for
//! authors, in `authoring`) need no registry; push, install, lock,
//! update, pack and key move plugins through OCI registries
//! (`distribution`).

use super::authoring::{self, CheckArgs, NewArgs, WitArgs};
use super::distribution::{
    self, InstallArgs, KeyCommand, LockArgs, PackArgs, PushArgs, UpdateArgs,
};
use super::output::{self, emit, fields, list, table};
use super::{Context, Outcome};
use clap::Subcommand;
use resource_host::model::ModuleName;
use resource_host::plugin::CONTRACT_PACKAGE;
use resource_host::registry::{AddPluginOptions, PluginView};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Add a handler component (.wasm) to the plugin store.
    #[command(
        after_help = add_help()
    )]
    Add {
        /// The component file.
        file: PathBuf,
        /// Register it under this module name instead of the one it reports.
        #[arg(long, value_name = "NAME")]
        module: Option<ModuleName>,
        /// Replace a module that is already added (its classes in use must remain).
        #[arg(long)]
        replace: bool,
    },
    /// List the added plugin modules.
    #[command(after_help = "Examples:\n  agents plugin list\n  agents plugin list -o json")]
    List,
    /// Show one module: version, hash, classes, the types that use it.
    #[command(after_help = "Examples:\n  agents plugin show myteam.python")]
    Show { module: ModuleName },
    /// Remove a module no type uses.
    #[command(after_help = "Examples:\n  agents plugin remove myteam.python")]
    Remove { module: ModuleName },
    /// Scaffold a plugin project (Rust or Python) in a new directory.
    #[command(after_help = authoring::new_help())]
    New(NewArgs),
    /// Check a component as `plugin add` would, without a registry.
    #[command(after_help = authoring::check_help())]
    Check(CheckArgs),
    /// Print or write the handler contract (WIT) this binary serves.
    #[command(after_help = authoring::wit_help())]
    Wit(WitArgs),
    /// Publish a component to an OCI registry (CNCF Wasm artifact).
    #[command(
        after_help = "Examples:\n  agents plugin push my_handler.wasm registry.example.com/team/my-handler\n  \
        agents plugin push my_handler.wasm localhost:5000/team/my-handler:1.2.0 --sign team"
    )]
    Push(PushArgs),
    /// Pull, check and add a plugin (and its types) from a registry.
    #[command(
        after_help = "Every check comes before anything is added: the layer's digest, the manifest's \
        media types, the contract version, and the publisher's signature (a key pinned with \
        agents plugin key trust for the repository's prefix).\n\nExamples:\n  \
        agents plugin install registry.example.com/team/my-handler:1.2.0\n  \
        agents plugin install registry.example.com/team/my-handler@sha256:…\n  \
        agents plugin install oci-layout:./offline:1.2.0\n  \
        agents plugin install --locked plugins.lock"
    )]
    Install(InstallArgs),
    /// Write the lock file of the installed plugins (commit it).
    #[command(after_help = "Examples:\n  agents plugin lock --out plugins.lock")]
    Lock(LockArgs),
    /// Update installed plugins to the newest semver tag of their repository.
    #[command(
        after_help = "Examples:\n  agents plugin update --dry-run\n  agents plugin update myteam.python"
    )]
    Update(UpdateArgs),
    /// Embed type files in a built component, so it carries them.
    #[command(after_help = "Examples:\n  agents plugin pack app.wasm --types node.yaml")]
    Pack(PackArgs),
    /// Signing keys, and the publishers' keys you trust.
    #[command(subcommand)]
    Key(KeyCommand),
}

pub fn run(ctx: &Context, cmd: PluginCommand) -> Outcome {
    let cmd = match cmd {
        PluginCommand::New(args) => return authoring::new(ctx, args),
        PluginCommand::Check(args) => return authoring::check(ctx, args),
        PluginCommand::Wit(args) => return authoring::wit(ctx, args),
        PluginCommand::Push(args) => return distribution::push(ctx, args),
        PluginCommand::Install(args) => return distribution::install(ctx, args),
        PluginCommand::Lock(args) => return distribution::lock(ctx, args),
        PluginCommand::Update(args) => return distribution::update(ctx, args),
        PluginCommand::Pack(args) => return distribution::pack(ctx, args),
        PluginCommand::Key(cmd) => return distribution::key(ctx, cmd),
        registry_verb => registry_verb,
    };
    let mut registry = ctx.open()?;
    match cmd {
        PluginCommand::Add {
            file,
            module,
            replace,
        } => {
            let view = {
                let _ticker = output::Ticker::start(authoring::compiling(&file));
                let mut options = AddPluginOptions::default();
                (options.module, options.replace) = (module, replace);
                registry.add_plugin(&file, options)?
            };
            emit(ctx.format, &view, || {
                format!(
                    "added plugin {} {} (classes: {}; sha256 {})\n",
                    view.module,
                    view.version,
                    list(view.classes.iter().map(|c| &c.name)),
                    view.sha256
                )
            })
        }
        PluginCommand::List => {
            let views = registry.list_plugins()?;
            emit(ctx.format, &views, || {
                let rows: Vec<Vec<String>> = views
                    .iter()
                    .map(|v| {
                        vec![
                            if v.built_in {
                                format!("{} (built-in)", v.module)
                            } else {
                                v.module.to_string()
                            },
                            v.version.clone(),
                            list(v.classes.iter().map(|c| &c.name)),
                            list(&v.used_by),
                            v.sha256[..12].to_owned(),
                            v.provenance
                                .as_ref()
                                .map_or_else(|| v.source.clone(), |p| p.reference.clone()),
                        ]
                    })
                    .collect();
                table(
                    &["MODULE", "VERSION", "CLASSES", "USED BY", "SHA256", "FROM"],
                    &rows,
                )
            })
        }
        PluginCommand::Show { module } => {
            let view = registry.show_plugin(&module)?;
            emit(ctx.format, &view, || show(&view))
        }
        PluginCommand::Remove { module } => {
            let view = registry.remove_plugin(&module)?;
            emit(ctx.format, &view, || {
                format!("removed plugin {}\n", view.module)
            })
        }
        _ => unreachable!("answered above"),
    }
}

fn show(v: &PluginView) -> String {
    let mut text = fields(&[
        ("module", v.module.to_string()),
        ("built_in", v.built_in.to_string()),
        ("version", v.version.clone()),
        ("sha256", v.sha256.clone()),
        ("size_bytes", v.size_bytes.to_string()),
        ("source", v.source.clone()),
        ("added_at", v.added_at.clone()),
        ("used_by", list(&v.used_by)),
        ("types", list(&v.types)),
    ]);
    if let Some(p) = &v.provenance {
        let o = &p.recorded.origin;
        text.push_str(&fields(&[
            ("installed_from", p.reference.clone()),
            ("manifest_digest", o.manifest_digest.clone()),
            ("layer_digest", o.layer_digest.clone()),
            ("contract", o.contract.clone()),
            (
                "signer",
                match (&o.signer, p.recorded.unsigned_allowed) {
                    (Some(key), _) => format!("key {key}"),
                    (None, _) => "none (UNSIGNED, installed on --allow-unsigned)".to_owned(),
                },
            ),
            ("installed_at", p.recorded.installed_at.clone()),
        ]));
    }
    text.push_str("classes:\n");
    // A class's description is the component's (or an imported
    // document's) own text: escaped, like every such text shown.
    for c in &v.classes {
        text.push_str(&format!(
            "  {}  {}\n",
            c.name,
            resource_host::text::escape_line(&c.description)
        ));
    }
    text
}

fn add_help() -> String {
    format!(
        "The file must be a WebAssembly component built against a contract this host serves \
         (wit/, {CONTRACT_PACKAGE}) whose describe() answers; it is copied into <home>/plugins \
         named by its sha256 and verified on every load.\n\n\
         Examples:\n  agents plugin add plugins/target/wasm32-wasip2/release/python_package.wasm\n  \
         agents plugin add my_handler.wasm --module myteam.handlers\n  \
         agents plugin add --replace my_handler.wasm"
    )
}
