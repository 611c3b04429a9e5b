//! `sandboxes` and `sandbox_checkpoints` rows: which sandboxes exist, where
//! their files are and what state they are in (the files are
//! `sandbox`'s; the rules are `registry::sandboxes`').

use super::columns::Columns;
use super::db::args;
use super::{Reader, StoreError, Writer};
use crate::model::{ResourceId, SandboxId, SandboxState, SandboxStrategy};

/// One sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxRow {
    pub id: SandboxId,
    pub resource: ResourceId,
    pub strategy: SandboxStrategy,
    pub state: SandboxState,
    /// The resource's location when the sandbox was made.
    pub original: String,
    /// The private directory the sandbox owns.
    pub area: String,
    /// Where an agent works (absent until created).
    pub workdir: Option<String>,
    /// What the strategy recorded at creation (a commit, a manifest hash).
    pub base: Option<String>,
    pub last_error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// One recorded checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRow {
    pub sandbox: SandboxId,
    /// 1, 2, … in the order they were made.
    pub number: i64,
    pub label: Option<String>,
    /// The strategy's own name for it (a commit id, a snapshot number).
    pub reference: String,
    pub created_at: String,
}

macro_rules! sandbox_columns {
    () => {
        "sandbox_id, resource_id, strategy, state, original, area, workdir, base, last_error, \
         created_at, updated_at"
    };
}

fn decode_sandbox(c: &Columns<'_>) -> Result<SandboxRow, StoreError> {
    Ok(SandboxRow {
        id: c.parsed(0, SandboxId::parse)?,
        resource: c.parsed(1, ResourceId::parse)?,
        strategy: c.parsed(2, |t| {
            SandboxStrategy::parse(t).ok_or_else(|| format!("unknown strategy {t:?}"))
        })?,
        state: c.parsed(3, |t| {
            SandboxState::parse(t).ok_or_else(|| format!("unknown sandbox state {t:?}"))
        })?,
        original: c.get(4)?,
        area: c.get(5)?,
        workdir: c.get(6)?,
        base: c.get(7)?,
        last_error: c.get(8)?,
        created_at: c.get(9)?,
        updated_at: c.get(10)?,
    })
}

fn decode_checkpoint(c: &Columns<'_>) -> Result<CheckpointRow, StoreError> {
    Ok(CheckpointRow {
        sandbox: c.parsed(0, SandboxId::parse)?,
        number: c.get(1)?,
        label: c.get(2)?,
        reference: c.get(3)?,
        created_at: c.get(4)?,
    })
}

impl Reader<'_> {
    /// Every sandbox, or those of one resource, oldest first.
    pub fn sandboxes(&self, resource: Option<ResourceId>) -> Result<Vec<SandboxRow>, StoreError> {
        self.tx.rows(
            concat!(
                "SELECT ",
                sandbox_columns!(),
                " FROM sandboxes WHERE CAST(?1 AS TEXT) IS NULL OR resource_id = ?1 \
                 ORDER BY sandbox_id"
            ),
            args![resource.map(|r| r.to_string())],
            "sandboxes",
            0,
            decode_sandbox,
        )
    }

    /// The sandboxes of any of `resources` (what a removal would strand).
    pub fn sandboxes_of(&self, resources: &[ResourceId]) -> Result<Vec<SandboxRow>, StoreError> {
        let mut found = Vec::new();
        for id in resources {
            found.extend(self.sandboxes(Some(*id))?);
        }
        Ok(found)
    }

    pub fn sandbox(&self, id: SandboxId) -> Result<Option<SandboxRow>, StoreError> {
        self.tx.row(
            concat!(
                "SELECT ",
                sandbox_columns!(),
                " FROM sandboxes WHERE sandbox_id = ?1"
            ),
            args![id.to_string()],
            "sandboxes",
            0,
            decode_sandbox,
        )
    }

    /// A sandbox's checkpoints, in the order they were made.
    pub fn checkpoints(&self, id: SandboxId) -> Result<Vec<CheckpointRow>, StoreError> {
        self.tx.rows(
            "SELECT sandbox_id, number, label, reference, created_at
               FROM sandbox_checkpoints WHERE sandbox_id = ?1 ORDER BY number",
            args![id.to_string()],
            "sandbox_checkpoints",
            0,
            decode_checkpoint,
        )
    }
}

impl Writer<'_> {
    pub fn insert_sandbox(&self, row: &SandboxRow) -> Result<(), StoreError> {
        self.tx.execute(
            concat!(
                "INSERT INTO sandboxes (",
                sandbox_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
            ),
            args![
                row.id.to_string(),
                row.resource.to_string(),
                row.strategy.as_str(),
                row.state.as_str(),
                &row.original,
                &row.area,
                &row.workdir,
                &row.base,
                &row.last_error,
                &row.created_at,
                &row.updated_at,
            ],
        )?;
        Ok(())
    }

    /// Record what the strategy made and the sandbox's new state.
    pub fn update_sandbox(&self, row: &SandboxRow) -> Result<(), StoreError> {
        self.tx.execute(
            "UPDATE sandboxes SET state = ?2, workdir = ?3, base = ?4, last_error = ?5,
                    updated_at = ?6
              WHERE sandbox_id = ?1",
            args![
                row.id.to_string(),
                row.state.as_str(),
                &row.workdir,
                &row.base,
                &row.last_error,
                &row.updated_at,
            ],
        )?;
        Ok(())
    }

    /// Remove the sandbox and its checkpoints.
    pub fn delete_sandbox(&self, id: SandboxId) -> Result<(), StoreError> {
        self.tx.execute(
            "DELETE FROM sandboxes WHERE sandbox_id = ?1",
            args![id.to_string()],
        )?;
        Ok(())
    }

    /// Record a checkpoint as the next number; answers it.
    pub fn insert_checkpoint(
        &self,
        id: SandboxId,
        label: Option<&str>,
        reference: &str,
        now: &str,
    ) -> Result<i64, StoreError> {
        self.tx.value(
            "INSERT INTO sandbox_checkpoints (sandbox_id, number, label, reference, created_at)
             SELECT CAST(?1 AS TEXT), COALESCE(MAX(number), 0) + 1, CAST(?2 AS TEXT),
                    CAST(?3 AS TEXT), CAST(?4 AS TEXT)
               FROM sandbox_checkpoints WHERE sandbox_id = ?1
             RETURNING number",
            args![id.to_string(), label, reference, now],
        )
    }
}
