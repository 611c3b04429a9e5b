//! The plugin store on disk: the one home of how plugin files are kept.
//!
//! Files live under one directory (`<home>/plugins`), each named by the
//! sha256 of its bytes (`<sha256>.wasm`), so a name says what the content
//! must be. Import writes a temp file and renames it into place (never a
//! half-written plugin; the temp file a killed process left is removed by
//! the next write into the directory) and seals it (`seal`); a load checks the file
//! against its seal (one `stat` while the file is unchanged) and hashes it
//! again when the seal does not vouch for it, refusing a file whose hash
//! differs and naming both hashes. The rows that say which module a file
//! provides are the registry's, not this module's.

use super::error::PluginError;
use crate::atomic::write_atomic;
use crate::digest::{is_sha256_hex, sha256_hex};
use std::path::{Path, PathBuf};

/// Content-addressed plugin files under one directory.
#[derive(Debug, Clone)]
pub struct PluginFiles {
    dir: PathBuf,
}

/// A plugin file in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    pub sha256: String,
    pub path: PathBuf,
}

impl PluginFiles {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the file with hash `sha256` lives. Refuses text that is not a
    /// sha256, so no name can point outside the store.
    pub fn path_of(&self, sha256: &str) -> Result<PathBuf, PluginError> {
        if !is_sha256_hex(sha256) {
            return Err(PluginError::Invalid(format!(
                "{sha256:?} is not a sha256 (64 lowercase hex digits)"
            )));
        }
        Ok(self.dir.join(format!("{sha256}.wasm")))
    }

    /// Copy `wasm` into the store (atomically, durably); importing the same
    /// bytes again is a no-op.
    pub fn import(&self, wasm: &[u8]) -> Result<StoredFile, PluginError> {
        super::trust::check_private_dir(&self.dir)?;
        let sha256 = sha256_hex(wasm);
        let path = self.path_of(&sha256)?;
        let intact = std::fs::read(&path).is_ok_and(|bytes| sha256_hex(&bytes) == sha256);
        if !intact {
            write_atomic(&path, wasm, true).map_err(|source| PluginError::Io {
                what: "writing plugin file",
                path: path.clone(),
                source,
            })?;
        }
        super::seal::seal(&path, &sha256, &sha256);
        Ok(StoredFile { sha256, path })
    }

    /// The bytes of the stored file `sha256`, verified.
    pub fn read(&self, sha256: &str) -> Result<Vec<u8>, PluginError> {
        read_verified(&self.path_of(sha256)?, sha256)
    }

    /// Delete the stored file `sha256` (absent already is fine).
    pub fn remove(&self, sha256: &str) -> Result<(), PluginError> {
        let path = self.path_of(sha256)?;
        super::seal::unseal(&path);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(PluginError::Io {
                what: "removing plugin file",
                path,
                source: e,
            }),
            _ => Ok(()),
        }
    }
}

/// A stored plugin file found to hold the expected bytes.
#[derive(Debug)]
pub(crate) struct CheckedFile {
    /// Its size in bytes.
    pub size: u64,
    /// Its bytes, when they were read to check them (none when its seal
    /// vouched for it).
    pub bytes: Option<Vec<u8>>,
}

/// Check that the plugin file `path` (in a private directory) holds the
/// bytes whose hash is `sha256`: by its seal, or by hashing it (the bytes
/// are returned then, so a caller that needs them reads the file once).
/// A mismatch is [`PluginError::Tampered`] with both hashes.
pub(crate) fn check_stored(path: &Path, sha256: &str) -> Result<CheckedFile, PluginError> {
    use super::seal::{Checked, SealError};
    if let Some(dir) = path.parent() {
        super::trust::check_private_dir(dir)?;
    }
    match super::seal::check(path, sha256, Some(sha256)) {
        Ok(Checked::Sealed { size }) => Ok(CheckedFile { size, bytes: None }),
        Ok(Checked::Hashed(bytes)) => Ok(CheckedFile {
            size: bytes.len() as u64,
            bytes: Some(bytes),
        }),
        Err(SealError::Mismatch { expected, actual }) => Err(PluginError::Tampered {
            path: path.to_path_buf(),
            expected,
            actual,
        }),
        Err(SealError::Io(source)) => Err(PluginError::Io {
            what: "reading plugin file",
            path: path.to_path_buf(),
            source,
        }),
        Err(SealError::Unsealed) => unreachable!("the digest is given"),
    }
}

/// Read `path` (in a private directory) and check its bytes hash to
/// `sha256`; a mismatch is [`PluginError::Tampered`] with both hashes.
pub fn read_verified(path: &Path, sha256: &str) -> Result<Vec<u8>, PluginError> {
    if let Some(dir) = path.parent() {
        super::trust::check_private_dir(dir)?;
    }
    let bytes = std::fs::read(path).map_err(|source| PluginError::Io {
        what: "reading plugin file",
        path: path.to_path_buf(),
        source,
    })?;
    let actual = sha256_hex(&bytes);
    if actual != sha256 {
        return Err(PluginError::Tampered {
            path: path.to_path_buf(),
            expected: sha256.to_owned(),
            actual,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_imported_file_is_named_by_its_hash_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let files = PluginFiles::new(dir.path());
        let stored = files.import(b"\0asm-ish").unwrap();
        assert_eq!(
            stored.path,
            dir.path().join(format!("{}.wasm", stored.sha256))
        );
        assert_eq!(files.read(&stored.sha256).unwrap(), b"\0asm-ish");
        assert_eq!(files.import(b"\0asm-ish").unwrap(), stored, "idempotent");
    }

    #[test]
    fn a_tampered_file_is_refused_naming_both_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let files = PluginFiles::new(dir.path());
        let stored = files.import(b"original").unwrap();
        std::fs::write(&stored.path, b"changed").unwrap();
        let err = files.read(&stored.sha256).unwrap_err().to_string();
        assert!(err.contains(&stored.sha256), "{err}");
        assert!(err.contains(&sha256_hex(b"changed")), "{err}");
        assert!(err.contains("add it again"), "{err}");
    }

    #[test]
    fn a_write_removes_the_temp_files_of_dead_processes_and_no_others() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = dir.path().join(format!(".a.wasm.tmp-{dead}-0"));
        let live = dir
            .path()
            .join(format!(".b.wasm.tmp-{}-0", std::process::id()));
        let other = dir.path().join(".c.tmp-not-a-pid");
        // A writer this process cannot see (another PID namespace): its
        // pid reads as gone, but it holds its lock.
        let unseen = dir.path().join(format!(".e.wasm.tmp-{dead}-1"));
        for file in [&stale, &live, &other, &unseen] {
            std::fs::write(file, b"half").unwrap();
        }
        let held = std::fs::File::open(&unseen).unwrap();
        held.lock().unwrap();
        write_atomic(&dir.path().join("d.wasm"), b"whole", false).unwrap();
        assert!(!stale.exists(), "a dead process's temp file is removed");
        assert!(live.exists() && other.exists() && unseen.exists());
        assert_eq!(std::fs::read(dir.path().join("d.wasm")).unwrap(), b"whole");
    }

    #[test]
    fn a_name_that_is_not_a_hash_cannot_address_a_file() {
        let files = PluginFiles::new("/tmp/store");
        assert!(files.path_of("../../etc/passwd").is_err());
        assert!(files.path_of(&"A".repeat(64)).is_err());
    }
}
