//! Tests of the `spec` module, one file per concern: the document shape,
//! per-field rules, registration arguments, the catalogue form,
//! inheritance rules, and field resolution.

use super::*;
use crate::model::{ArgType, ResolvedType, ResourceKind, SandboxStrategy};

mod args;
mod catalogue_form;
mod chain;
mod coherence;
mod fields;
mod merge;
mod proptests;
mod shape;

const SRC: &str = "types/acme.yaml";

/// Parse `yaml` as a custom type file, expecting success.
#[track_caller]
fn parsed(yaml: &str) -> TypeSpec {
    parse_type_file(yaml, SRC).unwrap_or_else(|e| panic!("refused: {e}"))
}

/// Parse `yaml` as a custom type file, expecting a refusal at `path`
/// whose reason contains every fragment; the message must read
/// `<source>: <path>: <reason>`.
#[track_caller]
fn refused(yaml: &str, path: &str, fragments: &[&str]) -> SpecError {
    let err = parse_type_file(yaml, SRC).expect_err("the spec was accepted");
    let msg = err.to_string();
    assert_eq!(err.source_name(), SRC, "{msg}");
    assert_eq!(err.path(), path, "{msg}");
    assert_eq!(msg, format!("{SRC}: {path}: {}", err.reason()));
    for fragment in fragments {
        assert!(
            err.reason().contains(fragment),
            "{msg}\n  lacks {fragment:?}"
        );
    }
    err
}

/// A valid physical root type `acme/t` followed by `extra` lines.
fn root(extra: &str) -> String {
    format!("name: acme/t\nresource_kind: physical\n{extra}")
}

fn tn(text: &str) -> TypeName {
    TypeName::parse(text).unwrap()
}

/// A set of declared specs standing in for the registry.
struct Types(Vec<TypeSpec>);

impl Types {
    /// Custom type files, each parsed on its own.
    #[track_caller]
    fn files(yamls: &[&str]) -> Self {
        Self(yamls.iter().map(|y| parsed(y)).collect())
    }

    fn lookup(&self) -> impl Fn(&TypeName) -> Option<TypeSpec> + '_ {
        |name| self.0.iter().find(|s| s.name == *name).cloned()
    }

    fn resolve(&self, name: &str) -> Result<ResolvedType, InheritanceError> {
        resolve(&tn(name), &self.lookup())
    }

    #[track_caller]
    fn resolved(&self, name: &str) -> ResolvedType {
        self.resolve(name).unwrap_or_else(|e| panic!("{e}"))
    }
}
