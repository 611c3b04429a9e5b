//! `agents plugin new|check|wit`: the verbs for plugin authors. None of
//! them opens a registry or needs a home: `new` and `wit --out` write
//! only where they are told, `check` writes nothing.

use super::output::{self, emit, fields, list};
use super::{Context, Outcome};
use clap::{Args, ValueEnum};
use resource_host::model::{ClassName, ModuleName};
use resource_host::plugin::{CONTRACT_PACKAGE, ContractVersion};
use resource_host::registry::{PluginCheckView, check_plugin};
use resource_host::scaffold::{self, Lang, NewPlugin};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The module name types will use in `handler: MODULE:Class` (e.g. myteam.node).
    name: ModuleName,
    /// The language to write the handler in.
    #[arg(long, value_enum, default_value_t = LangArg::Rust)]
    lang: LangArg,
    /// A class to create (repeat for several); default: one named after
    /// the module's last part (myteam.node → NodeHandler).
    #[arg(long = "class", value_name = "CLASS")]
    classes: Vec<ClassName>,
    /// The new project directory (default: ./NAME with `-` for `.`); it
    /// must not exist or be empty.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LangArg {
    Rust,
    Python,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The component file.
    file: PathBuf,
    /// Check it as `plugin add --module NAME` would add it.
    #[arg(long, value_name = "NAME")]
    module: Option<ModuleName>,
}

#[derive(Debug, Args)]
pub struct WitArgs {
    /// Write the files under DIR, one directory per version (v0.2.0/resource.wit),
    /// instead of printing them.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Only this contract version (default: the newest when printing,
    /// every served one with --out).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    contract: Option<ContractVersion>,
}

fn parse_version(text: &str) -> Result<ContractVersion, String> {
    ContractVersion::parse(text).ok_or_else(|| {
        let served: Vec<&str> = ContractVersion::ALL.iter().map(|v| v.as_str()).collect();
        format!("this agents serves contract versions {}", served.join(", "))
    })
}

pub fn new(ctx: &Context, args: NewArgs) -> Outcome {
    let made = scaffold::new_plugin(&NewPlugin {
        module: args.name,
        lang: match args.lang {
            LangArg::Rust => Lang::Rust,
            LangArg::Python => Lang::Python,
        },
        classes: args.classes,
        dir: args.dir,
    })?;
    emit(ctx.format, &made, || {
        let mut text = format!(
            "created plugin {} ({}, contract {}, classes: {}) in {}\n\nnext, in {}:\n",
            made.module,
            match made.lang {
                Lang::Rust => "Rust",
                Lang::Python => "Python",
            },
            made.contract,
            list(&made.classes),
            made.dir.display(),
            made.dir.display(),
        );
        for command in &made.commands {
            text.push_str(&format!("  {command}\n"));
        }
        text
    })
}

pub fn check(ctx: &Context, args: CheckArgs) -> Outcome {
    let view = {
        let _ticker = output::Ticker::start(compiling(&args.file));
        check_plugin(&args.file, args.module.as_ref(), ctx.limits.clone())?
    };
    emit(ctx.format, &view, || show_check(&view))
}

fn show_check(v: &PluginCheckView) -> String {
    let contract = if v.contract_current {
        format!("{} (newest served)", v.contract)
    } else {
        format!(
            "{} (served; the newest is {})",
            v.contract,
            ContractVersion::CURRENT
        )
    };
    let mut text = format!("{}: agents plugin add would accept it\n", v.file);
    text.push_str(&fields(&[
        ("module", v.module.to_string()),
        ("version", v.version.clone()),
        ("contract", contract),
        ("exports", v.exports.clone()),
        ("imports", list(&v.imports)),
        ("sha256", v.sha256.clone()),
        ("size_bytes", v.size_bytes.to_string()),
        ("compile", format!("{} ms ({})", v.compile_ms, v.compiler)),
    ]));
    text.push_str("classes:\n");
    for c in &v.classes {
        text.push_str(&format!("  {}  {}\n", c.name, c.description));
    }
    text
}

/// One contract version as `plugin wit -o json` shows it.
#[derive(Debug, Serialize)]
struct WitView {
    version: &'static str,
    current: bool,
    files: Vec<WitFile>,
}

#[derive(Debug, Serialize)]
struct WitFile {
    /// As in the repository's `wit/` and under `--out`: `v0.2.0/resource.wit`.
    path: String,
    text: &'static str,
}

pub fn wit(ctx: &Context, args: WitArgs) -> Outcome {
    if let Some(dir) = &args.out {
        let versions = args
            .contract
            .map_or_else(|| ContractVersion::ALL.to_vec(), |v| vec![v]);
        let written = scaffold::write_contracts(dir, &versions)?;
        return emit(ctx.format, &written, || {
            written
                .iter()
                .map(|p| format!("wrote {}\n", p.display()))
                .collect()
        });
    }
    let version = args.contract.unwrap_or(ContractVersion::CURRENT);
    let view = WitView {
        version: version.as_str(),
        current: version == ContractVersion::CURRENT,
        files: version
            .wit_files()
            .iter()
            .map(|(name, text)| WitFile {
                path: format!("{}/{name}", version.dir_name()),
                text,
            })
            .collect(),
    };
    emit(ctx.format, &view, || {
        view.files.iter().map(|f| f.text).collect()
    })
}

pub fn new_help() -> &'static str {
    "Writes a project that builds outside this repository (crates.io or PyPI only): the \
     newest contract's WIT in wit/, a handler with one class per --class, one type file \
     per class (handler: NAME:Class) and a README with the commands to build, add and \
     register it.\n\n\
     Examples:\n  agents plugin new myteam.node\n  \
     agents plugin new myteam.node --lang python --dir ./node-handler\n  \
     agents plugin new myteam.files --class LockFile --class Manifest"
}

pub fn check_help() -> String {
    format!(
        "Runs every check of `agents plugin add` (WebAssembly, a component, a contract \
         version this host serves — the newest is {CONTRACT_PACKAGE} —, imports the \
         sandbox provides, the describe() answer and its classes) and times the compile, \
         without a home or a registry: nothing is written. A refusal is the one add \
         would give (exit 1).\n\n\
         Examples:\n  agents plugin check target/wasm32-wasip2/release/myteam_node.wasm\n  \
         agents plugin check myteam_node.wasm -o json"
    )
}

pub fn wit_help() -> &'static str {
    "The contract a handler component implements, as this binary serves it. Printing \
     gives one version's WIT (the newest unless --contract); --out writes every served \
     version (or --contract's) as the repository's wit/ holds them, refusing to \
     overwrite a file with other contents.\n\n\
     Examples:\n  agents plugin wit > wit/resource.wit\n  \
     agents plugin wit --contract 0.1.0\n  agents plugin wit --out ./wit"
}

/// The ticker's text while `file` is checked and compiled.
pub(super) fn compiling(file: &std::path::Path) -> String {
    let size = std::fs::metadata(file).map_or(0, |m| m.len());
    format!(
        "checking and compiling {} ({:.1} MB)",
        resource_host::text::escape_line(&file.display().to_string()),
        size as f64 / 1e6
    )
}
