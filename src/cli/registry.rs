//! `agents registry …`: export, import and info — moving and keeping a
//! registry's data. The document and every rule are the library's
//! (`registry::document`, `export`, `import`); here a file is read or
//! written and the outcome printed.

use super::output::{emit, fields, or_dash};
use super::{Context, Outcome};
use clap::{Subcommand, ValueEnum};
use resource_host::registry::{
    ExportOptions, ImportOptions, ImportReport, RegistryDocument, RegistryInfo, Tally,
};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Write the registry as one versioned document (JSON or YAML): custom types, plugins by
    /// hash, resources, links, environment settings.
    #[command(after_help = "Examples:\n  \
        agents registry export --out backup.json\n  \
        agents registry export --with-plugins --format yaml --out registry.yaml\n  \
        agents registry export | gzip > backup.json.gz\n\n\
        Built-in types come with the binary and are not exported; sandboxes and container \
        states belong to one machine and are not exported either.")]
    Export {
        /// Write the document to FILE (atomically; a regular file or a new path) instead of
        /// stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The document's format (default: yaml for an --out ending in .yaml/.yml, or for stdout
        /// with -o yaml; else json).
        #[arg(long, value_enum)]
        format: Option<DocumentFormat>,
        /// Embed each plugin component (base64), so the document alone can fill a new home.
        #[arg(long)]
        with_plugins: bool,
        /// Carry the event log too (who changed what, when); without it the document has none.
        #[arg(long)]
        with_events: bool,
    },
    /// Import a document made by `registry export` into this home: all or nothing.
    #[command(after_help = "Examples:\n  \
        agents --home /new/home registry import backup.json\n  \
        agents registry import --dry-run backup.json\n  \
        gunzip -c backup.json.gz | agents registry import -\n\n\
        Items already here exactly as the document has them are left alone (importing twice \
        is a no-op); a name, type, plugin, link or setting that is here with another value is \
        a conflict, and every conflict is listed. Nothing is written unless everything fits.")]
    Import {
        /// The document (`-`: stdin).
        file: PathBuf,
        /// Check and rehearse everything; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Show or change a registry setting (events.keep: how long the event log keeps events).
    #[command(after_help = "Examples:\n  agents registry settings events.keep\n  \
        agents registry settings events.keep 90d      # events younger than 90 days\n  \
        agents registry settings events.keep 100000   # the newest 100000 events\n  \
        agents registry settings events.keep --unset  # keep everything")]
    Settings {
        /// The setting (events.keep).
        key: String,
        /// Its new value (without one: show it).
        #[arg(conflicts_with = "unset")]
        value: Option<String>,
        /// Remove the setting (events.keep: keep every event).
        #[arg(long)]
        unset: bool,
    },
    /// Which backend, where, which schema version, how many of everything.
    #[command(after_help = "Examples:\n  agents registry info\n  agents registry info -o json")]
    Info,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocumentFormat {
    Json,
    Yaml,
}

pub fn run(ctx: &Context, cmd: RegistryCommand) -> Outcome {
    match cmd {
        RegistryCommand::Export {
            out,
            format,
            with_plugins,
            with_events,
        } => export(ctx, out.as_deref(), format, (with_plugins, with_events)),
        RegistryCommand::Import { file, dry_run } => import(ctx, &file, dry_run),
        RegistryCommand::Settings { key, value, unset } => settings(ctx, &key, value, unset),
        RegistryCommand::Info => {
            let info = ctx.open()?.info()?;
            emit(ctx.format, &info, || show_info(&info))
        }
    }
}

/// What `export --out` prints once the file is written.
#[derive(Debug, Serialize)]
struct Exported<'a> {
    out: &'a Path,
    types: usize,
    plugins: usize,
    plugins_embedded: bool,
    resources: usize,
    links: usize,
    environment_settings: usize,
}

fn export(
    ctx: &Context,
    out: Option<&Path>,
    format: Option<DocumentFormat>,
    (with_plugins, with_events): (bool, bool),
) -> Outcome {
    let mut options = ExportOptions::default();
    options.with_plugins = with_plugins;
    options.with_events = with_events;
    let document = ctx.open()?.export_document(options)?;
    // Without --format: a file's extension says, and on stdout (where
    // the document is the output) so does `-o yaml`.
    let yaml = format.map_or_else(
        || match out {
            Some(out) => out.extension().is_some_and(|e| e == "yaml" || e == "yml"),
            None => ctx.format == super::output::Format::Yaml,
        },
        |f| f == DocumentFormat::Yaml,
    );
    let text = if yaml {
        document.to_yaml()
    } else {
        document.to_json() + "\n"
    };
    let Some(out) = out else {
        let mut stdout = std::io::stdout().lock();
        return match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => Ok(other?),
        };
    };
    resource_host::user_files::write_replacing(out, text.as_bytes())?;
    let summary = Exported {
        out,
        types: document.types.len(),
        plugins: document.plugins.len(),
        plugins_embedded: with_plugins,
        resources: document.resources.len(),
        links: document.links.len(),
        environment_settings: document.environment_settings.len(),
    };
    emit(ctx.format, &summary, || {
        format!(
            "exported {} type(s), {} plugin(s){}, {} resource(s), {} link(s) and {} \
             environment setting(s) to {}\n",
            summary.types,
            summary.plugins,
            if with_plugins { " (embedded)" } else { "" },
            summary.resources,
            summary.links,
            summary.environment_settings,
            out.display()
        )
    })
}

fn import(ctx: &Context, file: &Path, dry_run: bool) -> Outcome {
    use resource_host::user_files::{InputKind, read_stdin_text, read_text};
    let text = if file == Path::new("-") {
        read_stdin_text(InputKind::RegistryDocument)?
    } else {
        read_text(file, InputKind::RegistryDocument)?
    };
    let document = RegistryDocument::parse(&text)?;
    let mut options = ImportOptions::default();
    options.dry_run = dry_run;
    let report = ctx.open()?.import_document(&document, options)?;
    emit(ctx.format, &report, || show_report(&report))
}

fn show_report(report: &ImportReport) -> String {
    let mut text = if report.is_no_op() {
        "nothing to import: this registry already holds everything in the document\n".to_owned()
    } else if report.dry_run {
        "dry run, nothing was written; the import would add:\n".to_owned()
    } else {
        "imported:\n".to_owned()
    };
    let tally = |t: Tally| {
        if t.unchanged == 0 {
            format!("{} added", t.added)
        } else {
            format!("{} added, {} already here", t.added, t.unchanged)
        }
    };
    text.push_str(&fields(&[
        ("  types", tally(report.types)),
        ("  plugins", tally(report.plugins)),
        ("  resources", tally(report.resources)),
        ("  links", tally(report.links)),
        ("  environment settings", tally(report.environment_settings)),
    ]));
    if !report.plugin_files.is_empty() {
        let verb = if report.dry_run {
            "would write"
        } else {
            "wrote"
        };
        text.push_str(&format!(
            "{verb} {} plugin file(s) into the plugin store\n",
            report.plugin_files.len()
        ));
    }
    if report.credentials_removed > 0 {
        text.push_str(&format!(
            "note: {} property value(s) held a URL with credentials; they were {} without them \
             (the registry keeps no credentials)\n",
            report.credentials_removed,
            if report.dry_run {
                "would be imported"
            } else {
                "imported"
            }
        ));
    }
    if !report.same_builtin_catalogue {
        text.push_str(
            "note: the document was exported by an agents binary with other built-in types; its \
             resources of built-in types were checked against this binary's\n",
        );
    }
    text
}

fn show_info(info: &RegistryInfo) -> String {
    let c = &info.counts;
    let bytes = |n: Option<u64>| or_dash(n.map(|n| format!("{n} bytes")));
    fields(&[
        ("backend", info.backend.to_owned()),
        ("location", info.location.clone()),
        (
            "schema version",
            format!(
                "{} (this binary writes {})",
                info.schema_version, info.supported_schema_version
            ),
        ),
        ("document version", info.document_version.to_string()),
        ("size", bytes(info.size_bytes)),
        ("write-ahead log", bytes(info.wal_bytes)),
        (
            "types",
            format!("{} custom, {} built-in", c.custom_types, c.builtin_types),
        ),
        ("resources", c.resources.to_string()),
        ("links", c.links.to_string()),
        ("plugins", c.plugins.to_string()),
        ("sandboxes", c.sandboxes.to_string()),
        ("environment settings", c.environment_settings.to_string()),
        (
            "built-in catalogue",
            or_dash(info.builtin_catalogue.as_ref()),
        ),
    ])
}

/// `registry settings KEY [VALUE | --unset]`.
fn settings(ctx: &Context, key: &str, value: Option<String>, unset: bool) -> Outcome {
    let mut registry = ctx.open()?;
    let now = if unset || value.is_some() {
        registry.set_registry_setting(key, value.as_deref())?
    } else {
        registry.registry_setting(key)?
    };
    let view = serde_json::json!({ "key": key, "value": now });
    emit(ctx.format, &view, || {
        fields(&[(key, now.clone().unwrap_or_else(|| "(not set)".into()))])
    })
}
