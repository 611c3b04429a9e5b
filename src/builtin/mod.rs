//! The built-in type catalogue: the one home of **which types exist
//! without registration**.
//!
//! The catalogue is data, `catalogue.yaml`, embedded in the binary and
//! read by the same parser as a custom type file
//! ([`spec::parse_catalogue`]), so a built-in type is held to exactly the
//! rules a user's type is. Its tests prove that every entry parses and
//! resolves and that every type it names exists, which is why
//! [`catalogue`] may treat a parse failure as a bug rather than an error
//! to hand back.
//!
//! [`fingerprint`] is the sha256 of the YAML text, so the registry can
//! tell whether the built-in rows it seeded came from this binary's
//! catalogue: bootstrap stays idempotent at startup and current after an
//! upgrade.

use crate::model::{TypeName, TypeSpec};
use crate::spec;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The catalogue's YAML text, embedded in the binary.
pub const CATALOGUE_YAML: &str = include_str!("catalogue.yaml");

/// The source name refusals about the catalogue carry.
pub const CATALOGUE_SOURCE: &str = "builtin/catalogue.yaml";

/// The built-in type specs, parsed and validated, in catalogue order.
pub fn catalogue() -> Vec<TypeSpec> {
    parsed().to_vec()
}

/// The built-in spec named `name`, if there is one — a `lookup` for
/// [`spec::resolve`] over the built-in types alone.
pub fn get(name: &TypeName) -> Option<TypeSpec> {
    parsed().iter().find(|s| s.name == *name).cloned()
}

/// Parsed once per process.
fn parsed() -> &'static [TypeSpec] {
    static PARSED: OnceLock<Vec<TypeSpec>> = OnceLock::new();
    PARSED.get_or_init(|| {
        spec::parse_catalogue(CATALOGUE_YAML, CATALOGUE_SOURCE).unwrap_or_else(|e| {
            panic!("the built-in catalogue is invalid (its tests catch this): {e}")
        })
    })
}

/// sha256 of [`CATALOGUE_YAML`], lowercase hex.
pub fn fingerprint() -> String {
    sha256_hex(CATALOGUE_YAML.as_bytes())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests;
