//! The sandbox tools: create, list, show, checkpoint, roll back, diff,
//! apply and destroy.

use super::{Access, Done, Progress, Tool, key};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::{SandboxId, SandboxStrategy};
use resource_host::registry::{CheckpointView, Registry, SandboxView};
use resource_host::sandbox::Applied;
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A sandbox argument (`id`), read.
fn sandbox(text: &str) -> Result<SandboxId, Refusal> {
    text.parse::<SandboxId>()
        .map_err(|e| Refusal::invalid(format!("id: {e}")))
}

/// Create a sandbox of a resource: a private working copy (git worktree, copy, overlay or transaction) to change, checkpoint, roll back, diff and apply.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxCreate {
    /// A resource's name (local/api-repo) or its id (a ULID).
    resource: String,
    /// git_worktree, copy_on_write, overlay, transaction_rollback or none (default: the resource's).
    strategy: Option<String>,
}

impl Tool for SandboxCreate {
    type View = SandboxView;
    const NAME: &'static str = "sandbox_create";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let strategy = match self.strategy {
            None => None,
            Some(s) => Some(SandboxStrategy::parse(&s).ok_or_else(|| {
                Refusal::invalid(format!(
                    "strategy {s:?} is not a sandbox strategy; use one of {}",
                    SandboxStrategy::ALL.map(|s| s.as_str()).join(", ")
                ))
            })?),
        };
        let sandbox = registry.create_sandbox(&key("resource", &self.resource)?, strategy)?;
        let text = format!(
            "created sandbox {} ({} of {}); workdir {}",
            sandbox.sandbox_id,
            sandbox.strategy.as_str(),
            escape_line(&sandbox.resource),
            escape_line(sandbox.workdir.as_deref().unwrap_or("-"))
        );
        Done::new(&sandbox, text)
    }
}

/// List sandboxes, optionally of one resource.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxList {
    /// A resource's name (local/api-repo) or its id (a ULID).
    resource: Option<String>,
}

impl Tool for SandboxList {
    type View = Sandboxes;
    const NAME: &'static str = "sandbox_list";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let resource = self.resource.map(|r| key("resource", &r)).transpose()?;
        let sandboxes = registry.list_sandboxes(resource.as_ref())?;
        let text = format!("{} sandboxes", sandboxes.len());
        Done::new(&Sandboxes { sandboxes }, text)
    }
}

/// `sandbox_list`'s answer: the list, wrapped as MCP wants an object.
#[derive(Serialize, JsonSchema)]
pub struct Sandboxes {
    sandboxes: Vec<SandboxView>,
}

/// Show one sandbox: its working directory, state and checkpoints.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxShow {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
}

impl Tool for SandboxShow {
    type View = SandboxView;
    const NAME: &'static str = "sandbox_show";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let sandbox = registry.show_sandbox(sandbox(&self.id)?)?;
        let text = format!(
            "sandbox {} ({})",
            sandbox.sandbox_id,
            sandbox.strategy.as_str()
        );
        Done::new(&sandbox, text)
    }
}

/// Record the sandbox's working copy as a checkpoint to roll back to.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxCheckpoint {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
    /// A label for the checkpoint.
    label: Option<String>,
}

impl Tool for SandboxCheckpoint {
    type View = CheckpointView;
    const NAME: &'static str = "sandbox_checkpoint";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let id = sandbox(&self.id)?;
        let checkpoint = registry.checkpoint_sandbox(id, self.label.as_deref())?;
        let text = format!("checkpoint {} of sandbox {id}", checkpoint.label_text());
        Done::new(&checkpoint, text)
    }
}

/// Put the working copy back as a checkpoint had it (the last unless `checkpoint`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxRollback {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
    /// A checkpoint's label, reference or abbreviation.
    checkpoint: Option<String>,
}

impl Tool for SandboxRollback {
    type View = CheckpointView;
    const NAME: &'static str = "sandbox_rollback";
    const ACCESS: Access = Access::Write;
    const DESTRUCTIVE: bool = true;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let id = sandbox(&self.id)?;
        let to = registry.rollback_sandbox(id, self.checkpoint.as_deref())?;
        let text = format!("sandbox {id} rolled back to checkpoint {}", to.label_text());
        Done::new(&to, text)
    }
}

/// What changed in the sandbox's working copy against the original.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxDiff {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
}

impl Tool for SandboxDiff {
    type View = resource_host::sandbox::SandboxDiff;
    const NAME: &'static str = "sandbox_diff";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let diff = registry.diff_sandbox(sandbox(&self.id)?)?;
        Done::new(&diff, "the changes are in the structured content")
    }
}

/// Bring the sandbox's changes to the original (a branch for git_worktree; copied back otherwise).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxApply {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
}

impl Tool for SandboxApply {
    type View = Applied;
    const NAME: &'static str = "sandbox_apply";
    const ACCESS: Access = Access::Write;
    const DESTRUCTIVE: bool = true;
    const IDEMPOTENT: bool = false;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let id = sandbox(&self.id)?;
        let applied = registry.apply_sandbox(id)?;
        Done::new(&applied, format!("applied sandbox {id}"))
    }
}

/// Destroy a sandbox and its working copy.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxDestroy {
    /// A sandbox's id (a ULID), as sandbox_create or sandbox_list answer it.
    id: String,
}

impl Tool for SandboxDestroy {
    type View = SandboxView;
    const NAME: &'static str = "sandbox_destroy";
    const ACCESS: Access = Access::Write;
    const DESTRUCTIVE: bool = true;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let id = sandbox(&self.id)?;
        let gone = registry.destroy_sandbox(id)?;
        Done::new(&gone, format!("destroyed sandbox {id}"))
    }
}
