//! Who holds a `transaction_rollback` sandbox's session: the one home of
//! how two processes agree that a session is live.
//!
//! The session's transaction lives in the process holding it (`agents
//! sandbox shell`, or an agent runtime through the library), so the
//! registry cannot end it from another process — and a `destroy` that went
//! ahead anyway left the session running, whose `apply` still committed
//! afterwards. So a session holds an exclusive lock on
//! `<home>/sandboxes/<id>.session` for its whole life (the kernel releases
//! it when the process ends, however it ends), with the holder's pid
//! written in it for the message. `destroy` (and `resource remove
//! --force`, which destroys) takes the same lock without waiting: held, it
//! refuses naming the holder; taken, it keeps it until the sandbox is
//! gone, so no session can start halfway through. A second session is
//! refused the same way, at once, rather than after SQLite's busy timeout.

use super::failed;
use crate::model::{SandboxId, SandboxStrategy};
use crate::registry::SandboxesError;
use crate::registry::{Registry, RegistryError, SandboxRefusal};
use crate::sandbox;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

pub(super) fn session_path(root: &Path, id: SandboxId) -> PathBuf {
    root.join(format!("{id}.session"))
}

/// Take the session lock of sandbox `id` for `operation`, or refuse
/// naming who holds it.
pub(super) fn claim(
    root: &Path,
    id: SandboxId,
    operation: &'static str,
) -> Result<std::fs::File, RegistryError> {
    let path = session_path(root, id);
    let home_err = |source| RegistryError::Home {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(root).map_err(home_err)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(home_err)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.take(32).read_to_string(&mut pid);
            let holder = match pid.trim() {
                "" => "another process".to_owned(),
                pid => format!("process {pid}"),
            };
            return Err(RegistryError::Sandboxes(SandboxesError::SandboxInSession {
                operation,
                sandbox: id,
                holder,
            }));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(home_err(e)),
    }
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()))
        .map_err(home_err)?;
    Ok(file)
}

/// The work of [`Registry::open_transaction`].
pub(in crate::registry) fn open_transaction(
    reg: &Registry,
    id: SandboxId,
) -> Result<sandbox::SqliteTransaction, RegistryError> {
    reg.open_transaction_with(id, sandbox::SessionLimits::default())
}

/// The work of [`Registry::open_transaction_with`].
pub(in crate::registry) fn open_transaction_with(
    reg: &Registry,
    id: SandboxId,
    limits: sandbox::SessionLimits,
) -> Result<sandbox::SqliteTransaction, RegistryError> {
    let root = reg.sandboxes_root()?;
    let session = claim(&root, id, "open a session on")?;
    let (row, resource) = reg.active(id, "open")?;
    if row.strategy != SandboxStrategy::TransactionRollback {
        return Err(failed(
            &row,
            &resource.label(),
            "open a transaction",
            sandbox::SandboxError::NotSupported(format!(
                "a {} sandbox has no transaction to hold; only transaction_rollback \
                 sandboxes do",
                row.strategy.as_str()
            )),
        ));
    }
    if resource.read_only {
        return Err(RegistryError::Sandboxes(SandboxesError::SandboxRefused {
            operation: "open",
            resource: resource.label(),
            strategy: row.strategy,
            reason: SandboxRefusal::ReadOnly,
        }));
    }
    let strategy = reg.implementation(row.strategy);
    let place = super::place::place(&root, &row, resource.location.as_deref(), &*strategy)?;
    let wait = sandbox::TRANSACTION_BUSY_TIMEOUT;
    let mut tx = sandbox::SqliteTransaction::open_with(&place.original, wait, limits)
        .map_err(|source| failed(&row, &resource.label(), "open", source))?;
    tx.hold(session);
    Ok(tx)
}
