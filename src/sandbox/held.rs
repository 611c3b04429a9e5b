//! `transaction_rollback` as the registry sees it between sessions: the
//! sandbox's row and area exist, but its transaction lives only in the
//! process holding it (`agents sandbox shell`, or an agent runtime through
//! the library), so checkpoint, rollback, diff and apply are session
//! operations, refused here with that reason.

use std::path::Path;

use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};

const HELD: &str = "a transaction_rollback sandbox's transaction lives in the process holding \
     it: use `agents sandbox shell ID`, or hold it through the library";

/// The `transaction_rollback` strategy outside a session.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeldTransaction;

/// Is `path` an existing regular file (not followed through a symlink)
/// that starts with SQLite's header? Creates nothing.
pub fn check_sqlite_file(path: &Path) -> Result<(), SandboxError> {
    super::transaction::check_database_file(path)
}

impl Strategy for HeldTransaction {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        check_sqlite_file(original)?;
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir: original.to_path_buf(),
            base: String::new(),
        })
    }

    fn checkpoint(&self, _: &SandboxPlace, _: &str) -> Result<CheckpointRef, SandboxError> {
        Err(SandboxError::NotSupported(HELD.to_owned()))
    }

    fn rollback(&self, _: &SandboxPlace, _: &CheckpointRef) -> Result<(), SandboxError> {
        Err(SandboxError::NotSupported(HELD.to_owned()))
    }

    fn diff(&self, _: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        Err(SandboxError::NotSupported(HELD.to_owned()))
    }

    fn apply(&self, _: &SandboxPlace) -> Result<Applied, SandboxError> {
        Err(SandboxError::NotSupported(HELD.to_owned()))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        super::none::NoIsolation.destroy(place)
    }

    /// The session works on the database file itself.
    fn workdir(&self, original: &Path, _area: &Path) -> std::path::PathBuf {
        original.to_path_buf()
    }
}
