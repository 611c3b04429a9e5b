//! `agents resource which PATH`: the resources located at a path or above
//! it, nearest first (the library's `Registry::resources_at` decides the
//! order); the path as people type it is resolved by `cli::keys`.

use super::text::resource_table;
use crate::cli::keys::resolve;
use crate::cli::output::emit;
use crate::cli::{Context, Outcome};
use std::path::Path;

/// `resource which PATH`.
pub(in crate::cli) fn run(ctx: &Context, path: &Path) -> Outcome {
    let place = resolve(path)?;
    let found = ctx.open()?.resources_at(&place)?;
    emit(ctx.format, &found, || {
        if found.is_empty() {
            format!(
                "no resource is located at {} or above it\n",
                resource_host::text::escape_line(&place.to_string_lossy())
            )
        } else {
            resource_table(&found)
        }
    })
}
