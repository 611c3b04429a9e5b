//! Which directories the host takes code from: the one home of the rule
//! that compiled components and plugin files are only read from, and
//! written to, directories nobody but their owner can write.
//!
//! A plugin file is checked against its registered sha256 at every load,
//! and a compile-cache entry against the sha256 of the wasm it was
//! compiled from, so a file *changed* by someone else is refused anyway.
//! What those checks cannot stop is someone who may write the directory
//! swapping a file in the moment after it was checked; so, as ssh does
//! with its keys, the directory itself must be private: owned by the user
//! running `agents` (or root) and writable by no group and no one else.
//! The host creates these directories that way (mode 0700); one that has
//! been opened up since is refused with the reason and the fix. The rule
//! itself is `crate::private_dir`'s (the sandboxes directory follows it
//! too); this module words it for code.

use super::error::PluginError;
use std::path::Path;

/// Create `dir` (and its parents) private if missing, then refuse it
/// unless it is private (`crate::private_dir`).
pub(crate) fn check_private_dir(dir: &Path) -> Result<(), PluginError> {
    let checked = crate::private_dir::check(dir).map_err(|source| PluginError::Io {
        what: "preparing directory",
        path: dir.to_owned(),
        source,
    })?;
    checked.map_err(|exposed| PluginError::InsecureDir {
        path: dir.to_owned(),
        why: exposed.explain(dir, "they could swap in code the host would run"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_missing_directory_is_created_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        check_private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn a_group_or_world_writable_directory_is_refused_saying_how_to_fix_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = check_private_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("writable by its group and everyone"), "{err}");
        assert!(err.contains("chmod go-w"), "{err}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(
            check_private_dir(&dir).is_ok(),
            "read-only for others is fine"
        );
    }
}
