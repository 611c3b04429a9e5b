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

use crate::model::{ClassName, ModuleName, NameError, TypeName};
use crate::plugin::ContractVersion;
use serde::Serialize;
use std::collections::BTreeSet;
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
        match std::fs::read(path) {
            Ok(old) if old == text.as_bytes() => {}
            Ok(_) => return Err(ScaffoldError::Exists { path: path.clone() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(ScaffoldError::Io {
                    path: path.clone(),
                    source,
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

/// The files of a scaffold, before anything is written.
struct Plan {
    classes: Vec<ClassName>,
    types: Vec<TypeName>,
    files: Vec<(PathBuf, String)>,
    component: PathBuf,
    commands: Vec<String>,
}

fn plan(spec: &NewPlugin) -> Result<Plan, ScaffoldError> {
    let module = &spec.module;
    let classes = if spec.classes.is_empty() {
        vec![names::default_class(module)]
    } else {
        spec.classes.clone()
    };
    let mut seen = BTreeSet::new();
    if let Some(class) = classes.iter().find(|c| !seen.insert(c.as_str())) {
        return Err(ScaffoldError::DuplicateClass {
            class: class.clone(),
        });
    }
    let mut types: Vec<TypeName> = Vec::new();
    for (i, class) in classes.iter().enumerate() {
        let ty = names::type_name(module, class).map_err(|source| ScaffoldError::TypeName {
            module: module.clone(),
            class: class.clone(),
            source,
        })?;
        if let Some(j) = types.iter().position(|t| *t == ty) {
            return Err(ScaffoldError::SameType {
                first: classes[j].clone(),
                second: classes[i].clone(),
                type_name: ty,
            });
        }
        types.push(ty);
    }

    let contract = ContractVersion::CURRENT;
    let wasm = names::component_file(module);
    let component = match spec.lang {
        Lang::Rust => PathBuf::from("target/wasm32-wasip2/release").join(&wasm),
        Lang::Python => PathBuf::from(&wasm),
    };
    let yamls: Vec<String> = types.iter().map(yaml_file).collect();
    let mut commands = vec![match spec.lang {
        Lang::Rust => "cargo build --release --target wasm32-wasip2".to_owned(),
        Lang::Python => {
            format!("componentize-py -d wit -w resource-handler componentize app -o {wasm}")
        }
    }];
    commands.push(format!("agents plugin add {}", component.display()));
    commands.extend(
        yamls
            .iter()
            .map(|y| format!("agents resource type add {y}")),
    );

    let class_names: Vec<&str> = classes.iter().map(ClassName::as_str).collect();
    let common = [
        ("MODULE", module.to_string()),
        ("CONTRACT", contract.as_str().to_owned()),
        (
            "PACKAGE",
            format!("cleveragents:resource@{}", contract.as_str()),
        ),
        ("WASM", wasm.clone()),
        ("CRATE", names::project(module)),
        ("CLASS_NAMES", class_names.join(", ")),
        ("FIRST_TYPE", types[0].to_string()),
        ("TYPE_ADDS", commands[2..].join("\n")),
        (
            "TYPE_ROWS",
            yamls
                .iter()
                .zip(&classes)
                .map(|(y, c)| format!("| `{y}` | the type class {c} handles |"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    ];
    let fill = |template: &str, extra: &[(&str, String)]| {
        let mut text = template.to_owned();
        for (key, value) in common
            .iter()
            .map(|(k, v)| (*k, v))
            .chain(extra.iter().map(|(k, v)| (*k, v)))
        {
            text = text.replace(&format!("@@{key}@@"), value);
        }
        debug_assert!(!text.contains("@@"), "a template placeholder left: {text}");
        text
    };
    let per_class = |template: &str| -> String {
        classes
            .iter()
            .map(|c| {
                fill(
                    template,
                    &[
                        ("CLASS", c.to_string()),
                        ("DESCRIPTION", description(module, c)),
                    ],
                )
            })
            .collect()
    };

    let mut files: Vec<(PathBuf, String)> = contract
        .wit_files()
        .iter()
        .map(|(name, text)| (Path::new("wit").join(name), (*text).to_owned()))
        .collect();
    match spec.lang {
        Lang::Rust => {
            let list = class_names
                .iter()
                .map(|c| format!("&{c}"))
                .collect::<Vec<_>>()
                .join(", ");
            let lib = fill(
                include_str!("templates/rust/lib.rs"),
                &[
                    ("CLASS_LIST", list),
                    (
                        "CLASSES",
                        per_class(include_str!("templates/rust/class.rs")),
                    ),
                ],
            );
            files.push((
                "Cargo.toml".into(),
                fill(include_str!("templates/rust/Cargo.toml"), &[]),
            ));
            files.push(("src/lib.rs".into(), lib));
            files.push((
                "README.md".into(),
                fill(include_str!("templates/rust/README.md"), &[]),
            ));
            files.push((
                ".gitignore".into(),
                include_str!("templates/rust/gitignore").to_owned(),
            ));
        }
        Lang::Python => {
            let app = fill(
                include_str!("templates/python/app.py"),
                &[
                    ("CLASS_LIST", class_names.join(", ")),
                    (
                        "CLASSES",
                        per_class(include_str!("templates/python/class.py")),
                    ),
                ],
            );
            files.push(("app.py".into(), app));
            files.push((
                "README.md".into(),
                fill(include_str!("templates/python/README.md"), &[]),
            ));
            files.push((
                ".gitignore".into(),
                include_str!("templates/python/gitignore").to_owned(),
            ));
        }
    }
    for ((yaml, ty), class) in yamls.iter().zip(&types).zip(&classes) {
        let text = fill(
            include_str!("templates/type.yaml"),
            &[
                ("YAML", yaml.clone()),
                ("TYPE", ty.to_string()),
                ("CLASS", class.to_string()),
                ("DESCRIPTION", description(module, class)),
            ],
        );
        files.push((yaml.into(), text));
    }
    Ok(Plan {
        classes,
        types,
        files,
        component,
        commands,
    })
}

/// `myteam/node` → `node.yaml`.
fn yaml_file(ty: &TypeName) -> String {
    let name = ty.as_str().rsplit('/').next().unwrap_or(ty.as_str());
    format!("{name}.yaml")
}

/// A class's one line for `agents plugin show` and its type's description.
fn description(module: &ModuleName, class: &ClassName) -> String {
    format!("A directory handled by {module}:{class}")
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
