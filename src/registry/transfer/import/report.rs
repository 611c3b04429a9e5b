//! What an import answers. What it lists when it refuses (every
//! conflict, every missing plugin file, every missing type) is the
//! refusal's, in `registry::error`.

use crate::store::ResourceRow;
use serde::Serialize;

/// How [`Registry::import_document`](crate::registry::Registry::import_document)
/// imports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Check and rehearse everything, write nothing.
    pub dry_run: bool,
}

impl ImportOptions {
    /// Check and rehearse everything, write nothing.
    pub fn dry_run() -> Self {
        Self { dry_run: true }
    }
}

/// What an import added, and what it found already there, identical.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImportReport {
    /// Nothing was written (`--dry-run`): this is what would be.
    pub dry_run: bool,
    pub types: Tally,
    pub plugins: Tally,
    pub resources: Tally,
    pub links: Tally,
    pub environment_settings: Tally,
    /// The component files the import put into the plugin store (would
    /// put, in a dry run), by sha256.
    pub plugin_files: Vec<String>,
    /// The document was exported by a binary with this binary's
    /// built-in catalogue (when it is not, its resources of built-in
    /// types are still checked against the types here).
    pub same_builtin_catalogue: bool,
    /// URLs in the new resources' properties whose credentials (a URL's
    /// user information) were removed rather than stored.
    pub credentials_removed: usize,
}

/// How many items of one section were added, and how many were already
/// there exactly as the document has them (left as they are).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Tally {
    pub added: usize,
    pub unchanged: usize,
}

impl ImportReport {
    /// Nothing to add: the registry already holds the whole document.
    pub fn is_no_op(&self) -> bool {
        self.tallies().iter().all(|(_, t)| t.added == 0)
    }

    /// Each section's tally, under the section's name.
    pub(super) fn tallies(&self) -> [(&'static str, Tally); 5] {
        [
            ("types", self.types),
            ("plugins", self.plugins),
            ("resources", self.resources),
            ("links", self.links),
            ("environment_settings", self.environment_settings),
        ]
    }
}

/// The columns in which two rows of the same resource differ.
pub(super) fn differing_fields(a: &ResourceRow, b: &ResourceRow) -> Vec<&'static str> {
    differing([
        ("resource_id", a.id == b.id),
        ("name", a.name == b.name),
        ("resource_type_name", a.type_name == b.type_name),
        ("classification", a.kind == b.kind),
        ("location", a.location == b.location),
        ("description", a.description == b.description),
        ("read_only", a.read_only == b.read_only),
        ("auto_discovered", a.auto_discovered == b.auto_discovered),
        ("sandbox_strategy", a.sandbox_strategy == b.sandbox_strategy),
        ("content_hash", a.content_hash == b.content_hash),
        ("properties", a.properties == b.properties),
        ("created_at", a.created_at == b.created_at),
        ("updated_at", a.updated_at == b.updated_at),
        ("discovered_at", a.discovered_at == b.discovered_at),
        ("stale", a.stale == b.stale),
    ])
}

/// The names of the `(name, same)` pairs that are not the same.
pub(super) fn differing<const N: usize>(fields: [(&'static str, bool); N]) -> Vec<&'static str> {
    fields
        .into_iter()
        .filter_map(|(name, same)| (!same).then_some(name))
        .collect()
}
