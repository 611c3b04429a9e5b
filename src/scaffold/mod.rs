//! What a plugin author starts from: the one home of the files `agents
//! plugin new` scaffolds and `agents plugin wit --out` writes.
//!
//! A scaffold is a project that builds outside this repository, from
//! crates.io or PyPI alone: the newest contract's WIT copied in (the texts
//! [`ContractVersion::wit_files`] embeds in the binary), a handler with
//! one class per requested class, one type file per class naming it
//! (`handler: module:Class`), and a README with the commands to build, add
//! and register. The Rust flavour generates its bindings from the copied
//! WIT with the `wit-bindgen` crate (the repository's SDK is a path
//! dependency, so a project elsewhere cannot use it); the Python flavour
//! is built by `componentize-py`, which generates its own. The templates
//! are files under `templates/`, filled by plain `@@NAME@@` replacement
//! (only checked names and texts made from them go in).
//!
//! Nothing is ever overwritten: a scaffold goes into a directory that is
//! new or empty, and `--out` refuses a WIT file that exists with other
//! contents.

mod names;
mod plan;

use plan::plan;

use crate::model::{ClassName, ModuleName, NameError, TypeName};
use crate::plugin::ContractVersion;
use serde::Serialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The language a scaffold is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
}

/// What `agents plugin new` was asked for.
#[derive(Debug, Clone)]
pub struct NewPlugin {
    pub module: ModuleName,
    pub lang: Lang,
    /// The classes; empty for one derived from the module
    /// (`myteam.node` → `NodeHandler`).
    pub classes: Vec<ClassName>,
    /// The project directory; `None` for `./<module with - for .>`.
    pub dir: Option<PathBuf>,
}

/// A scaffold that was written.
#[derive(Debug, Clone, Serialize)]
pub struct Scaffold {
    pub dir: PathBuf,
    pub lang: Lang,
    pub module: ModuleName,
    pub contract: String,
    pub classes: Vec<ClassName>,
    /// One type per class, in the same order, each in `<name>.yaml`.
    pub types: Vec<TypeName>,
    /// The files written, relative to `dir`.
    pub files: Vec<PathBuf>,
    /// Where the build puts the component, relative to `dir`.
    pub component: PathBuf,
    /// Build, add, register: the README's commands, to run in `dir`.
    pub commands: Vec<String>,
}

#[derive(Debug, Error)]
pub enum ScaffoldError {
    #[error(
        "{} exists and is not an empty directory; a scaffold goes into a new one: \
         pass --dir with another path, or remove it first",
        dir.display()
    )]
    NotEmpty { dir: PathBuf },
    #[error("class {class} is given twice; each --class names one class")]
    DuplicateClass { class: ClassName },
    #[error(
        "cannot name a type for class {class} of module {module}: {source}; \
         choose another class or module name"
    )]
    TypeName {
        module: ModuleName,
        class: ClassName,
        #[source]
        source: NameError,
    },
    #[error(
        "classes {first} and {second} would both handle type {type_name}; give classes \
         whose names differ by more than a \"Handler\" suffix"
    )]
    SameType {
        first: ClassName,
        second: ClassName,
        type_name: TypeName,
    },
    #[error(
        "{} already exists with other contents; remove it first (nothing is overwritten)",
        path.display()
    )]
    Exists { path: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Scaffold a plugin project as `spec` says.
pub fn new_plugin(spec: &NewPlugin) -> Result<Scaffold, ScaffoldError> {
    let plan = plan(spec)?;
    let dir = spec
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(names::project(&spec.module)));
    if !is_new_or_empty(&dir)? {
        return Err(ScaffoldError::NotEmpty { dir });
    }
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ScaffoldError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    for (rel, text) in &plan.files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        write_new(&path, text)?;
    }
    Ok(Scaffold {
        dir,
        lang: spec.lang,
        module: spec.module.clone(),
        contract: ContractVersion::CURRENT.as_str().to_owned(),
        classes: plan.classes,
        types: plan.types,
        files: plan.files.into_iter().map(|(rel, _)| rel).collect(),
        component: plan.component,
        commands: plan.commands,
    })
}

/// Write the WIT files of `versions` under `dir`, one directory per
/// version as in the repository's `wit/` (`v0.2.0/resource.wit`). A file
/// already there with the same text is left as it is; with other text it
/// is refused (before anything is written). Answers the files' paths.
pub fn write_contracts(
    dir: &Path,
    versions: &[ContractVersion],
) -> Result<Vec<PathBuf>, ScaffoldError> {
    let files: Vec<(PathBuf, &str)> = versions
        .iter()
        .flat_map(|v| {
            v.wit_files()
                .iter()
                .map(move |(name, text)| (dir.join(v.dir_name()).join(name), *text))
        })
        .collect();
    for (path, text) in &files {
        use crate::user_files::{InputKind, UserFileError, read};
        match read(path, InputKind::WitFile) {
            Ok(old) if old == text.as_bytes() => {}
            // Other text, a pipe, a device, a directory: not ours to replace.
            Ok(_) | Err(UserFileError::NotRegular { .. } | UserFileError::TooBig { .. }) => {
                return Err(ScaffoldError::Exists { path: path.clone() });
            }
            Err(UserFileError::Read { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound => {}
            Err(other) => {
                return Err(ScaffoldError::Io {
                    path: path.clone(),
                    source: std::io::Error::other(other.to_string()),
                });
            }
        }
    }
    for (path, text) in &files {
        let parent = path.parent().expect("a file under a version directory");
        std::fs::create_dir_all(parent).map_err(|source| ScaffoldError::Io {
            path: parent.to_owned(),
            source,
        })?;
        if !path.exists() {
            write_new(path, text)?;
        }
    }
    Ok(files.into_iter().map(|(path, _)| path).collect())
}

fn is_new_or_empty(dir: &Path) -> Result<bool, ScaffoldError> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(false),
        Err(source) => Err(ScaffoldError::Io {
            path: dir.to_owned(),
            source,
        }),
    }
}

/// Create `path` with `text`; never replaces a file.
fn write_new(path: &Path, text: &str) -> Result<(), ScaffoldError> {
    use std::io::Write;
    let io = |source| ScaffoldError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => ScaffoldError::Exists {
                path: path.to_owned(),
            },
            _ => io(e),
        })?;
    file.write_all(text.as_bytes()).map_err(io)
}

#[cfg(test)]
mod tests;
