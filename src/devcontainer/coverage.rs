//! The files a trust digest covers, as they are gathered: the one home of
//! how each file a resolved configuration names is read (inside the
//! repository, by descriptor, bounded), recorded (role, path in the
//! repository, sha256 — or `absent`), and how a path that cannot be
//! covered is refused, naming the key that named it.
//!
//! A path recorded as **absent** is one a host command names that does not
//! exist yet: if it appears later, the digest changes, so a script created
//! after consent never runs without a new one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::DevcontainerError;
use super::compose;
use super::files::{Refused, Repository};

/// The sha256 recorded for a path that does not exist.
pub const ABSENT: &str = "absent";

/// How many files a local feature (its whole directory) may hold.
pub const MAX_FEATURE_FILES: usize = 1024;

/// Absolute paths a host command may name without their content being
/// covered: the system's own programs and configuration, which a
/// repository cannot write.
const SYSTEM: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc",
    "/dev/null",
];

/// One file the digest covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoveredFile {
    /// What it is to the configuration (`configuration`, `Dockerfile`, …).
    pub role: String,
    /// Its path inside the repository.
    pub path: String,
    /// Its sha256, or [`ABSENT`].
    pub sha256: String,
}

/// The covered files being gathered.
pub(super) struct Files<'a> {
    pub repo: &'a Repository,
    pub config: PathBuf,
    list: Vec<CoveredFile>,
}

impl<'a> Files<'a> {
    pub fn new(repo: &'a Repository, config: &Path) -> Self {
        Self {
            repo,
            config: config.to_path_buf(),
            list: Vec::new(),
        }
    }

    pub fn refuse(&self, reason: String) -> DevcontainerError {
        DevcontainerError::Config {
            path: self.config.clone(),
            reason,
        }
    }

    /// `path` (relative to the repository's folder `base`) inside the
    /// repository, or the refusal naming `key`.
    pub fn inside(
        &self,
        base: &Path,
        path: &Path,
        key: &str,
    ) -> Result<PathBuf, DevcontainerError> {
        compose::Reader::inside(self, base, &path.to_string_lossy(), key)
            .map_err(|e| self.refuse(e))
    }

    pub fn read(&mut self, rel: &Path, role: &str) -> Result<Vec<u8>, DevcontainerError> {
        compose::Reader::read(self, rel, role).map_err(|e| self.refuse(e))
    }

    /// [`Files::read`], the refusal naming the key that named it.
    pub fn read_for(
        &mut self,
        rel: &Path,
        role: &str,
        key: &str,
    ) -> Result<Vec<u8>, DevcontainerError> {
        let bytes = self
            .repo
            .read(rel)
            .map_err(|e| self.refuse(format!("{key} {}: {e}", shown(self.repo.path(rel)))))?;
        self.add(role, rel, &bytes);
        Ok(bytes)
    }

    pub fn optional(&mut self, rel: &Path, role: &str) -> Result<(), DevcontainerError> {
        compose::Reader::optional(self, rel, role)
            .map(drop)
            .map_err(|e| self.refuse(e))
    }

    /// Every regular file below the directory `rel` (a local feature),
    /// covered; a symlink or special file in it is refused.
    pub fn directory(
        &mut self,
        rel: &Path,
        role: &str,
        key: &str,
    ) -> Result<(), DevcontainerError> {
        let names = self
            .repo
            .files_below(rel, MAX_FEATURE_FILES)
            .map_err(|e| self.refuse(format!("{key} {}: {e}", shown(self.repo.path(rel)))))?;
        for name in names {
            self.read(&name, role)?;
        }
        Ok(())
    }

    /// A word of a command run **on the host**, resolved from the
    /// workspace: a file in the repository is covered, a path that does
    /// not exist is recorded absent, a system path is left; anything else
    /// is refused.
    /// A `nested` word (module `commands`) that is not a file of the
    /// repository is left.
    pub fn host_word(
        &mut self,
        workspace: &Path,
        key: &str,
        word: &str,
        nested: bool,
    ) -> Result<(), DevcontainerError> {
        if word.starts_with('-') {
            return Ok(());
        }
        let path = Path::new(word);
        let refuse = |why: &str| {
            Err(self.refuse(format!(
                "{key} names {}, {why}: it runs on the host, so every file it names must be \
                 covered by your consent; copy what it needs into the repository",
                shown(word)
            )))
        };
        let rel = match self.repo.relative(workspace, path) {
            Ok(rel) => rel,
            Err(_) if path.is_absolute() && SYSTEM.iter().any(|s| path.starts_with(s)) => {
                return Ok(());
            }
            Err(_) if nested => return Ok(()),
            Err(_) => return refuse("which lies outside the repository"),
        };
        if rel.as_os_str().is_empty() || self.list.iter().any(|f| Path::new(&f.path) == rel) {
            return Ok(());
        }
        let role = format!("named by {key}");
        match self.repo.read(&rel) {
            Ok(bytes) => {
                self.add(&role, &rel, &bytes);
                Ok(())
            }
            Err(Refused::Missing) => {
                self.absent(&role, &rel);
                Ok(())
            }
            Err(Refused::NotRegular("directory")) if word == "." || nested => Ok(()),
            Err(Refused::NotRegular("directory")) => refuse(
                "a directory: what a command does with a directory's files the host cannot cover \
                 (name the files)",
            ),
            Err(e) => refuse(&format!("which is refused: {e}")),
        }
    }

    /// A word of a command run in the container: covered when it is a
    /// regular file of the repository; anything else is left.
    pub fn container_word(&mut self, workspace: &Path, key: &str, word: &str) {
        if word.starts_with('-') || self.list.len() > 4 * MAX_FEATURE_FILES {
            return;
        }
        let Ok(rel) = self.repo.relative(workspace, Path::new(word)) else {
            return;
        };
        if rel.as_os_str().is_empty() || self.list.iter().any(|f| Path::new(&f.path) == rel) {
            return;
        }
        if let Ok(bytes) = self.repo.read(&rel) {
            self.add(&format!("named by {key}"), &rel, &bytes);
        }
    }

    pub fn add(&mut self, role: &str, rel: &Path, bytes: &[u8]) {
        self.record(role, rel, crate::digest::sha256_hex(bytes));
    }

    fn absent(&mut self, role: &str, rel: &Path) {
        self.record(role, rel, ABSENT.into());
    }

    fn record(&mut self, role: &str, rel: &Path, sha256: String) {
        let path = rel.display().to_string();
        if self.list.iter().any(|f| f.path == path && f.role == role) {
            return;
        }
        self.list.push(CoveredFile {
            role: role.to_owned(),
            path,
            sha256,
        });
    }

    /// The configuration first, the rest by path.
    pub fn done(mut self) -> Vec<CoveredFile> {
        if self.list.len() > 1 {
            self.list[1..].sort_by(|a, b| a.path.cmp(&b.path).then(a.role.cmp(&b.role)));
        }
        self.list
    }
}

impl compose::Reader for Files<'_> {
    fn inside(&self, base: &Path, path: &str, what: &str) -> Result<PathBuf, String> {
        self.repo.relative(base, Path::new(path)).map_err(|e| {
            format!(
                "{what} {}: {e} ({}); the engine reads only files inside the repository",
                shown(path),
                self.repo.root().display()
            )
        })
    }

    fn read(&mut self, rel: &Path, role: &str) -> Result<Vec<u8>, String> {
        let bytes = self
            .repo
            .read(rel)
            .map_err(|e| format!("{role} {}: {e}", shown(self.repo.path(rel))))?;
        self.add(role, rel, &bytes);
        Ok(bytes)
    }

    fn optional(&mut self, rel: &Path, role: &str) -> Result<Option<Vec<u8>>, String> {
        match self.repo.read_optional(rel) {
            Ok(Some(bytes)) => {
                self.add(role, rel, &bytes);
                Ok(Some(bytes))
            }
            Ok(None) => {
                self.absent(role, rel);
                Ok(None)
            }
            Err(e) => Err(format!("{role} {}: {e}", shown(self.repo.path(rel)))),
        }
    }

    fn check_dir(&self, rel: &Path) -> Result<(), String> {
        self.repo
            .check_dir(rel)
            .map_err(|e| format!("{}: {e}", shown(self.repo.path(rel))))
    }

    fn is_file(&self, rel: &Path) -> bool {
        self.repo.check_file(rel).is_ok()
    }

    fn shown(&self, rel: &Path) -> String {
        self.repo.path(rel).display().to_string()
    }

    fn holds(&self, absolute: &Path) -> bool {
        absolute.starts_with(self.repo.root())
    }
}

pub(super) fn shown(path: impl AsRef<Path>) -> String {
    crate::text::quote(&path.as_ref().display().to_string())
}
