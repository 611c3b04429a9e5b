//! Roots: the one home of *where* a registry may act on the filesystem
//! when it acts for someone who should not reach everything the user can
//! (an agent behind `agents mcp`, an embedder's sandboxed caller).
//!
//! **A root is a real directory.** Each is canonicalised when it is made
//! (symlinks resolved), so a root named through a symlink is the directory
//! it points at, and a path is compared with it **component-wise**:
//! `/work/a` contains `/work/a/b`, never `/work/ab`. No roots at all
//! (`Roots::none()`, what an intersection with nothing in common gives)
//! contains nothing: a registry holding it refuses every location.
//!
//! **A path is judged by what it really is.** [`Roots::contains`] takes a
//! path that is already real (a stored location, the kernel's own path of
//! an opened descriptor) and compares it as given; [`Roots::contains_location`]
//! resolves a stored location's directories again first, so a directory
//! swapped for a symlink since it was stored is judged by where it leads
//! now; [`Roots::contains_opened`] asks the kernel where an opened
//! descriptor is (`/proc/self/fd/N`), which no rename or symlink swap
//! between a check and a use can fool.
//!
//! What a registry does with roots (which operations check what) is the
//! registry's (`registry::roots`); this module only says what is inside.

use std::fmt;
use std::os::fd::{AsFd, AsRawFd};
use std::path::{Component, Path, PathBuf};
use thiserror::Error;

/// The directories a registry may act in (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Roots {
    /// Canonical, absolute, none inside another, in order.
    dirs: Vec<PathBuf>,
}

/// Why a directory cannot be a root.
#[derive(Debug, Error)]
pub enum RootsError {
    #[error("root {}: a root must be an absolute path", path.display())]
    Relative { path: PathBuf },
    #[error("root {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("root {}: it is not a directory (a root is a directory the registry may act in)", path.display())]
    NotADirectory { path: PathBuf },
}

impl Roots {
    /// No roots: nothing is inside.
    pub fn none() -> Self {
        Self::default()
    }

    /// The directories `dirs`, each absolute and existing, canonicalised.
    pub fn new<P: AsRef<Path>>(dirs: impl IntoIterator<Item = P>) -> Result<Self, RootsError> {
        let mut real = Vec::new();
        for dir in dirs {
            let path = dir.as_ref();
            if !path.is_absolute() {
                return Err(RootsError::Relative {
                    path: path.to_owned(),
                });
            }
            let canonical =
                std::fs::canonicalize(path).map_err(|source| RootsError::Unreadable {
                    path: path.to_owned(),
                    source,
                })?;
            if !canonical.is_dir() {
                return Err(RootsError::NotADirectory {
                    path: path.to_owned(),
                });
            }
            real.push(canonical);
        }
        Ok(Self::of_real(real))
    }

    /// Roots from directories already canonical (dropping any inside
    /// another, keeping the order of the rest).
    fn of_real(dirs: Vec<PathBuf>) -> Self {
        let mut kept: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            if kept.iter().any(|k| dir.starts_with(k)) {
                continue;
            }
            kept.retain(|k| !k.starts_with(&dir));
            kept.push(dir);
        }
        Self { dirs: kept }
    }

    /// The roots, canonical.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// What both `self` and `other` cover: a root of one inside a root of
    /// the other narrows it; one outside every root of the other adds
    /// nothing.
    pub fn intersect(&self, other: &Roots) -> Roots {
        let mut both = Vec::new();
        for a in &self.dirs {
            for b in &other.dirs {
                if b.starts_with(a) {
                    both.push(b.clone());
                } else if a.starts_with(b) {
                    both.push(a.clone());
                }
            }
        }
        Self::of_real(both)
    }

    /// Whether the real, absolute `path` is a root or below one
    /// (component-wise; a path with `..` or `.` is never inside).
    pub fn contains(&self, path: &Path) -> bool {
        let plain = path.is_absolute()
            && path
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        plain && self.dirs.iter().any(|root| path.starts_with(root))
    }

    /// Whether a stored location (real when stored; its last component
    /// may be a symlink, named and never followed) is inside, as stored
    /// and as its directories resolve now.
    pub fn contains_location(&self, location: &Path) -> bool {
        if !self.contains(location) {
            return false;
        }
        let now = match (location.parent(), location.file_name()) {
            (Some(parent), Some(name)) => match std::fs::canonicalize(parent) {
                Ok(real) => real.join(name),
                // Gone: nothing there to act on; judged as stored.
                Err(_) => return true,
            },
            _ => location.to_owned(),
        };
        self.contains(&now)
    }

    /// Whether the file or directory `fd` was opened on lies inside, by
    /// the kernel's own path of the descriptor.
    pub fn contains_opened(&self, fd: impl AsFd) -> std::io::Result<bool> {
        let real = opened_path(fd)?;
        Ok(self.contains(&real))
    }
}

/// The kernel's own path of an opened descriptor.
pub fn opened_path(fd: impl AsFd) -> std::io::Result<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd()))
}

impl fmt::Display for Roots {
    /// `/a, /b`, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dirs.is_empty() {
            return f.write_str("none");
        }
        let mut first = true;
        for dir in &self.dirs {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{}", dir.display())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(dir: &tempfile::TempDir) -> PathBuf {
        std::fs::canonicalize(dir.path()).unwrap()
    }

    #[test]
    fn a_root_contains_what_is_below_it_component_wise() {
        let dir = tempfile::tempdir().unwrap();
        let a = real(&dir).join("a");
        std::fs::create_dir(&a).unwrap();
        let roots = Roots::new([&a]).unwrap();
        assert!(roots.contains(&a));
        assert!(roots.contains(&a.join("b/c")));
        assert!(!roots.contains(&real(&dir).join("ab")));
        assert!(!roots.contains(&real(&dir)));
        assert!(!roots.contains(&a.join("../x")));
        assert!(!roots.contains(Path::new("relative")));
    }

    #[test]
    fn a_root_named_through_a_symlink_is_the_directory_it_points_at() {
        let dir = tempfile::tempdir().unwrap();
        let target = real(&dir).join("target");
        std::fs::create_dir(&target).unwrap();
        std::os::unix::fs::symlink(&target, real(&dir).join("link")).unwrap();
        let roots = Roots::new([real(&dir).join("link")]).unwrap();
        assert_eq!(roots.dirs(), std::slice::from_ref(&target));
        assert!(roots.contains(&target.join("f")));
    }

    #[test]
    fn a_root_must_be_an_absolute_existing_directory() {
        assert!(matches!(
            Roots::new(["rel"]),
            Err(RootsError::Relative { .. })
        ));
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Roots::new([real(&dir).join("missing")]),
            Err(RootsError::Unreadable { .. })
        ));
        std::fs::write(real(&dir).join("f"), "x").unwrap();
        assert!(matches!(
            Roots::new([real(&dir).join("f")]),
            Err(RootsError::NotADirectory { .. })
        ));
    }

    #[test]
    fn an_intersection_narrows_to_what_both_cover() {
        let dir = tempfile::tempdir().unwrap();
        let base = real(&dir);
        for d in ["a/inner", "b", "c"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        let server = Roots::new([base.join("a"), base.join("b")]).unwrap();
        let client = Roots::new([base.join("a/inner"), base.join("c"), base.clone()]).unwrap();
        // `base` covers both server roots; `a/inner` is inside `a`; `c` is
        // outside every server root and adds nothing.
        let both = server.intersect(&client);
        assert_eq!(both.dirs(), [base.join("a"), base.join("b")]);
        let narrow = Roots::new([base.join("a/inner"), base.join("c")]).unwrap();
        assert_eq!(server.intersect(&narrow).dirs(), [base.join("a/inner")]);
        assert!(server.intersect(&Roots::none()).is_empty());
        assert_eq!(Roots::none().to_string(), "none");
    }

    #[test]
    fn a_location_whose_directory_became_a_symlink_out_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let base = real(&dir);
        std::fs::create_dir_all(base.join("root/sub")).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        let roots = Roots::new([base.join("root")]).unwrap();
        let stored = base.join("root/sub/file");
        assert!(roots.contains_location(&stored));
        std::fs::remove_dir(base.join("root/sub")).unwrap();
        std::os::unix::fs::symlink(base.join("out"), base.join("root/sub")).unwrap();
        assert!(!roots.contains_location(&stored));
    }

    #[test]
    fn an_opened_file_is_judged_by_where_the_kernel_says_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let base = real(&dir);
        std::fs::create_dir_all(base.join("root")).unwrap();
        std::fs::write(base.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), base.join("root/link")).unwrap();
        let roots = Roots::new([base.join("root")]).unwrap();
        let file = std::fs::File::open(base.join("root/link")).unwrap();
        assert!(!roots.contains_opened(&file).unwrap());
    }
}
