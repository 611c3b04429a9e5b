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
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let mine = format!("process {}", std::process::id());
    super::support::take_noting(root, &session_path(root, id), Duration::ZERO, &mine)?.map_err(
        |holder| {
            RegistryError::Sandboxes(SandboxesError::SandboxInSession {
                operation,
                sandbox: id,
                holder,
            })
        },
    )
}

impl Registry {
    /// Hold a `transaction_rollback` sandbox: its one connection, inside
    /// its transaction, for as long as the caller keeps it (dropping it
    /// rolls back; `apply` commits). Refused for other strategies and for
    /// a read-only resource (whose original is never written). The
    /// session is bounded by `limits` (`SessionLimits::default()`: the
    /// default bounds); its lock (see `session.rs`) is held by the
    /// transaction until it ends, so `destroy` refuses meanwhile.
    pub fn open_transaction(
        &self,
        id: SandboxId,
        limits: sandbox::SessionLimits,
    ) -> Result<sandbox::SqliteTransaction, RegistryError> {
        let root = self.sandboxes_root()?;
        let session = claim(&root, id, "open a session on")?;
        let (row, resource) = self.active(id, "open")?;
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
        let strategy = self.implementation(row.strategy);
        let place = super::place::place(&root, &row, resource.location.as_deref(), &*strategy)?;
        let wait = sandbox::TRANSACTION_BUSY_TIMEOUT;
        let mut tx = sandbox::SqliteTransaction::open_with(&place.original, wait, limits)
            .map_err(|source| failed(&row, &resource.label(), "open", source))?;
        tx.hold(session);
        Ok(tx)
    }
}
