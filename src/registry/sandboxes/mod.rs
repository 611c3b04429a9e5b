//! Sandboxes of registered resources (`agents sandbox …`): which strategy
//! a resource gets, the rules that refuse, and the rows written around
//! each strategy call. How a strategy isolates and undoes is `sandbox`'s.
//!
//! **Files, then rows — each step recoverable.** A strategy works on disk
//! and cannot join a SQLite transaction, so every operation orders its
//! writes so that a crash at any point leaves something the next command
//! understands:
//!
//! * create: the row is written first (`creating`), then the strategy
//!   makes the sandbox in its area, then the row becomes `active`. A
//!   failure removes the area and the row; a crash leaves a `creating`
//!   row that `destroy` cleans up.
//! * checkpoint: the strategy finishes its checkpoint (renamed into place,
//!   or a ref written) before the checkpoint's row is inserted, so a crash
//!   leaves the previous checkpoints usable and no half-recorded one.
//! * destroy (`destroy.rs`): the row becomes `destroying`, the strategy
//!   removes what it made, then the rows go; a crash leaves a
//!   `destroying` row that `destroy` finishes.
//!
//! Operations on one sandbox are serialised across processes by an
//! exclusive lock on `sandboxes/<id>.lock` under the home (two agents
//! checkpointing one sandbox at once would otherwise race inside the
//! strategy's files).
//!
//! **Paths from the home, not from rows** (`place.rs`): every operation
//! acts on the area derived from the home and the id, the strategy's
//! working copy in it and the resource's location, and refuses a row that
//! names others. `destroy` and `rollback` first refuse a mount inside the
//! area (the strategy's own overlay aside), before the row changes.

mod destroy;
mod enumeration;
mod live;
pub mod local_mode;
pub(in crate::registry) use destroy::destroy_sandbox;
mod place;
mod session;
pub(in crate::registry) mod strategy;
mod support;
mod views;

use super::{Registry, RegistryError, SandboxRefusal};
use crate::model::SandboxState;
use crate::model::{Resource, ResourceId, ResourceKey, ResourceKind, SandboxId, SandboxStrategy};
use crate::registry::SandboxesError;
use crate::registry::lookup::{find_row, load_one};
use crate::registry::recording::EventOp;
use crate::sandbox::{self, Applied, CheckpointRef, SandboxDiff};
use crate::store::SandboxRow;
use serde_json::json;
use std::path::{Path, PathBuf};
pub(super) use support::lock_file;
use support::{check_label, create_area, lock, lock_path, pick_checkpoint};
use views::view;
pub use views::{CheckpointView, SandboxView};

impl Registry {
    /// The home, which sandboxes and containers keep their files under.
    pub(in crate::registry) fn needs_home(&self) -> Result<&Path, RegistryError> {
        let home = self.home.as_deref();
        Ok(home.ok_or(SandboxesError::SandboxNeedsHome)?)
    }

    fn sandboxes_root(&self) -> Result<PathBuf, RegistryError> {
        place::sandboxes_root(self.needs_home()?)
    }

    /// Where sandbox `id`'s area is, when this registry has a home (for
    /// showing; operations go through `place::place`).
    fn derived_area(&self, id: SandboxId) -> Option<PathBuf> {
        let home = self.home.as_ref()?;
        Some(place::area_of(&home.join("sandboxes"), id))
    }

    /// `row`'s view as listed and shown: its resource's label, its
    /// checkpoints and its area.
    fn stored_view(
        &self,
        r: &crate::store::Reader<'_>,
        row: SandboxRow,
    ) -> Result<SandboxView, RegistryError> {
        let found = r.resource_by_id(row.resource)?;
        let label = found.map_or_else(|| row.resource.to_string(), |f| f.label());
        let checkpoints = r.checkpoints(row.id)?.into_iter().map(Into::into).collect();
        let area = self.derived_area(row.id);
        Ok(view(row, label, checkpoints, area.as_deref()))
    }
}

/// Sandbox `id`'s row.
fn sandbox_row(r: &crate::store::Reader<'_>, id: SandboxId) -> Result<SandboxRow, RegistryError> {
    Ok(r.sandbox(id)?
        .ok_or(SandboxesError::SandboxNotFound { id })?)
}

fn failed(
    row: &SandboxRow,
    resource: &str,
    operation: &'static str,
    source: sandbox::SandboxError,
) -> RegistryError {
    RegistryError::Sandboxes(SandboxesError::SandboxFailed {
        sandbox: row.id,
        resource: resource.to_owned(),
        strategy: row.strategy,
        operation,
        source: Box::new(source),
    })
}

/// A sandbox operation refused before it ran, for `reason`.
fn refused(
    strategy: SandboxStrategy,
    resource: &Resource,
    operation: &'static str,
    reason: SandboxRefusal,
) -> RegistryError {
    SandboxesError::SandboxRefused {
        operation,
        resource: resource.label(),
        strategy,
        reason,
    }
    .into()
}

/// Refuse `operation` on a sandbox of a read-only resource (never
/// checkpointable, its original never written).
fn check_writable(
    row: &SandboxRow,
    resource: &Resource,
    operation: &'static str,
) -> Result<(), RegistryError> {
    if resource.read_only {
        return Err(refused(
            row.strategy,
            resource,
            operation,
            SandboxRefusal::ReadOnly,
        ));
    }
    Ok(())
}

fn isolating_ancestors(
    r: &crate::store::Reader<'_>,
    types: &crate::registry::type_set::TypeSet,
    resource: &Resource,
) -> Result<Vec<String>, RegistryError> {
    // Level by level up from its parents: the nearest resources whose own
    // strategy isolates (not `inherit`, which passes the question up, nor
    // `none`, which isolates nothing).
    let mut level: Vec<ResourceId> = resource.parents.clone();
    let mut seen: std::collections::HashSet<ResourceId> = level.iter().copied().collect();
    while !level.is_empty() {
        let mut found = Vec::new();
        let mut next = Vec::new();
        for id in &level {
            let Some(row) = r.resource_by_id(*id)? else {
                continue;
            };
            let strategy = match row.sandbox_strategy {
                Some(s) => s,
                None => types.resolve(&row.type_name)?.sandbox_strategy(),
            };
            match strategy {
                SandboxStrategy::Inherit | SandboxStrategy::None => {
                    next.extend(r.parents_of(*id)?.into_iter().filter(|p| seen.insert(*p)));
                }
                _ => found.push(row.label()),
            }
        }
        if !found.is_empty() {
            return Ok(found);
        }
        level = next;
    }
    Ok(Vec::new())
}

impl Registry {
    /// Make a sandbox of a resource with its strategy — `strategy` if
    /// given, else the resource's own override, else its type's.
    pub fn create_sandbox(
        &mut self,
        key: &ResourceKey,
        strategy: Option<SandboxStrategy>,
    ) -> Result<SandboxView, RegistryError> {
        let root = self.sandboxes_root()?;
        let cache = &self.types;
        let (resource, chosen) = self.store.read(|r| {
            let types = cache.get(r)?;
            let resource = load_one(r, &types, find_row(r, key)?)?;
            let ty = types.resolve(&resource.resource_type_name)?;
            let chosen = match strategy {
                Some(s) => strategy::check_strategy(&ty, resource.name.as_ref(), s.as_str())?,
                None => resource.sandbox_strategy.unwrap_or(ty.sandbox_strategy()),
            };
            let caps = ty.type_capabilities();
            let refuse = |reason| refused(chosen, &resource, "create", reason);
            if resource.kind == ResourceKind::Virtual {
                return Err(refuse(SandboxRefusal::Virtual));
            }
            if resource.location.is_none() {
                return Err(refuse(SandboxRefusal::NoLocation));
            }
            if chosen == SandboxStrategy::Inherit {
                let parents = isolating_ancestors(r, &types, &resource)?;
                return Err(refuse(SandboxRefusal::Inherits { parents }));
            }
            if chosen != SandboxStrategy::None && !caps.sandbox {
                return Err(refuse(SandboxRefusal::TypeNotSandboxable {
                    type_name: ty.name.clone(),
                }));
            }
            Ok((resource, chosen))
        })?;
        self.check_machine_of(resource.resource_id, || resource.label(), "a sandbox")?;
        let location = resource.location.clone().unwrap_or_default();
        self.check_in_roots(Path::new(&location), "a sandbox")?;
        let id = SandboxId::from_ulid(self.ids.next_id(self.clock.now()).ulid());
        let area = place::area_of(&root, id);
        let now = self.now();
        let row = SandboxRow {
            id,
            resource: resource.resource_id,
            strategy: chosen,
            state: SandboxState::Creating,
            original: location.clone(),
            area: area.to_string_lossy().into_owned(),
            workdir: None,
            base: None,
            last_error: None,
            created_at: now.clone(),
            updated_at: now,
        };
        self.store.write(|w| w.insert_sandbox(&row))?;
        let _lock = lock(&root, id, "create")?;
        let made = create_area(&area).and_then(|()| {
            self.implementation(chosen)
                .create(Path::new(&location), &area)
                .map_err(|source| failed(&row, &resource.label(), "create", source))
        });
        let place = match made {
            Ok(place) => place,
            Err(err) => {
                // Nothing half made stays behind: the strategy's partial
                // files (a worktree, a copy) and the row.
                if let Ok(partial) = self.placed(root.clone(), &row, Some(&location)) {
                    let _ = partial.strategy.destroy(&partial.place);
                }
                let _ = std::fs::remove_dir_all(&area);
                self.store.write(|w| w.delete_sandbox(id))?;
                let _ = std::fs::remove_file(lock_path(&root, id));
                return Err(err);
            }
        };
        let row = SandboxRow {
            state: SandboxState::Active,
            workdir: Some(place.workdir.to_string_lossy().into_owned()),
            base: Some(place.base.clone()),
            ..row
        };
        let changes = json!({"strategy": row.strategy, "location": location});
        let row = self.touch(&row, &resource, EventOp::SandboxCreated, changes)?;
        let mut made = view(row, resource.label(), Vec::new(), Some(&area));
        made.enumerated = self.local_enumeration(&made)?;
        Ok(made)
    }

    /// Every sandbox, or those of one resource, oldest first.
    pub fn list_sandboxes(
        &self,
        resource: Option<&ResourceKey>,
    ) -> Result<Vec<SandboxView>, RegistryError> {
        self.store.read(|r| {
            let only = resource.map(|key| find_row(r, key)).transpose()?;
            let rows = r.sandboxes(only.map(|row| row.id))?;
            rows.into_iter()
                .map(|row| self.stored_view(r, row))
                .collect()
        })
    }

    pub fn show_sandbox(&self, id: SandboxId) -> Result<SandboxView, RegistryError> {
        let mut shown = self
            .store
            .read(|r| self.stored_view(r, sandbox_row(r, id)?))?;
        shown.enumerated = self.local_enumeration(&shown)?;
        Ok(shown)
    }

    /// Record the working copy's whole state as the next checkpoint.
    pub fn checkpoint_sandbox(
        &mut self,
        id: SandboxId,
        label: Option<&str>,
    ) -> Result<CheckpointView, RegistryError> {
        if let Some(label) = label {
            check_label(label)?;
        }
        let label = label.map(str::to_owned);
        let (row, resource) = self.active(id, "checkpoint")?;
        check_writable(&row, &resource, "checkpoint")?;
        let type_name = resource.resource_type_name.clone();
        if row.strategy != SandboxStrategy::None && !self.type_checkpointable(&type_name)? {
            let reason = SandboxRefusal::TypeNotCheckpointable { type_name };
            return Err(refused(row.strategy, &resource, "checkpoint", reason));
        }
        let work = self.at_work(&row, &resource, "checkpoint")?;
        let _lock = lock(&work.root, id, "checkpoint")?;
        let made = work
            .strategy
            .checkpoint(&work.place, label.as_deref().unwrap_or(""))
            .map_err(|source| failed(&row, &resource.label(), "checkpoint", source))?;
        let now = self.now();
        let rec = self.recorder();
        let shown = resource.label();
        let number = self.store.write(|w| {
            let number = w.insert_checkpoint(id, label.as_deref(), &made.0, &now)?;
            w.update_sandbox(&SandboxRow {
                updated_at: now.clone(),
                ..row.clone()
            })?;
            let changes = json!({"checkpoint": number, "label": label});
            let subject = (resource.resource_id, shown.as_str());
            rec.sandbox(w, EventOp::SandboxCheckpointed, id, subject, Some(changes))?;
            Ok::<_, RegistryError>(number)
        })?;
        Ok(CheckpointView {
            number,
            label,
            reference: made.0,
            created_at: now,
        })
    }

    /// Bring the working copy back to a checkpoint: `to` is its number or
    /// label; the latest when `None`. Later checkpoints are kept.
    pub fn rollback_sandbox(
        &mut self,
        id: SandboxId,
        to: Option<&str>,
    ) -> Result<CheckpointView, RegistryError> {
        let (row, resource) = self.active(id, "roll back")?;
        if row.strategy == SandboxStrategy::None {
            return Err(failed(
                &row,
                &resource.label(),
                "rollback",
                sandbox::SandboxError::NotSupported(sandbox::NO_ISOLATION.to_owned()),
            ));
        }
        let work = self.at_work(&row, &resource, "roll back")?;
        let checkpoints: Vec<CheckpointView> = self
            .store
            .read(|r| r.checkpoints(id))?
            .into_iter()
            .map(Into::into)
            .collect();
        let target = pick_checkpoint(id, &checkpoints, to)?;
        let _lock = lock(&work.root, id, "roll back")?;
        work.strategy
            .refuse_mounts(&work.place)
            .and_then(|()| {
                work.strategy
                    .rollback(&work.place, &CheckpointRef(target.reference.clone()))
            })
            .map_err(|source| failed(&row, &resource.label(), "rollback", source))?;
        let changes = json!({"checkpoint": target.number, "label": target.label});
        self.touch(&row, &resource, EventOp::SandboxRolledBack, changes)?;
        Ok(target)
    }

    /// What changed in the sandbox against the original.
    pub fn diff_sandbox(&self, id: SandboxId) -> Result<SandboxDiff, RegistryError> {
        let (row, resource) = self.active(id, "diff")?;
        let work = self.at_work(&row, &resource, "diff")?;
        let _lock = lock(&work.root, id, "diff")?;
        work.strategy
            .diff(&work.place)
            .map_err(|source| failed(&row, &resource.label(), "diff", source))
    }

    /// Promote the sandbox's changes to the original (a branch for git, a
    /// copy-back refused on conflicts for directories) — all or nothing.
    pub fn apply_sandbox(&mut self, id: SandboxId) -> Result<Applied, RegistryError> {
        let (row, resource) = self.active(id, "apply")?;
        check_writable(&row, &resource, "apply")?;
        let work = self.at_work(&row, &resource, "apply")?;
        let _lock = lock(&work.root, id, "apply")?;
        let applied = work
            .strategy
            .apply(&work.place)
            .map_err(|source| failed(&row, &resource.label(), "apply", source))?;
        let changes = serde_json::to_value(&applied).unwrap_or_default();
        self.touch(&row, &resource, EventOp::SandboxApplied, changes)?;
        Ok(applied)
    }

    /// Remove everything the sandbox made (its area, worktree, refs) and
    /// its rows. Also finishes a sandbox a crash left `creating` or
    /// `destroying`.
    pub fn destroy_sandbox(&mut self, id: SandboxId) -> Result<SandboxView, RegistryError> {
        destroy_sandbox(self, id)
    }

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
        let session = session::claim(&root, id, "open a session on")?;
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
        check_writable(&row, &resource, "open")?;
        let work = self.placed(root, &row, resource.location.as_deref())?;
        let wait = sandbox::TRANSACTION_BUSY_TIMEOUT;
        let mut tx = sandbox::SqliteTransaction::open_with(&work.place.original, wait, limits)
            .map_err(|source| failed(&row, &resource.label(), "open", source))?;
        tx.hold(session);
        Ok(tx)
    }
}
