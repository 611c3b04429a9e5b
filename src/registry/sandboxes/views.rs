//! A sandbox and its checkpoints as the registry hands them out (and
//! `-o json` prints them), made from the stored rows.

use crate::model::SandboxState;
use crate::model::{SandboxId, SandboxStrategy};
use crate::sandbox::{self, SandboxPlace};
use crate::store::{CheckpointRow, SandboxRow};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A sandbox as the registry hands it out (and `-o json` prints it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SandboxView {
    pub sandbox_id: SandboxId,
    pub resource_id: crate::model::ResourceId,
    /// The resource's name, or its id when it has none.
    pub resource: String,
    pub strategy: SandboxStrategy,
    pub state: SandboxState,
    /// Does the strategy isolate? (`none` does not: the working copy is
    /// the original.)
    pub isolated: bool,
    /// The resource's location when the sandbox was made.
    pub original: String,
    /// Where to work: the working copy (the original itself for `none`
    /// and `transaction_rollback`, whose session holds the isolation).
    pub workdir: Option<String>,
    /// The directory the sandbox owns under the home.
    pub area: String,
    /// `overlay`: `kernel` (overlayfs mounted) or `userspace` (the
    /// fallback's full copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlay_mode: Option<&'static str>,
    /// What the strategy started from (a commit, a manifest's hash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub checkpoints: Vec<CheckpointView>,
    /// Local mode (a type with discovery rules and no handler): what each
    /// rule finds in the working copy, enumerated by the host (see
    /// `registry/local_mode.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enumerated: Option<Vec<crate::registry::sandboxes::local_mode::RuleEntries>>,
    pub created_at: String,
    pub updated_at: String,
}

/// One checkpoint of a sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckpointView {
    pub number: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The strategy's own name for it (a commit id, a snapshot number).
    pub reference: String,
    pub created_at: String,
}

impl From<CheckpointRow> for CheckpointView {
    fn from(row: CheckpointRow) -> Self {
        Self {
            number: row.number,
            label: row.label,
            reference: row.reference,
            created_at: row.created_at,
        }
    }
}

impl CheckpointView {
    /// How messages name it: `#2 (before-refactor)`.
    pub fn label_text(&self) -> String {
        match &self.label {
            Some(label) => format!("#{} ({label})", self.number),
            None => format!("#{}", self.number),
        }
    }
}

/// The view of `row`; `area`: where its area is (derived from the home),
/// read for the overlay's mode only when the row agrees.
pub(super) fn view(
    row: SandboxRow,
    resource: String,
    checkpoints: Vec<CheckpointView>,
    area: Option<&Path>,
) -> SandboxView {
    let overlay_mode = area
        .filter(|area| {
            row.strategy == SandboxStrategy::Overlay
                && row.state == SandboxState::Active
                && Path::new(&row.area) == *area
        })
        .and_then(|area| {
            let place = SandboxPlace {
                original: PathBuf::new(),
                area: area.to_path_buf(),
                workdir: PathBuf::new(),
                base: String::new(),
            };
            sandbox::Overlay::mode_of(&place).ok()
        })
        .map(sandbox::OverlayMode::name);
    SandboxView {
        overlay_mode,
        sandbox_id: row.id,
        resource_id: row.resource,
        resource,
        isolated: row.strategy != SandboxStrategy::None,
        strategy: row.strategy,
        state: row.state,
        original: row.original,
        workdir: row.workdir,
        area: row.area,
        base: row.base.filter(|b| !b.is_empty()),
        last_error: row.last_error,
        checkpoints,
        enumerated: None,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}
