//! YAML type specs: the only place that reads YAML. (Stub: filled in by
//! the spec work.)

use crate::model::{ResolvedType, TypeName, TypeSpec};
use thiserror::Error;

/// Why a type file was refused: the file, the field path and the reason.
#[derive(Debug, Error)]
pub enum SpecError {
    #[error("{source_name}: {path}: {reason}")]
    Invalid {
        source_name: String,
        path: String,
        reason: String,
    },
}

/// Why a type's inheritance chain could not be resolved.
#[derive(Debug, Error)]
pub enum InheritanceError {
    #[error("type {name} inherits {parent}, which does not exist")]
    MissingParent { name: TypeName, parent: TypeName },
}

/// Parse one custom type file (bare names and `built_in: true` refused).
pub fn parse_type_file(text: &str, source_name: &str) -> Result<TypeSpec, SpecError> {
    let _ = (text, source_name);
    unimplemented!("spec work pending")
}

/// Parse the built-in catalogue (a YAML list of specs; bare names required).
pub fn parse_catalogue(text: &str, source_name: &str) -> Result<Vec<TypeSpec>, SpecError> {
    let _ = (text, source_name);
    unimplemented!("spec work pending")
}

/// Resolve `name` through its inheritance chain; `lookup` returns the
/// declared spec of any registered type.
pub fn resolve(
    name: &TypeName,
    lookup: &dyn Fn(&TypeName) -> Option<TypeSpec>,
) -> Result<ResolvedType, InheritanceError> {
    let _ = (name, lookup);
    unimplemented!("spec work pending")
}
