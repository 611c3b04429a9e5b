//! The built-in type catalogue: the one home of **which types exist
//! without registration**.
//!
//! The catalogue is data, `catalogue.yaml`, embedded in the binary and
//! read by the same parser as a custom type file
//! ([`typespec::parse_catalogue`]), so a built-in type is held to exactly the
//! rules a user's type is. Its tests prove that every entry parses and
//! resolves and that every type it names exists, which is why
//! [`specs`] and [`get`] may treat a parse failure as a bug rather than an error
//! to hand back.
//!
//! [`fingerprint`] is the sha256 of the YAML text, so the registry can
//! tell whether the built-in rows it seeded came from this binary's
//! catalogue: bootstrap stays idempotent at startup and current after an
//! upgrade.

use crate::digest::sha256_hex;
use crate::model::{TypeName, TypeSpec};
use crate::typespec;
use std::sync::OnceLock;

/// The catalogue's YAML text, embedded in the binary.
pub const CATALOGUE_YAML: &str = include_str!("catalogue.yaml");

/// The source name refusals about the catalogue carry.
pub const CATALOGUE_SOURCE: &str = "builtin/catalogue.yaml";

/// The built-in type specs (what `catalogue.yaml` declares), parsed and
/// validated, in file order.
pub fn specs() -> Vec<TypeSpec> {
    parsed().to_vec()
}

/// The built-in spec named `name`, if there is one — a `lookup` for
/// [`typespec::resolve`] over the built-in types alone.
pub fn get(name: &TypeName) -> Option<TypeSpec> {
    parsed().iter().find(|s| s.name == *name).cloned()
}

/// Parsed once per process.
fn parsed() -> &'static [TypeSpec] {
    static PARSED: OnceLock<Vec<TypeSpec>> = OnceLock::new();
    PARSED.get_or_init(|| {
        typespec::parse_catalogue(CATALOGUE_YAML, CATALOGUE_SOURCE).unwrap_or_else(|e| {
            panic!("the built-in catalogue is invalid (its tests catch this): {e}")
        })
    })
}

/// sha256 of [`CATALOGUE_YAML`], lowercase hex.
pub fn fingerprint() -> String {
    sha256_hex(CATALOGUE_YAML.as_bytes())
}

#[cfg(test)]
mod tests;
