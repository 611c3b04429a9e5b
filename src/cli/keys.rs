//! A NAME_OR_ID argument as every verb takes it: an id, a name, or the
//! path as people type it — relative to the working directory, or `~/…` —
//! resolved here to the canonical location the library looks up.

use crate::cli::Failure;
use resource_host::model::{ResourceKey, TypeName};
use resource_host::text::quote;
use std::path::{Path, PathBuf};

/// Why a path names no place.
#[derive(Debug, thiserror::Error)]
#[error("cannot resolve path {path}: {source}; give an existing file or directory")]
pub struct PathRefused {
    path: String,
    source: std::io::Error,
}

/// A NAME_OR_ID argument as the CLI takes it: an id, a name, or a path —
/// absolute, or starting `./`, `../` or `~/` (`.`, `..` and `~` alone
/// too) — resolved here to the canonical location the library looks up
/// ([`ResourceKey::Location`]).
pub(in crate::cli) fn key_arg(text: &str) -> Result<ResourceKey, String> {
    let is_path = text.starts_with('/')
        || ["./", "../", "~/"].iter().any(|p| text.starts_with(p))
        || matches!(text, "." | ".." | "~");
    if !is_path {
        return ResourceKey::parse(text).map_err(|e| e.to_string());
    }
    resolve(Path::new(text))
        .map(ResourceKey::at)
        .map_err(|e| e.to_string())
}

/// `key` choosing the resource of `type_name` at its location, when
/// `--type` was given; refused for an id or a name, which need no choice.
pub(in crate::cli) fn of_type(
    key: ResourceKey,
    type_name: Option<TypeName>,
) -> Result<ResourceKey, Failure> {
    let Some(t) = type_name else {
        return Ok(key);
    };
    let shown = key.to_string();
    key.of_type(t).ok_or_else(|| {
        Failure::Usage(format!(
            "--type chooses among the resources at a path; {} names one resource already",
            quote(&shown)
        ))
    })
}

/// `path` absolute and canonical (`~/` is the home directory).
pub(in crate::cli) fn resolve(path: &Path) -> Result<PathBuf, PathRefused> {
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
