//! The small rules around a sandbox's rows and files: which checkpoint a
//! name means, which labels are allowed, the area's directory and the
//! lock file that serialises operations across processes.

use super::CheckpointView;
use crate::model::SandboxId;
use crate::registry::RegistryError;
use crate::registry::SandboxesError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The longest checkpoint label kept.
const LABEL_MAX: usize = 200;

/// The checkpoint `wanted` names (its number, `#N`, its label, or its
/// reference: whole or abbreviated), or the latest.
pub(super) fn pick_checkpoint(
    id: SandboxId,
    checkpoints: &[CheckpointView],
    wanted: Option<&str>,
) -> Result<CheckpointView, RegistryError> {
    let not_found = |wanted: &str| {
        RegistryError::Sandboxes(SandboxesError::CheckpointNotFound {
            sandbox: id,
            wanted: wanted.to_owned(),
            known: checkpoints.iter().map(CheckpointView::label_text).collect(),
        })
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
    let by_number_or_label = checkpoints
        .iter()
        .rev()
        .find(|c| Some(c.number) == number || c.label.as_deref() == Some(wanted));
    if let Some(found) = by_number_or_label {
        return Ok(found.clone());
    }
    // The strategy's reference, as `checkpoint` shows it: whole, or (a
    // commit id) abbreviated to a prefix of 7 or more that only one has.
    let abbreviated =
        wanted.len() >= MIN_ABBREVIATION && wanted.bytes().all(|b| b.is_ascii_hexdigit());
    let mut matching = checkpoints
        .iter()
        .filter(|c| c.reference == wanted || (abbreviated && c.reference.starts_with(wanted)));
    match (matching.next(), matching.next()) {
        (Some(found), None) => Ok(found.clone()),
        _ => Err(not_found(wanted)),
    }
}

/// The shortest abbreviation of a checkpoint's reference `rollback`
/// takes (git's own default).
const MIN_ABBREVIATION: usize = 7;

/// A label names a checkpoint in `rollback`, so it must not look like a
/// number, and it is printed, so no control characters.
pub(super) fn check_label(label: &str) -> Result<(), RegistryError> {
    let refuse = |reason: &str| {
        RegistryError::Sandboxes(SandboxesError::BadCheckpointLabel {
            label: label.to_owned(),
            reason: reason.to_owned(),
        })
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
        .map_err(RegistryError::home(area))
}

pub(super) fn lock_path(root: &Path, id: SandboxId) -> PathBuf {
    root.join(format!("{id}.lock"))
}

/// How long an operation on a sandbox waits for another one on the same
/// sandbox (a checkpoint of a big working copy, an apply) to finish
/// before it is refused, naming the holder.
pub const SANDBOX_LOCK_WAIT: Duration = Duration::from_secs(60);

/// An exclusive lock on one sandbox for `operation`, held until dropped:
/// what makes every operation that reads or writes a sandbox's state
/// (diff included) one at a time, across processes. Waits up to
/// [`SANDBOX_LOCK_WAIT`], then refuses naming who holds it.
pub(super) fn lock(
    root: &Path,
    id: SandboxId,
    operation: &'static str,
) -> Result<std::fs::File, RegistryError> {
    lock_waiting(root, id, operation, SANDBOX_LOCK_WAIT)
}

/// [`lock`], waiting at most `wait`.
pub(super) fn lock_waiting(
    root: &Path,
    id: SandboxId,
    operation: &'static str,
    wait: Duration,
) -> Result<std::fs::File, RegistryError> {
    let mine = format!("process {} ({operation})", std::process::id());
    take_noting(root, &lock_path(root, id), wait, &mine)?.map_err(|holder| {
        RegistryError::Sandboxes(SandboxesError::SandboxBusy {
            operation,
            sandbox: id,
            holder,
            waited_secs: wait.as_secs(),
        })
    })
}

/// An exclusive lock on `path` (created, with `dir`, if missing), waiting
/// at most `wait` (zero: one try); once held, `note` (who holds it, for
/// others' messages) is written in it. `Ok(Err(holder))` when another
/// process still holds it: what that one wrote there (escaped; "another
/// process" when nothing), which is what a refusal names.
pub(super) fn take_noting(
    dir: &Path,
    path: &Path,
    wait: Duration,
    note: &str,
) -> Result<Result<std::fs::File, String>, RegistryError> {
    use std::io::{Read, Seek, Write};
    let home_err = RegistryError::home(path);
    let mut file = open_lock(dir, path).map_err(home_err)?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
                std::thread::sleep(pause.min(wait.saturating_sub(started.elapsed())));
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = (&file).take(200).read_to_string(&mut holder);
                let holder = crate::text::escape_line(holder.trim()).into_owned();
                return Ok(Err(if holder.is_empty() {
                    "another process".to_owned()
                } else {
                    holder
                }));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(home_err(e)),
        }
    }
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{note}"))
        .map_err(home_err)?;
    Ok(Ok(file))
}

/// An exclusive lock on `path` (created, with `dir`, if missing), held
/// across processes until the file is dropped: what serialises the steps
/// on one sandbox or one container, which cannot join a transaction.
pub(in crate::registry) fn lock_file(
    dir: &Path,
    path: &Path,
) -> Result<std::fs::File, RegistryError> {
    let file = open_lock(dir, path).and_then(|file| file.lock().map(|()| file));
    file.map_err(RegistryError::home(dir))
}

/// The lock file `path`, created (with `dir`) if missing.
fn open_lock(dir: &Path, path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::create_dir_all(dir)?;
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_operation_waits_a_bounded_time_then_is_told_who_holds_the_sandbox() {
        let tmp = tempfile::tempdir().unwrap();
        let id = SandboxId::from_ulid(ulid::Ulid::nil());
        let held = lock_waiting(tmp.path(), id, "checkpoint", Duration::ZERO).unwrap();
        let wait = Duration::from_millis(300);
        let started = Instant::now();
        match lock_waiting(tmp.path(), id, "diff", wait) {
            Err(RegistryError::Sandboxes(SandboxesError::SandboxBusy {
                operation,
                holder,
                ..
            })) => {
                assert_eq!(operation, "diff");
                assert_eq!(
                    holder,
                    format!("process {} (checkpoint)", std::process::id())
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(started.elapsed() >= wait, "it waited before refusing");
        drop(held);
        // Released: the next one gets it at once and says it holds it.
        let next = lock_waiting(tmp.path(), id, "apply", Duration::ZERO).unwrap();
        drop(next);
        let text = std::fs::read_to_string(lock_path(tmp.path(), id)).unwrap();
        assert!(text.ends_with("(apply)"), "{text}");
    }

    fn checkpoint(number: i64, label: Option<&str>, reference: &str) -> CheckpointView {
        CheckpointView {
            number,
            label: label.map(str::to_owned),
            reference: reference.to_owned(),
            created_at: String::new(),
        }
    }

    #[test]
    fn a_checkpoint_is_picked_by_number_label_reference_or_unique_abbreviation() {
        let id = SandboxId::from_ulid(ulid::Ulid::nil());
        let all = [
            checkpoint(1, Some("start"), "1234567abcdef"),
            checkpoint(2, None, "1234567fedcba"),
            checkpoint(3, None, "0000003"),
        ];
        let pick = |w: &str| pick_checkpoint(id, &all, Some(w)).map(|c| c.number);
        assert_eq!(pick("#2").unwrap(), 2);
        assert_eq!(pick("start").unwrap(), 1);
        assert_eq!(pick("1234567fedcba").unwrap(), 2);
        assert_eq!(pick("1234567f").unwrap(), 2);
        // A number wins over a reference that reads as one.
        assert_eq!(pick("0000003").unwrap(), 3);
        // Two references share it: ambiguous, refused.
        assert!(pick("1234567").is_err());
        // Too short to be an abbreviation.
        assert!(pick("12345").is_err());
        assert_eq!(pick_checkpoint(id, &all, None).unwrap().number, 3);
    }
}
