//! What a guest may name in a git question: object ids, paths and branch
//! names checked so that none can become an option, a revision
//! expression or a path outside the repository.

use super::GitError;
use std::path::Path;

/// An object id: 4 to 64 lowercase hex digits (a prefix or a full id).
pub(super) fn check_id(id: &str) -> Result<(), GitError> {
    let ok = (4..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit());
    if ok {
        Ok(())
    } else {
        Err(GitError::Invalid(format!(
            "{} is not an object id (4 to 64 hex digits)",
            crate::text::quote(id)
        )))
    }
}

/// A work tree path: relative, `/`-separated, no `..`, no control
/// characters.
pub(super) fn check_path(path: &str) -> Result<(), GitError> {
    let p = Path::new(path);
    let ok = !path.is_empty()
        && !p.is_absolute()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        && !path.chars().any(char::is_control);
    if ok {
        Ok(())
    } else {
        Err(GitError::Invalid(format!(
            "{} is not a relative path inside the work tree",
            crate::text::quote(path)
        )))
    }
}

/// A branch name git would accept for `refs/heads/…`, and nothing that
/// could read as an option or a revision expression.
pub(super) fn check_branch(name: &str) -> Result<(), GitError> {
    let bad = name.is_empty()
        || name.starts_with('-')
        || name.starts_with('/')
        || name.ends_with('/')
        || name.ends_with(".lock")
        || name.contains("..")
        || name.contains("@{")
        || name
            .chars()
            .any(|c| c.is_control() || " ~^:?*[\\".contains(c));
    if bad {
        Err(GitError::Invalid(format!(
            "{} is not a branch name",
            crate::text::quote(name)
        )))
    } else {
        Ok(())
    }
}
