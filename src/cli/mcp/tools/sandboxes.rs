//! The sandbox tools: create, list, show, checkpoint, roll back, diff,
//! apply and destroy.

use super::parsed;
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::SandboxStrategy;
use resource_host::registry::{CheckpointView, SandboxView};
use resource_host::sandbox::{Applied, SandboxDiff as Diff};
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::Serialize;

tools! {
    /// Create a sandbox of a resource: a private working copy (git worktree, copy, overlay or transaction) to change, checkpoint, roll back, diff and apply.
    sandbox_create: SandboxCreate(Write, IDEMPOTENT = false) -> SandboxView {
        /// A resource's name (local/api-repo) or its id (a ULID).
        resource: String,
        /// git_worktree, copy_on_write, overlay, transaction_rollback or none (default: the resource's).
        strategy: Option<String>,
    } |registry, args, _| {
        let strategy = args.strategy.map(|s| SandboxStrategy::parse(&s).ok_or_else(|| {
            Refusal::invalid(format!(
                "strategy {s:?} is not a sandbox strategy; use one of {}",
                SandboxStrategy::ALL.map(|s| s.as_str()).join(", ")
            ))
        })).transpose()?;
        let sandbox = registry.create_sandbox(&parsed("resource", &args.resource)?, strategy)?;
        let text = format!(
            "created sandbox {} ({} of {}); workdir {}",
            sandbox.sandbox_id,
            sandbox.strategy.as_str(),
            escape_line(&sandbox.resource),
            escape_line(sandbox.workdir.as_deref().unwrap_or("-"))
        );
        Done::new(&sandbox, text)
    }

    /// List sandboxes, optionally of one resource.
    sandbox_list: SandboxList(Read) -> Sandboxes {
        /// A resource's name (local/api-repo) or its id (a ULID).
        resource: Option<String>,
    } |registry, args, _| {
        let resource = args.resource.map(|r| parsed("resource", &r)).transpose()?;
        let sandboxes = registry.list_sandboxes(resource.as_ref())?;
        let text = format!("{} sandboxes", sandboxes.len());
        Done::new(&Sandboxes { sandboxes }, text)
    }

    /// Show one sandbox: its working directory, state and checkpoints.
    sandbox_show: SandboxShow(Read) -> SandboxView {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
    } |registry, args, _| {
        let sandbox = registry.show_sandbox(parsed("id", &args.id)?)?;
        let text = format!("sandbox {} ({})", sandbox.sandbox_id, sandbox.strategy.as_str());
        Done::new(&sandbox, text)
    }

    /// Record the sandbox's working copy as a checkpoint to roll back to.
    sandbox_checkpoint: SandboxCheckpoint(Write, IDEMPOTENT = false) -> CheckpointView {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
        /// A label for the checkpoint.
        label: Option<String>,
    } |registry, args, _| {
        let id = parsed("id", &args.id)?;
        let checkpoint = registry.checkpoint_sandbox(id, args.label.as_deref())?;
        let text = format!("checkpoint {} of sandbox {id}", checkpoint.label_text());
        Done::new(&checkpoint, text)
    }

    /// Put the working copy back as a checkpoint had it (the last unless `checkpoint`).
    sandbox_rollback: SandboxRollback(Write, DESTRUCTIVE = true) -> CheckpointView {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
        /// A checkpoint's label, reference or abbreviation.
        checkpoint: Option<String>,
    } |registry, args, _| {
        let id = parsed("id", &args.id)?;
        let to = registry.rollback_sandbox(id, args.checkpoint.as_deref())?;
        let text = format!("sandbox {id} rolled back to checkpoint {}", to.label_text());
        Done::new(&to, text)
    }

    /// What changed in the sandbox's working copy against the original.
    sandbox_diff: SandboxDiff(Read) -> Diff {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
    } |registry, args, _| {
        let diff = registry.diff_sandbox(parsed("id", &args.id)?)?;
        Done::new(&diff, "the changes are in the structured content")
    }

    /// Bring the sandbox's changes to the original (a branch for git_worktree; copied back otherwise).
    sandbox_apply: SandboxApply(Write, DESTRUCTIVE = true, IDEMPOTENT = false) -> Applied {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
    } |registry, args, _| {
        let id = parsed("id", &args.id)?;
        let applied = registry.apply_sandbox(id)?;
        Done::new(&applied, format!("applied sandbox {id}"))
    }

    /// Destroy a sandbox and its working copy.
    sandbox_destroy: SandboxDestroy(Write, DESTRUCTIVE = true) -> SandboxView {
        /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
        id: String,
    } |registry, args, _| {
        let id = parsed("id", &args.id)?;
        let gone = registry.destroy_sandbox(id)?;
        Done::new(&gone, format!("destroyed sandbox {id}"))
    }
}

/// `sandbox_list`'s answer: the list, wrapped as MCP wants an object.
#[derive(Serialize, JsonSchema)]
pub struct Sandboxes {
    sandboxes: Vec<SandboxView>,
}
