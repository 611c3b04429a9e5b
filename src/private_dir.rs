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

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
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
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Ok(Err(Exposed::Owner {
            uid: meta.uid(),
            me,
        }));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Ok(Err(Exposed::Writable { mode }));
    }
    Ok(Ok(()))
}

/// (The created-private and writable cases are tested through their
/// first caller, `plugin::trust`.)
#[cfg(test)]
mod tests {
    use super::*;

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
