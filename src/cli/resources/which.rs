//! `agents resource which PATH`: the resources located at a path or above
//! it, nearest first (the library's `Registry::resources_at` decides the
//! order); the path as people type it — relative to the working
//! directory, or `~/…` — resolved here.

use super::text::resource_table;
use crate::cli::output::emit;
use crate::cli::{Context, Outcome};
use resource_host::text::quote;
use std::path::{Path, PathBuf};

/// Why a path names no place.
#[derive(Debug, thiserror::Error)]
#[error("cannot resolve path {path}: {source}; give an existing file or directory")]
pub struct PathRefused {
    path: String,
    source: std::io::Error,
}

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

/// `path` absolute and canonical (`~/` is the home directory).
fn resolve(path: &Path) -> Result<PathBuf, PathRefused> {
    let expanded = match path.strip_prefix("~") {
        Ok(rest) => {
            std::env::var_os("HOME").map_or_else(|| path.to_owned(), |h| Path::new(&h).join(rest))
        }
        Err(_) => path.to_owned(),
    };
    std::fs::canonicalize(&expanded).map_err(|source| PathRefused {
        path: quote(&path.to_string_lossy()),
        source,
    })
}
