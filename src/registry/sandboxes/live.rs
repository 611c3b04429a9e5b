//! What every operation on a live sandbox starts from: its row and
//! resource (refused unless active, and on this machine), the refusal of
//! a session-held one, and its strategy and place; and the stamp an
//! operation leaves on its row.

use super::super::{Registry, RegistryError, SandboxRefusal};
use super::place;
use crate::model::{Resource, ResourceKey, SandboxId, SandboxState, SandboxStrategy, TypeName};
use crate::registry::SandboxesError;
use crate::registry::lookup::{find_row, load_one};
use crate::sandbox::{self, Strategy};
use crate::store::SandboxRow;
use std::path::PathBuf;

impl Registry {
    /// The sandbox's row and resource, refusing one that is not active.
    pub(super) fn active(
        &self,
        id: SandboxId,
        operation: &'static str,
    ) -> Result<(SandboxRow, Resource), RegistryError> {
        let cache = &self.types;
        let (row, resource) = self.store.read(|r| {
            let row = super::sandbox_row(r, id)?;
            if row.state != SandboxState::Active {
                let state = row.state;
                let not_active = SandboxesError::SandboxNotActive { sandbox: id, state };
                return Err(RegistryError::from(not_active));
            }
            let types = cache.get(r)?;
            let resource = load_one(r, &types, find_row(r, &ResourceKey::Id(row.resource))?)?;
            Ok((row, resource))
        })?;
        // Its files are on the machine of its resource.
        self.check_machine_of(resource.resource_id, || resource.label(), "its sandboxes")?;
        self.check_location_in_roots(resource.location.as_deref(), operation)?;
        Ok((row, resource))
    }

    pub(super) fn type_checkpointable(&self, ty: &TypeName) -> Result<bool, RegistryError> {
        let cache = &self.types;
        self.store.read(|r| {
            let types = cache.get(r)?;
            Ok(types.resolve(ty)?.type_capabilities().checkpoint)
        })
    }

    pub(super) fn implementation(&self, strategy: SandboxStrategy) -> Box<dyn Strategy> {
        // `inherit` never reaches a row: create refuses it.
        sandbox::implementation(strategy, &self.overlay, &self.git)
            .unwrap_or_else(|| Box::new(sandbox::NoIsolation))
    }

    /// What an operation on an active sandbox works with: refused for a
    /// session-held one (`transaction_rollback` keeps its transaction in
    /// the session that holds it: outside one, its operations are refused
    /// with that reason), else [`Registry::placed`].
    pub(super) fn at_work(
        &self,
        row: &SandboxRow,
        resource: &Resource,
        operation: &'static str,
    ) -> Result<AtWork, RegistryError> {
        if row.strategy == SandboxStrategy::TransactionRollback {
            let reason = SandboxRefusal::HeldBySession;
            return Err(super::refused(row.strategy, resource, operation, reason));
        }
        self.placed(self.sandboxes_root()?, row, resource.location.as_deref())
    }

    /// The sandbox of `row`'s strategy and its place: derived from `root`
    /// (the home's `sandboxes/`) and its resource's `location`, checked
    /// against the row.
    pub(super) fn placed(
        &self,
        root: PathBuf,
        row: &SandboxRow,
        location: Option<&str>,
    ) -> Result<AtWork, RegistryError> {
        let strategy = self.implementation(row.strategy);
        let place = place::place(&root, row, location, &*strategy)?;
        Ok(AtWork {
            root,
            strategy,
            place,
        })
    }

    /// Stamp the sandbox's row as changed now (after its strategy
    /// acted), recording `op` with `changes`; answers the row written.
    pub(super) fn touch(
        &mut self,
        row: &SandboxRow,
        resource: &Resource,
        op: crate::registry::recording::EventOp,
        changes: serde_json::Value,
    ) -> Result<SandboxRow, RegistryError> {
        let row = SandboxRow {
            updated_at: self.now(),
            ..row.clone()
        };
        let rec = self.recorder();
        let label = resource.label();
        self.store.write(|w| {
            w.update_sandbox(&row)?;
            let subject = (resource.resource_id, label.as_str());
            rec.sandbox(w, op, row.id, subject, Some(changes))
        })?;
        Ok(row)
    }
}

/// See [`Registry::at_work`].
pub(super) struct AtWork {
    pub root: PathBuf,
    pub strategy: Box<dyn Strategy>,
    pub place: sandbox::SandboxPlace,
}
