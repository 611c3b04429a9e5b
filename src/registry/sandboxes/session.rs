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

use crate::model::SandboxId;
use crate::registry::RegistryError;
use crate::registry::SandboxesError;
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
