//! A scaffold's files as text, before anything is written: which
//! classes and types, the templates filled for each, and the commands the
//! README and `plugin new` give.

use super::{Lang, NewPlugin, ScaffoldError, names};
use crate::model::{ClassName, ModuleName, TypeName};
use crate::plugin::ContractVersion;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The files of a scaffold, before anything is written.
pub(super) struct Plan {
    pub classes: Vec<ClassName>,
    pub types: Vec<TypeName>,
    pub files: Vec<(PathBuf, String)>,
    pub component: PathBuf,
    pub commands: Vec<String>,
}

pub(super) fn plan(spec: &NewPlugin) -> Result<Plan, ScaffoldError> {
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
    // The component carries its type files: a Rust build embeds them
    // (src/lib.rs), a Python one gets them from `agents plugin pack`; so
    // adding the plugin registers its types.
    let mut commands = match spec.lang {
        Lang::Rust => vec!["cargo build --release --target wasm32-wasip2".to_owned()],
        Lang::Python => vec![
            format!("componentize-py -d wit -w resource-handler componentize app -o {wasm}"),
            format!(
                "agents plugin pack {wasm} {}",
                yamls
                    .iter()
                    .map(|y| format!("--types {y}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ],
    };
    commands.push(format!("agents plugin add {}", component.display()));
    let embeds = yamls
        .iter()
        .enumerate()
        .map(|(i, y)| {
            format!(
                "#[cfg(target_arch = \"wasm32\")]\n#[used]\n\
                 #[unsafe(link_section = \"cleveragents:resource-types\")]\n\
                 static TYPE_FILE_{i}: TypeFile<{{ include_bytes!(\"../{y}\").len() }}> =\n    \
                 TypeFile::new(*include_bytes!(\"../{y}\"));\n"
            )
        })
        .collect::<Vec<_>>()
        .join("\n");

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
        ("BUILD_COMMANDS", commands[..commands.len() - 1].join("\n")),
        ("ADD_COMMAND", commands[commands.len() - 1].clone()),
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
                    ("TYPE_EMBEDS", embeds.clone()),
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
