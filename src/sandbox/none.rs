//! The `none` strategy: no isolation. The "sandbox" is the original
//! itself, so an agent changes the resource directly and the user
//! proceeds at their own risk; nothing can be checkpointed, rolled back,
//! diffed or applied, and each of those says why.

use std::path::Path;

use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};

/// What every refused operation says.
pub const NO_ISOLATION: &str = "strategy none gives no isolation: changes are made to the \
     original directly, so there is nothing to checkpoint, roll back, diff or apply \
     (you proceed at your own risk)";

/// The `none` strategy.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoIsolation;

impl Strategy for NoIsolation {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        // The caller tells a person (the view says `isolated: false`; the
        // CLI warns): at info here, so the warning is not printed twice.
        log::info!(
            "strategy none: {} is not isolated; changes are made to it directly and cannot be \
             rolled back — you proceed at your own risk",
            original.display()
        );
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir: original.to_path_buf(),
            base: String::new(),
        })
    }

    fn checkpoint(&self, _: &SandboxPlace, _: &str) -> Result<CheckpointRef, SandboxError> {
        Err(SandboxError::NotSupported(NO_ISOLATION.to_owned()))
    }

    fn rollback(&self, _: &SandboxPlace, _: &CheckpointRef) -> Result<(), SandboxError> {
        Err(SandboxError::NotSupported(NO_ISOLATION.to_owned()))
    }

    fn diff(&self, _: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        Err(SandboxError::NotSupported(NO_ISOLATION.to_owned()))
    }

    fn apply(&self, _: &SandboxPlace) -> Result<Applied, SandboxError> {
        Err(SandboxError::NotSupported(NO_ISOLATION.to_owned()))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        // Only the (empty) area is ours; the original is never touched.
        super::copy_on_write::tree::remove_tree(&place.area)
    }

    /// The original itself.
    fn workdir(&self, original: &Path, _area: &Path) -> std::path::PathBuf {
        original.to_path_buf()
    }
}
