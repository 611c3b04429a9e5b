//! `agents plugin push|install|lock|update|pack|key`: plugins through OCI
//! registries. Each verb parses, calls one `Registry` operation
//! (`registry::distribution`) and prints its view.

use super::output::{emit, fields, list, table};
use super::{Context, Failure, Outcome};
use clap::{Args, Subcommand};
use resource_host::model::ModuleName;
use resource_host::registry::{
    InstallPluginOptions, InstallView, LockFile, LockedInstallOptions, PushPluginOptions,
    UpdatePluginsOptions,
};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct PushArgs {
    /// The component file.
    file: PathBuf,
    #[arg(help = "HOST[:PORT]/REPOSITORY[:TAG] (default tag: the plugin's version)")]
    reference: String,
    /// Sign it with this key of the home (agents plugin key new NAME).
    #[arg(long, value_name = "KEY")]
    sign: Option<String>,
    /// The org.opencontainers.image.source annotation (where its code lives).
    #[arg(long, value_name = "URL")]
    source: Option<String>,
    /// The org.opencontainers.image.description annotation (default: its classes').
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// The org.opencontainers.image.authors annotation.
    #[arg(long, value_name = "TEXT")]
    authors: Option<String>,
    /// Allow plain http to a registry that is not on loopback.
    #[arg(long)]
    insecure: bool,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[arg(
        required_unless_present = "locked",
        conflicts_with = "locked",
        help = "HOST[:PORT]/REPOSITORY:TAG, HOST[:PORT]/REPOSITORY@sha256:DIGEST or oci-layout:DIR:TAG"
    )]
    reference: Option<String>,
    /// Install exactly what this lock file pins (agents plugin lock).
    #[arg(long, value_name = "FILE")]
    locked: Option<PathBuf>,
    /// Install without a trusted signature (said loudly, recorded).
    #[arg(long)]
    allow_unsigned: bool,
    /// Replace a module of the same name added with other bytes.
    #[arg(long)]
    replace: bool,
    /// Allow plain http to a registry that is not on loopback.
    #[arg(long)]
    insecure: bool,
}

#[derive(Debug, Args)]
pub struct LockArgs {
    /// Write the lock file here (default: print it).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Only this module (default: every installed one).
    module: Option<ModuleName>,
    /// Update even when a changed type would leave registered resources
    /// without a field it requires.
    #[arg(long)]
    force: bool,
    /// Show what would change; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Update to a version without a trusted signature (recorded).
    #[arg(long)]
    allow_unsigned: bool,
    /// Allow plain http to a registry that is not on loopback.
    #[arg(long)]
    insecure: bool,
}

#[derive(Debug, Args)]
pub struct PackArgs {
    /// The built component.
    file: PathBuf,
    /// The type files to carry (repeat for several).
    #[arg(long = "types", value_name = "TYPE.yaml", required = true)]
    types: Vec<PathBuf>,
    /// Write the packed component here (default: replace FILE).
    #[arg(long, value_name = "OUT")]
    out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Make a signing key pair kept in the home; print its public key.
    New { name: String },
    /// List the home's signing keys and the pinned publishers' keys.
    List,
    /// Pin a publisher's public key for a HOST/REPOSITORY prefix.
    Trust {
        /// The public key (RW…, as `agents plugin key new` prints it).
        public_key: String,
        #[arg(
            long = "for",
            value_name = "PREFIX",
            help = "HOST[:PORT]/REPOSITORY-PREFIX it may publish under (HOST[:PORT]: the whole registry)"
        )]
        prefix: String,
    },
}

pub fn push(ctx: &Context, args: PushArgs) -> Outcome {
    let registry = ctx.open_with(|o| o.oci.insecure = args.insecure)?;
    let mut options = PushPluginOptions::to(args.reference);
    options.sign = args.sign;
    options.source = args.source;
    options.description = args.description;
    options.authors = args.authors;
    let view = registry.push_plugin(&args.file, options)?;
    emit(ctx.format, &view, || {
        let signed = view
            .signed_by
            .as_ref()
            .map_or_else(|| "unsigned".to_owned(), |k| format!("signed by key {k}"));
        format!(
            "pushed {} {} to {} ({signed})\n{}\n",
            view.module, view.version, view.reference, view.manifest_digest
        )
    })
}

pub fn install(ctx: &Context, args: InstallArgs) -> Outcome {
    let mut registry = ctx.open_with(|o| o.oci.insecure = args.insecure)?;
    if let Some(path) = &args.locked {
        let text = resource_host::user_files::read_text(
            path,
            resource_host::user_files::InputKind::TypeFile,
        )?;
        let lock = LockFile::parse(&text, path)?;
        let mut options = LockedInstallOptions::default();
        options.allow_unsigned = args.allow_unsigned;
        let views = registry.install_locked(&lock, options)?;
        return emit(ctx.format, &views, || {
            views.iter().map(installed).collect::<String>()
        });
    }
    let reference = args.reference.unwrap_or_default();
    let mut options = InstallPluginOptions::from(reference);
    options.allow_unsigned = args.allow_unsigned;
    options.replace = args.replace;
    let view = registry.install_plugin(options)?;
    emit(ctx.format, &view, || installed(&view))
}

fn installed(view: &InstallView) -> String {
    let p = &view.plugin;
    let provenance = p.provenance.as_ref();
    let mut text = format!(
        "installed plugin {} {} from {}",
        p.module,
        p.version,
        provenance.map_or("?", |v| v.reference.as_str())
    );
    match provenance.and_then(|v| v.recorded.origin.signer.as_deref()) {
        Some(key) => text.push_str(&format!(" (signed by key {key})\n")),
        None => text.push_str(" (UNSIGNED: installed on --allow-unsigned)\n"),
    }
    if !view.types_added.is_empty() {
        text.push_str(&format!("  types added: {}\n", list(&view.types_added)));
    }
    if !view.types_replaced.is_empty() {
        text.push_str(&format!(
            "  types replaced: {}\n",
            list(&view.types_replaced)
        ));
    }
    text
}

pub fn lock(ctx: &Context, args: LockArgs) -> Outcome {
    let registry = ctx.open()?;
    let lock = registry.lock_plugins()?;
    for module in &lock.not_installed {
        log::warn!("plugin {module} was added from a file, not installed: it is not in the lock");
    }
    let json = serde_json::to_string_pretty(&lock).map_err(std::io::Error::other)? + "\n";
    match &args.out {
        Some(path) => {
            resource_host::user_files::write_replacing(path, json.as_bytes())?;
            emit(ctx.format, &lock, || {
                format!(
                    "wrote {} ({} plugins)\n",
                    path.display(),
                    lock.plugins.len()
                )
            })
        }
        None => emit(ctx.format, &lock, || json.clone()),
    }
}

pub fn update(ctx: &Context, args: UpdateArgs) -> Outcome {
    let mut registry = ctx.open_with(|o| o.oci.insecure = args.insecure)?;
    let mut options = UpdatePluginsOptions::default();
    options.module = args.module;
    options.force = args.force;
    options.dry_run = args.dry_run;
    options.allow_unsigned = args.allow_unsigned;
    let views = registry.update_plugins(options)?;
    emit(ctx.format, &views, || {
        let rows: Vec<Vec<String>> = views
            .iter()
            .map(|v| {
                let types = v
                    .types
                    .iter()
                    .map(|t| format!("{} {}", t.change, t.name))
                    .collect::<Vec<_>>();
                vec![
                    v.module.to_string(),
                    v.from_version.clone(),
                    v.to_version.clone().unwrap_or_else(|| "up to date".into()),
                    match &v.to_contract {
                        Some(to) if *to != v.from_contract => {
                            format!("{} → {to}", v.from_contract)
                        }
                        _ => v.from_contract.clone(),
                    },
                    list(types),
                    match (v.to_version.is_some(), v.updated) {
                        (false, _) => "-".into(),
                        (true, true) => "updated".into(),
                        (true, false) => "would update (dry run)".into(),
                    },
                ]
            })
            .collect();
        table(
            &["MODULE", "FROM", "TO", "CONTRACT", "TYPES", "DONE"],
            &rows,
        )
    })
}

pub fn pack(ctx: &Context, args: PackArgs) -> Outcome {
    use resource_host::user_files::{InputKind, read, read_text, write_replacing};
    let component = read(&args.file, InputKind::PluginComponent)?;
    let texts = args
        .types
        .iter()
        .map(|p| read_text(p, InputKind::TypeFile))
        .collect::<Result<Vec<_>, _>>()?;
    // Each must be a type file `type add` reads, before it is carried.
    for (text, path) in texts.iter().zip(&args.types) {
        resource_host::typespec::parse_type_file(text, &path.display().to_string())?;
    }
    let packed = resource_host::plugin::carry_types(&component, &texts)
        .map_err(|e| Failure::Usage(format!("cannot pack {}: {e}", args.file.display())))?;
    let out = args.out.unwrap_or(args.file);
    write_replacing(&out, &packed)?;
    let view = serde_json::json!({
        "file": out.display().to_string(),
        "types": args.types.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "size_bytes": packed.len(),
    });
    emit(ctx.format, &view, || {
        format!(
            "packed {} type file(s) into {}\n",
            args.types.len(),
            out.display()
        )
    })
}

pub fn key(ctx: &Context, cmd: KeyCommand) -> Outcome {
    let registry = ctx.open()?;
    match cmd {
        KeyCommand::New { name } => {
            let view = registry.new_plugin_key(&name)?;
            emit(ctx.format, &view, || format!("{}\n", view.public_key))
        }
        KeyCommand::List => {
            let keys = registry.plugin_keys()?;
            let pins = registry.trusted_plugin_keys()?;
            let view = serde_json::json!({ "keys": keys, "trusted": pins });
            emit(ctx.format, &view, || {
                let mut text = table(
                    &["NAME", "KEY ID", "PUBLIC KEY"],
                    &keys
                        .iter()
                        .map(|k| vec![k.name.clone(), k.key_id.clone(), k.public_key.clone()])
                        .collect::<Vec<_>>(),
                );
                text.push_str("\ntrusted:\n");
                text.push_str(&table(
                    &["KEY ID", "FOR", "PUBLIC KEY"],
                    &pins
                        .iter()
                        .map(|p| vec![p.key_id.clone(), p.prefix.clone(), p.public_key.clone()])
                        .collect::<Vec<_>>(),
                ));
                text
            })
        }
        KeyCommand::Trust { public_key, prefix } => {
            let pin = registry.trust_plugin_key(&public_key, &prefix)?;
            emit(ctx.format, &pin, || {
                fields(&[
                    ("trusted key", pin.key_id.clone()),
                    ("for", pin.prefix.clone()),
                ])
            })
        }
    }
}
