//! What is private to the user running `agents`: the one home of the rule
//! that a directory or file the host trusts — its home, the registry file
//! and its log, the plugin store, the compile cache — belongs to that user
//! (or root) and is writable by nobody else, as ssh requires of its keys.
//!
//! Whoever may write such a place could swap what the host acts on: code
//! it runs (a plugin, a compiled component), or the rows that say which
//! directories it deletes and which plugins it loads. A file's own hash
//! check cannot stop a swap made the moment after it, so the place itself
//! must be closed. A place that is not is refused, saying why and how to
//! fix it; nothing is repaired behind the user's back — except that a
//! registry file *readable* by others is made 0600 (with a warning), since
//! closing it takes nothing from its owner and every home made before
//! this rule has one (see [`tighten_readable`]).
//!
//! The host also creates these places private: directories 0700, the
//! registry file 0600 (SQLite gives its `-wal` and `-shm` the main file's
//! mode), whatever the umask.

use std::fs::Metadata;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// Why `meta` (of `path`) is not private to this user, or `None` when it
/// is: owned by someone else (not root), or writable by its group or by
/// everyone. `could` says what such a writer could do, for the message.
pub(crate) fn fault(path: &Path, meta: &Metadata, could: &str) -> Option<String> {
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Some(format!(
            "it is owned by uid {}, not by you (uid {me}) or root, so its owner could {could}; \
             use a home of your own (--home DIR)",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
            (true, true) => "its group and everyone",
            (true, false) => "its group",
            _ => "everyone",
        };
        return Some(format!(
            "it is writable by {who} (mode {mode:04o}), so they could {could}; make it \
             private: chmod go-w {}",
            path.display()
        ));
    }
    None
}

/// [`fault`] for a directory holding a file: also accepted when writable
/// by others but sticky (`/tmp`), where nobody may rename or remove
/// another user's file.
pub(crate) fn parent_fault(path: &Path, meta: &Metadata, could: &str) -> Option<String> {
    if meta.mode() & 0o1000 != 0 {
        let me = rustix::process::geteuid().as_raw();
        return (meta.uid() != me && meta.uid() != 0)
            .then(|| fault(path, meta, could))
            .flatten();
    }
    fault(path, meta, could)
}

/// Make the registry file `path` (whose metadata is `meta`) unreadable by
/// others if it is readable by them; answers the mode it had when it was
/// changed. Files made before the host created them 0600 are 0644.
pub(crate) fn tighten_readable(path: &Path, meta: &Metadata) -> std::io::Result<Option<u32>> {
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 == 0 {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7700))?;
    Ok(Some(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_writable_by_others_is_refused_and_a_sticky_parent_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        let set = |mode| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode));
        set(0o755).unwrap();
        let meta = || std::fs::metadata(&dir).unwrap();
        assert_eq!(fault(&dir, &meta(), "x"), None);
        set(0o775).unwrap();
        let why = fault(&dir, &meta(), "swap it").unwrap();
        assert!(why.contains("writable by its group (mode 0775)"), "{why}");
        assert!(
            why.contains("swap it") && why.contains("chmod go-w"),
            "{why}"
        );
        set(0o1777).unwrap();
        assert!(fault(&dir, &meta(), "x").is_some());
        assert_eq!(parent_fault(&dir, &meta(), "x"), None);
    }

    #[test]
    fn a_file_readable_by_others_is_tightened_and_a_private_one_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("registry.db");
        std::fs::write(&file, "").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(tighten_readable(&file, &meta).unwrap(), Some(0o644));
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(tighten_readable(&file, &meta).unwrap(), None);
    }
}
