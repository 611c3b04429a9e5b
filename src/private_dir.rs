//! Private directories: the one home of the rule that a directory the
//! host takes code from, or writes into on its user's behalf, is one
//! nobody but its owner can change — owned by the user running `agents`
//! (or root) and writable by no group and no one else, as ssh requires of
//! its keys.
//!
//! Someone who may write such a directory can swap what is in it the
//! moment after the host checked it: a plugin file for other code (the
//! plugin store, the compile cache), a sandbox's area for a link to a
//! directory elsewhere that `destroy` would then remove (`sandboxes/`).
//! The host creates these directories private (mode 0700); one opened up
//! since, or made by someone else, is refused with the reason and the fix.
//! Each caller words the refusal for what it protects.
//!
//! The same rule holds for the home itself and for the registry file and
//! its `-wal`/`-shm` ([`exposed`], on their metadata): whoever may write
//! those chooses the rows, and so which directories `sandbox destroy`
//! deletes and which plugins run. The directory holding a registry file
//! named elsewhere may be writable by others if it is sticky (`/tmp`,
//! [`exposed_parent`]). One thing is repaired rather than refused: a
//! registry file *readable* by others is made 0600 ([`tighten_readable`]),
//! since closing it takes nothing from its owner and every home made
//! before the host created them 0600 has a 0644 one.

use std::fs::Metadata;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::Path;

/// Why a directory is not private.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Exposed {
    /// Owned by another user (not root).
    Owner { uid: u32, me: u32 },
    /// Writable by its group or everyone (`mode`: its permission bits).
    Writable { mode: u32 },
}

impl Exposed {
    /// What is wrong and how to fix it; `risk` says what someone else
    /// could do there (`they could swap in code the host would run`).
    pub(crate) fn explain(&self, dir: &Path, risk: &str) -> String {
        match self {
            Exposed::Owner { uid, me } => format!(
                "it is owned by uid {uid}, not by you (uid {me}) or root, so {risk}; use a \
                 directory of your own"
            ),
            Exposed::Writable { mode } => {
                let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
                    (true, true) => "its group and everyone",
                    (true, false) => "its group",
                    _ => "everyone",
                };
                format!(
                    "it is writable by {who} (mode {mode:04o}), so {risk}; make it private: \
                     chmod go-w {}",
                    dir.display()
                )
            }
        }
    }
}

/// Create `dir` (and its parents) private if missing, then say whether
/// it is private (`Ok(Err(_))`: it is not, and why).
pub(crate) fn check(dir: &Path) -> std::io::Result<Result<(), Exposed>> {
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let meta = std::fs::metadata(dir)?;
    Ok(exposed(&meta).map_or(Ok(()), Err))
}

/// Why a directory or file with metadata `meta` is not private, if it is
/// not: owned by another user (not root), or writable by its group or
/// everyone.
pub(crate) fn exposed(meta: &Metadata) -> Option<Exposed> {
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Some(Exposed::Owner {
            uid: meta.uid(),
            me,
        });
    }
    let mode = meta.mode() & 0o7777;
    (mode & 0o022 != 0).then_some(Exposed::Writable { mode })
}

/// [`exposed`] for the directory holding a file: writable by others is
/// accepted when it is sticky (`/tmp`), where nobody may rename or remove
/// another user's file.
pub(crate) fn exposed_parent(meta: &Metadata) -> Option<Exposed> {
    match exposed(meta) {
        Some(Exposed::Writable { mode }) if mode & 0o1000 != 0 => None,
        other => other,
    }
}

/// Make the file `path` (metadata `meta`) unreadable by others if it is
/// readable by them; answers the mode it had when it was changed.
pub(crate) fn tighten_readable(path: &Path, meta: &Metadata) -> std::io::Result<Option<u32>> {
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 == 0 {
        return Ok(None);
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o7700))?;
    Ok(Some(mode))
}

/// (The created-private and writable cases are tested through their
/// first caller, `plugin::trust`.)
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sticky_parent_writable_by_others_is_accepted_and_a_plain_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        let set = |mode| std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode));
        let meta = || std::fs::metadata(&dir).unwrap();
        set(0o777).unwrap();
        assert_eq!(
            exposed_parent(&meta()),
            Some(Exposed::Writable { mode: 0o777 })
        );
        set(0o1777).unwrap();
        assert_eq!(exposed_parent(&meta()), None);
        assert!(
            exposed(&meta()).is_some(),
            "a home must not be sticky-shared"
        );
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

    #[test]
    fn a_directory_owned_by_someone_else_is_refused_naming_the_owner() {
        if rustix::process::geteuid().as_raw() != 0 {
            return; // only root can give a directory away
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("theirs");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::chown(&dir, Some(4321), None).unwrap();
        let exposed = check(&dir).unwrap().unwrap_err();
        assert_eq!(exposed, Exposed::Owner { uid: 4321, me: 0 });
        assert!(exposed.explain(&dir, "x").contains("owned by uid 4321"));
    }
}
