//! The small rules around a sandbox's rows and files: which checkpoint a
//! name means, which labels are allowed, the area's directory and the
//! lock file that serialises operations across processes.

use super::CheckpointView;
use crate::model::SandboxId;
use crate::registry::RegistryError;
use std::path::{Path, PathBuf};

/// The longest checkpoint label kept.
const LABEL_MAX: usize = 200;

/// The checkpoint `wanted` names (its number, `#N`, or its label), or the
/// latest.
pub(super) fn pick_checkpoint(
    id: SandboxId,
    checkpoints: &[CheckpointView],
    wanted: Option<&str>,
) -> Result<CheckpointView, RegistryError> {
    let not_found = |wanted: &str| RegistryError::CheckpointNotFound {
        sandbox: id,
        wanted: wanted.to_owned(),
        known: checkpoints.iter().map(CheckpointView::label_text).collect(),
    };
    let Some(wanted) = wanted else {
        return checkpoints
            .last()
            .cloned()
            .ok_or_else(|| not_found("(latest)"));
    };
    let number = wanted
        .strip_prefix('#')
        .unwrap_or(wanted)
        .parse::<i64>()
        .ok();
    checkpoints
        .iter()
        .rev()
        .find(|c| Some(c.number) == number || c.label.as_deref() == Some(wanted))
        .cloned()
        .ok_or_else(|| not_found(wanted))
}

/// A label names a checkpoint in `rollback`, so it must not look like a
/// number, and it is printed, so no control characters.
pub(super) fn check_label(label: &str) -> Result<(), RegistryError> {
    let refuse = |reason: &str| RegistryError::BadCheckpointLabel {
        label: label.to_owned(),
        reason: reason.to_owned(),
    };
    if label.is_empty() || label.chars().count() > LABEL_MAX {
        return Err(refuse("a label has 1 to 200 characters"));
    }
    if label.chars().any(char::is_control) {
        return Err(refuse("it holds control characters"));
    }
    if label
        .strip_prefix('#')
        .unwrap_or(label)
        .parse::<i64>()
        .is_ok()
    {
        return Err(refuse(
            "it reads as a checkpoint number; rollback could not tell them apart",
        ));
    }
    Ok(())
}

pub(super) fn create_area(area: &Path) -> Result<(), RegistryError> {
    use std::os::unix::fs::DirBuilderExt;
    let parent = area.parent().unwrap_or(area);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(parent)
        .and_then(|()| std::fs::DirBuilder::new().mode(0o700).create(area))
        .map_err(|source| RegistryError::Home {
            path: area.to_owned(),
            source,
        })
}

pub(super) fn lock_path(root: &Path, id: SandboxId) -> PathBuf {
    root.join(format!("{id}.lock"))
}

/// An exclusive lock on one sandbox, held until dropped.
pub(super) fn lock(root: &Path, id: SandboxId) -> Result<std::fs::File, RegistryError> {
    lock_file(root, &lock_path(root, id))
}

/// An exclusive lock on `path` (created, with `dir`, if missing), held
/// across processes until the file is dropped: what serialises the steps
/// on one sandbox or one container, which cannot join a transaction.
pub(in crate::registry) fn lock_file(
    dir: &Path,
    path: &Path,
) -> Result<std::fs::File, RegistryError> {
    let home_err = |source| RegistryError::Home {
        path: dir.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(home_err)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(home_err)?;
    file.lock().map_err(home_err)?;
    Ok(file)
}
