//! Seals: verify a file's contents once per change instead of at every
//! load — the one home of that rule, for plugin files and compile-cache
//! entries alike.
//!
//! Hashing an 18 MB plugin and its 35 MB compiled form on every command
//! cost more than everything else a command does. A *seal* is a small file
//! beside the sealed one (`<file>.seal`) recording the digest its contents
//! were checked against and the file's identity as the filesystem reports
//! it: device, inode, size, modification and status-change times. Any
//! write to the file changes its ctime (which no one can set back), any
//! replacement its inode; so while the identity is unchanged the contents
//! are the ones checked, and a load only needs one `stat`.
//!
//! Two cases fall back to hashing the whole file: no seal or another
//! identity (copied, touched, tampered with), and a *racy* seal — the
//! file's ctime is not older than the seal itself, so a write in the same
//! clock tick as the check could have left the times unchanged (git's
//! "racy clean" rule for its index). A file that hashes right is sealed
//! again; one that does not is refused by the caller. Both files live in a
//! private directory (`trust`), so only their owner can write either.

use crate::digest::sha256_hex;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

const MAGIC: &str = "resource-host-seal-1";

/// How a file's contents were found to be the expected ones.
#[derive(Debug)]
pub(crate) enum Checked {
    /// The seal vouches for them: nothing was read (`size`: the file's,
    /// as the seal recorded it).
    Sealed { size: u64 },
    /// The file was read and hashed (its bytes, for the caller to use).
    Hashed(Vec<u8>),
}

/// Why a file cannot be used.
#[derive(Debug)]
pub(crate) enum SealError {
    Io(std::io::Error),
    /// No digest to check the file against: no expected one, and no seal
    /// for what it is meant to be.
    Unsealed,
    /// The contents hash to `actual`, not to `expected`.
    Mismatch {
        expected: String,
        actual: String,
    },
}

/// The identity of a file, from its metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Self {
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    fn text(&self) -> String {
        format!(
            "{} {} {} {}.{} {}.{}",
            self.dev, self.ino, self.size, self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1
        )
    }
}

/// What a seal says: the file is `bound` (what it is meant to be: the
/// plugin's sha256, for a plugin file or its compiled form), its contents
/// hash to `digest`, and it had `identity` when checked.
struct Record {
    bound: String,
    digest: String,
    identity: String,
}

impl Record {
    fn text(&self) -> String {
        format!("{MAGIC} {} {} {}\n", self.bound, self.digest, self.identity)
    }

    fn parse(text: &str) -> Option<Self> {
        let rest = text
            .strip_suffix('\n')?
            .strip_prefix(MAGIC)?
            .strip_prefix(' ')?;
        let mut parts = rest.splitn(3, ' ');
        Some(Self {
            bound: parts.next()?.to_owned(),
            digest: parts.next()?.to_owned(),
            identity: parts.next()?.to_owned(),
        })
    }
}

pub(crate) fn seal_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".seal");
    path.with_file_name(name)
}

/// Seal `path` as being `bound` with contents whose sha256 is `digest`
/// (the caller just wrote or checked them). Failing to seal only costs
/// speed later.
pub(crate) fn seal(path: &Path, bound: &str, digest: &str) {
    let result = std::fs::symlink_metadata(path).and_then(|meta| {
        let record = Record {
            bound: bound.to_owned(),
            digest: digest.to_owned(),
            identity: Identity::of(&meta).text(),
        };
        crate::atomic::write_atomic(&seal_path(path), record.text().as_bytes(), false)
    });
    if let Err(e) = result {
        log::debug!(target: "plugin", "cannot seal {}: {e}", path.display());
    }
}

/// Remove `path`'s seal (absent is fine).
pub(crate) fn unseal(path: &Path) {
    let _ = std::fs::remove_file(seal_path(path));
}

/// Whether `path` is `bound` with contents hashing to `expected` (when
/// the caller knows the digest; else to the one its seal recorded): by
/// its seal when that vouches for the file as it is now, else by hashing
/// it (and sealing it again when it is right). A seal made for something
/// else than `bound` is ignored.
pub(crate) fn check(
    path: &Path,
    bound: &str,
    expected: Option<&str>,
) -> Result<Checked, SealError> {
    let meta = std::fs::symlink_metadata(path).map_err(SealError::Io)?;
    if !meta.file_type().is_file() {
        return Err(SealError::Io(std::io::Error::other("not a regular file")));
    }
    let record = read_record(path).filter(|r| r.bound == bound);
    let digest = match (expected, &record) {
        (Some(expected), _) => expected.to_owned(),
        (None, Some(record)) => record.digest.clone(),
        (None, None) => return Err(SealError::Unsealed),
    };
    if let Some((record, sealed_at)) = record.as_ref().zip(sealed_at(path)) {
        let identity = Identity::of(&meta);
        // Racy: the file changed in the same tick as (or after) the sealing.
        if record.digest == digest
            && record.identity == identity.text()
            && identity.ctime < sealed_at
        {
            return Ok(Checked::Sealed { size: meta.size() });
        }
    }
    let bytes = std::fs::read(path).map_err(SealError::Io)?;
    let actual = sha256_hex(&bytes);
    if actual != digest {
        unseal(path);
        return Err(SealError::Mismatch {
            expected: digest,
            actual,
        });
    }
    seal(path, bound, &digest);
    Ok(Checked::Hashed(bytes))
}

fn read_record(path: &Path) -> Option<Record> {
    Record::parse(&std::fs::read_to_string(seal_path(path)).ok()?)
}

/// When the seal of `path` was written.
fn sealed_at(path: &Path) -> Option<(i64, i64)> {
    let meta = std::fs::symlink_metadata(seal_path(path)).ok()?;
    meta.file_type()
        .is_file()
        .then(|| (meta.mtime(), meta.mtime_nsec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Let the clock tick past the file's times, so a seal is not racy.
    fn tick() {
        std::thread::sleep(Duration::from_millis(20));
    }

    fn digest(bytes: &[u8]) -> String {
        sha256_hex(bytes)
    }

    #[test]
    fn a_sealed_file_is_trusted_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wasm");
        std::fs::write(&path, b"contents").unwrap();
        tick();
        seal(&path, "a", &digest(b"contents"));
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Ok(Checked::Sealed { .. })
        ));
    }

    #[test]
    fn an_unsealed_file_is_hashed_then_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wasm");
        std::fs::write(&path, b"contents").unwrap();
        tick();
        let first = check(&path, "a", Some(&digest(b"contents"))).unwrap();
        assert!(matches!(first, Checked::Hashed(ref b) if b == b"contents"));
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Ok(Checked::Sealed { .. })
        ));
    }

    #[test]
    fn a_file_changed_after_sealing_is_hashed_and_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wasm");
        std::fs::write(&path, b"contents").unwrap();
        tick();
        seal(&path, "a", &digest(b"contents"));
        tick();
        // Same size, rewritten in place.
        std::fs::write(&path, b"CONTENTS").unwrap();
        match check(&path, "a", Some(&digest(b"contents"))) {
            Err(SealError::Mismatch { actual, .. }) => assert_eq!(actual, digest(b"CONTENTS")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_change_in_the_same_tick_as_the_seal_is_still_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wasm");
        // Written, sealed and rewritten with no pause: the times may not
        // move, the racy rule makes it hash.
        std::fs::write(&path, b"contents").unwrap();
        seal(&path, "a", &digest(b"contents"));
        std::fs::write(&path, b"CONTENTS").unwrap();
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Err(SealError::Mismatch { .. })
        ));
    }

    #[test]
    fn a_seal_for_other_contents_or_a_replaced_file_vouches_for_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wasm");
        std::fs::write(&path, b"contents").unwrap();
        tick();
        seal(&path, "a", &digest(b"other"));
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Ok(Checked::Hashed(_))
        ));
        // Replaced by another file (a new inode) with the same bytes.
        tick();
        let other = dir.path().join("b");
        std::fs::write(&other, b"contents").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Ok(Checked::Hashed(_))
        ));
    }

    #[test]
    fn without_an_expected_digest_the_seal_for_the_same_thing_decides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cwasm");
        std::fs::write(&path, b"code").unwrap();
        tick();
        assert!(matches!(check(&path, "a", None), Err(SealError::Unsealed)));
        seal(&path, "a", &digest(b"code"));
        assert!(matches!(
            check(&path, "a", None),
            Ok(Checked::Sealed { .. })
        ));
        // A seal made for another plugin vouches for nothing here.
        assert!(matches!(check(&path, "b", None), Err(SealError::Unsealed)));
        // Rewritten: hashed against the sealed digest, refused.
        tick();
        std::fs::write(&path, b"CODE").unwrap();
        assert!(matches!(
            check(&path, "a", None),
            Err(SealError::Mismatch { .. })
        ));
    }

    #[test]
    fn a_symlink_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t");
        std::fs::write(&target, b"contents").unwrap();
        let path = dir.path().join("a.wasm");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(matches!(
            check(&path, "a", Some(&digest(b"contents"))),
            Err(SealError::Io(_))
        ));
    }
}
