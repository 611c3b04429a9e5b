//! What a scaffold is called, derived from the module name: the default
//! class (`myteam.node` → `NodeHandler`), each class's type
//! (`myteam.node` + `NodeHandler` → `myteam/node`), the project directory
//! and crate (`myteam-node`) and the component file (`myteam_node.wasm`).
//! Every derived name goes through its checked type, so a scaffold never
//! holds a name the registry would refuse.

use crate::model::{ClassName, ModuleName, NameError, TypeName};

/// `myteam.node` → `NodeHandler`: the last segment in CamelCase.
pub fn default_class(module: &ModuleName) -> ClassName {
    let last = module.as_str().rsplit('.').next().unwrap_or_default();
    let camel: String = last
        .split(['_', '-'])
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    ClassName::parse(&format!("{camel}Handler")).expect("letters, digits and `_` make a class name")
}

/// The type a class handles: `<first module segment>/<class in kebab case,
/// without a trailing "Handler">`.
pub fn type_name(module: &ModuleName, class: &ClassName) -> Result<TypeName, NameError> {
    let first = module.as_str().split('.').next().unwrap_or_default();
    let stem = class
        .as_str()
        .strip_suffix("Handler")
        .filter(|s| !s.is_empty())
        .unwrap_or(class.as_str());
    TypeName::parse_custom(&format!("{}/{}", kebab(first), kebab(stem)))
}

/// `myteam.node` → `myteam-node`: the directory and crate name.
pub fn project(module: &ModuleName) -> String {
    module.as_str().replace('.', "-").to_ascii_lowercase()
}

/// `myteam.node` → `myteam_node.wasm`: what the build writes (cargo turns
/// the crate's `-` into `_`; the Python build is told the same name).
pub fn component_file(module: &ModuleName) -> String {
    format!("{}.wasm", project(module).replace('-', "_"))
}

/// `PackageJSONReader` → `package-json-reader`, `my_team` → `my-team`.
fn kebab(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' {
            out.push('-');
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let starts_word = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(char::is_ascii_lowercase))
            });
        if starts_word {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    // Separators collapse; none at either end.
    out.split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> ModuleName {
        ModuleName::parse(text).unwrap()
    }

    fn class(text: &str) -> ClassName {
        ClassName::parse(text).unwrap()
    }

    #[test]
    fn the_default_class_is_the_last_module_segment_in_camel_case() {
        assert_eq!(
            default_class(&module("myteam.node")).as_str(),
            "NodeHandler"
        );
        assert_eq!(
            default_class(&module("acme.python_pkg")).as_str(),
            "PythonPkgHandler"
        );
        assert_eq!(
            default_class(&module("acme.git-ish")).as_str(),
            "GitIshHandler"
        );
    }

    #[test]
    fn a_class_s_type_lives_in_the_module_s_first_segment_in_kebab_case() {
        let m = module("myteam.node");
        assert_eq!(
            type_name(&m, &class("NodeHandler")).unwrap().as_str(),
            "myteam/node"
        );
        assert_eq!(
            type_name(&m, &class("PackageJSONReader")).unwrap().as_str(),
            "myteam/package-json-reader"
        );
        assert_eq!(
            type_name(&module("my_team.x"), &class("Handler"))
                .unwrap()
                .as_str(),
            "my-team/handler"
        );
        assert_eq!(
            type_name(&m, &class("V2Parser")).unwrap().as_str(),
            "myteam/v2-parser"
        );
    }

    #[test]
    fn a_type_name_that_cannot_be_made_is_refused_not_mangled() {
        // "builtin" is a reserved namespace; a class of digits and `_` has
        // no letter to start a part with.
        assert!(type_name(&module("builtin.x"), &class("XHandler")).is_err());
        assert!(type_name(&module("myteam.x"), &class("_9")).is_err());
    }

    #[test]
    fn the_project_and_component_file_follow_cargo_s_naming() {
        let m = module("MyTeam.node_pkg");
        assert_eq!(project(&m), "myteam-node_pkg");
        assert_eq!(component_file(&m), "myteam_node_pkg.wasm");
    }
}
