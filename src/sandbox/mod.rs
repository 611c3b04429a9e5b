//! Sandboxes: let an agent change a copy of a resource's location,
//! checkpoint it, roll it back, see what changed and apply it — the one
//! home of how each `sandbox_strategy` isolates and undoes.
//!
//! Host code only: handlers stay read-only. Each strategy is one
//! implementation of [`Strategy`], working on paths alone; the registry
//! (rows for sandboxes and checkpoints, which strategy a resource gets,
//! the refusals) and the CLI are built on top of it.
//!
//! | strategy | sandbox | checkpoint | rollback | apply |
//! |---|---|---|---|---|
//! | `git_worktree` | a detached `git worktree` of the checkout's HEAD under the sandbox's area | a commit of the whole state (tracked, untracked, deletions) kept alive by a ref under `refs/agents/…` | the checkpoint's tree into the working copy (`git read-tree --reset -u`), removal of untracked files created since, HEAD back where it was | a branch the user can merge |
//! | `copy_on_write` | a snapshot copy (reflinks where the filesystem has them) | a snapshot of the sandbox, hard-linking files unchanged since the previous one | restore contents, deletions, new files, modes and symlinks exactly, touching only what differs (stat records, git's racy rule) | copy back, refused when the original changed since |
//! | `overlay` | the kernel's overlayfs: an upper layer over the read-only original, mounted (where mounting is refused: a full copy, with a warning) | a copy of the upper layer only (user space: the changed entries and a list of deletions) | the checkpoint's upper layer swapped in (user space: the checkpoint's state rebuilt) | copy back from the upper layer, refused when the original changed since |
//! | `transaction_rollback` | one connection to the SQLite database file, inside one transaction (`BEGIN IMMEDIATE`) that lives as long as its holder (an agent runtime, `agents sandbox shell`); not a [`Strategy`] (between sessions the registry uses `HeldTransaction`) | `SAVEPOINT agents_cp_<n>` | `ROLLBACK TO SAVEPOINT` (later checkpoints are gone) | `COMMIT`; dropping it without apply rolls back |
//! | `none` | the original itself: no isolation (a warning at create) | refused | refused | nothing to apply |

mod copy_on_write;
mod fs_at;
mod git_worktree;
mod held;
mod none;
mod overlay;
mod seam;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests_sparse;
mod transaction;

pub use copy_on_write::CopyOnWrite;
pub use git_worktree::GitWorktree;
pub use held::{HeldTransaction, check_sqlite_file};
pub use none::{NO_ISOLATION, NoIsolation};
pub use overlay::{Overlay, OverlayMode};
pub use transaction::BUSY_TIMEOUT as TRANSACTION_BUSY_TIMEOUT;
pub use transaction::{
    ResultRows, RowCounts, SchemaChange, SchemaEdit, SessionLimits, ShellEnd, SqliteTransaction,
    StatementOutcome, TxnChanges, TxnCheckpoint, shell,
};

use crate::model::SandboxStrategy;

/// The implementation of `strategy` (`overlay`: as configured; `git`: the
/// `git` a `git_worktree` sandbox runs); `None` for `inherit`, which has no
/// sandbox of its own (the resource is isolated with its parent).
pub fn implementation(
    strategy: SandboxStrategy,
    overlay: &Overlay,
    git: &crate::git_env::GitTools,
) -> Option<Box<dyn Strategy>> {
    Some(match strategy {
        SandboxStrategy::GitWorktree => Box::new(GitWorktree::new(git.clone())),
        SandboxStrategy::CopyOnWrite => Box::new(CopyOnWrite),
        SandboxStrategy::Overlay => Box::new(overlay.clone()),
        SandboxStrategy::TransactionRollback => Box::new(HeldTransaction),
        SandboxStrategy::None => Box::new(NoIsolation),
        SandboxStrategy::Inherit => return None,
    })
}

use std::path::{Path, PathBuf};

/// One sandbox as a strategy sees it: where the original is, the private
/// area the sandbox owns (everything it writes lives below it), the
/// working copy an agent changes, and what the strategy recorded at
/// creation (`base`: the commit it started from, or the snapshot name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPlace {
    pub original: PathBuf,
    pub area: PathBuf,
    pub workdir: PathBuf,
    pub base: String,
}

/// A checkpoint as its strategy names it (a commit id, a snapshot
/// directory's name): opaque to everyone else.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CheckpointRef(pub String);

/// What changed in a sandbox against the original, paths relative to the
/// working copy (`/`-separated), each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SandboxDiff {
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub deleted: Vec<String>,
    /// `git_worktree`: the commits made in the sandbox since its base,
    /// oldest first (`<sha> <summary>`).
    pub commits: Vec<String>,
}

/// What `apply` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Applied {
    /// `git_worktree`: the sandbox's state is on this new branch of the
    /// original repository; the user's own branches are untouched.
    Branch(String),
    /// `copy_on_write`: these paths were copied back (or removed) in the
    /// original.
    CopiedBack(SandboxDiff),
}

/// Why a sandbox operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("git {args} failed in {}: {stderr}", dir.display())]
    Git {
        args: String,
        dir: PathBuf,
        stderr: String,
    },
    /// The original is not what the strategy needs (not a git work tree,
    /// not a directory, …).
    #[error("{0}")]
    Unsuitable(String),
    /// `apply` refused: the original changed since the sandbox was made.
    #[error(
        "the original changed since the sandbox was created; nothing was applied. Conflicting paths: {}",
        .0.join(", ")
    )]
    Conflict(Vec<String>),
    #[error("no checkpoint {0:?} in this sandbox")]
    NoCheckpoint(String),
    /// The operation does not exist for this strategy (the reason says
    /// why: `none` isolates nothing, …).
    #[error("{0}")]
    NotSupported(String),
    /// Something is mounted inside the sandbox: the host never goes into
    /// another filesystem to remove, restore or copy what is there.
    #[error(
        "{} {} mounted inside the sandbox; the host does not go into another filesystem \
         and left what is mounted there untouched: unmount it (umount {}) and retry",
        list(points),
        if points.len() == 1 { "is" } else { "are" },
        list(points)
    )]
    Mounted { points: Vec<PathBuf> },
    /// An entry was replaced (by a symlink, another file, …) while the
    /// host worked on it: refused rather than followed.
    #[error(
        "{} changed while the host was working on it ({what}); nothing was followed \
         outside the sandbox: retry once it is left alone",
        path.display()
    )]
    Changed { path: PathBuf, what: &'static str },
}

fn list(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(" ")
}

/// How one `sandbox_strategy` isolates and undoes. Every operation is all
/// or nothing as far as the strategy can make it: a failure halfway
/// leaves the sandbox usable (or says clearly that it is not), and the
/// original is never written except by `apply`.
pub trait Strategy {
    /// Make a sandbox of `original` in `area` (an empty directory the
    /// caller created and owns).
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError>;
    /// Record the working copy's whole state as a checkpoint.
    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError>;
    /// Bring the working copy back to `to` exactly.
    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError>;
    /// What changed against the original as it was at creation.
    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError>;
    /// Promote the changes to the original.
    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError>;
    /// Remove everything the sandbox made (its area, refs, worktrees).
    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError>;

    /// Where the working copy of a sandbox of `original` in `area` is:
    /// what `create` answers, so that the registry derives it instead of
    /// taking it from a row.
    fn workdir(&self, original: &Path, area: &Path) -> PathBuf {
        let _ = original;
        area.join("work")
    }

    /// Refuse, before anything is changed, when something is mounted in
    /// the sandbox's area (other than a mount the strategy makes itself):
    /// what `destroy` and `rollback` would otherwise remove or overwrite
    /// is another filesystem's.
    fn refuse_mounts(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        fs_at::mounts::refuse_mounts_below(&place.area, None)
    }
}
