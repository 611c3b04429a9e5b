//! How a sandbox operation is refused or fails: no such sandbox or
//! checkpoint, no home to keep sandboxes in (or one that is not private),
//! a row that disagrees with where the files must be, a strategy refusal,
//! a sandbox not active or held by a session, and the strategy's own
//! failure. The room `sandboxes` produces these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::SandboxRefusal;
use crate::model::{SandboxId, SandboxStrategy};
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SandboxesError {
    #[error("no sandbox {id}; `agents sandbox list` shows what exists")]
    SandboxNotFound { id: SandboxId },
    #[error(
        "sandboxes live under a home directory; this registry has none (open it with \
         Registry::open)"
    )]
    SandboxNeedsHome,
    #[error("refusing to keep sandboxes in {}: {why}", path.display())]
    InsecureSandboxes { path: PathBuf, why: String },
    /// A sandbox's row names a path its files cannot be at: the paths the
    /// host acts on come from the home and the resource, never a row.
    #[error(
        "sandbox {sandbox}'s registry row names its {field} {}, but {rule}: {}; the row \
         was changed outside agents (by a teammate on the shared registry, or by hand), so \
         nothing was done. If the sandbox is yours, put the row back (UPDATE sandboxes SET \
         {field} = '{}' WHERE sandbox_id = '{sandbox}'), or ask whoever changed it",
        crate::text::quote(stored),
        crate::text::escape_line(expected),
        crate::text::escape_line(&expected.replace('\'', "''"))
    )]
    SandboxRowDisagrees {
        sandbox: SandboxId,
        field: &'static str,
        stored: String,
        expected: String,
        rule: &'static str,
    },
    #[error(
        "cannot {operation} {} {strategy} sandbox of {resource}: {reason}",
        if matches!(strategy, SandboxStrategy::Inherit | SandboxStrategy::Overlay) { "an" } else { "a" }
    )]
    SandboxRefused {
        operation: &'static str,
        resource: String,
        strategy: SandboxStrategy,
        reason: SandboxRefusal,
    },
    #[error(
        "sandbox {sandbox} is {state}, not active (a {state} sandbox was interrupted by a \
         crash); `agents sandbox destroy {sandbox}` removes what is left of it"
    )]
    SandboxNotActive {
        sandbox: SandboxId,
        state: crate::model::SandboxState,
    },
    #[error(
        "cannot {operation} sandbox {sandbox}: {holder} holds its session (`agents sandbox \
         shell`, or an agent runtime's open transaction); end that session (apply, discard or \
         quit) and try again"
    )]
    SandboxInSession {
        operation: &'static str,
        sandbox: SandboxId,
        holder: String,
    },
    #[error(
        "cannot {operation} sandbox {sandbox}: {holder} is working on it; waited \
         {waited_secs} s for it to finish (one operation at a time on a sandbox); try again \
         when it is done"
    )]
    SandboxBusy {
        operation: &'static str,
        sandbox: SandboxId,
        holder: String,
        waited_secs: u64,
    },
    #[error("sandbox {sandbox} ({strategy} of {resource}): {operation} failed: {source}")]
    SandboxFailed {
        sandbox: SandboxId,
        resource: String,
        strategy: SandboxStrategy,
        operation: &'static str,
        #[source]
        source: Box<crate::sandbox::SandboxError>,
    },
    #[error(
        "sandbox {sandbox} has no checkpoint {wanted}{}",
        if known.is_empty() { "; it has none yet (agents sandbox checkpoint ID)".to_owned() }
        else { format!("; it has {}", known.join(", ")) }
    )]
    CheckpointNotFound {
        sandbox: SandboxId,
        wanted: String,
        known: Vec<String>,
    },
    #[error("checkpoint label {} refused: {reason}", crate::text::quote(label))]
    BadCheckpointLabel { label: String, reason: String },
}
