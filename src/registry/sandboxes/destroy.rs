//! Destroying sandboxes: the one home of the order in which a sandbox's
//! files and rows go (see `sandboxes.rs`: the row becomes `destroying`,
//! the strategy removes its files, then the rows), and of what is checked
//! before anything changes — the paths against the home and the resource,
//! and that nothing is mounted inside (a refused destroy leaves the
//! sandbox active).

use super::{Registry, failed, lock, lock_path, sandbox_row, session};
use crate::model::SandboxState;
use crate::model::{Resource, ResourceKey, SandboxId, SandboxStrategy};
use crate::registry::{RegistryError, SandboxView};
use crate::store::Reader;

impl Registry {
    /// Destroy every sandbox of the resource and of what removing it would
    /// take along (`agents resource remove --force`); answers them.
    pub(in crate::registry) fn destroy_sandboxes_for_removal(
        &mut self,
        key: &ResourceKey,
    ) -> Result<Vec<SandboxView>, RegistryError> {
        let ids = self.removal_takes(key, crate::registry::lookup::going::sandboxes_on)?;
        ids.into_iter().map(|id| self.destroy_sandbox(id)).collect()
    }

    /// `on` of the resource `key` and what removing it takes along, in
    /// one read: what `resource remove --force` clears first.
    pub(in crate::registry) fn removal_takes<T>(
        &self,
        key: &ResourceKey,
        on: impl FnOnce(&Reader<'_>, &[Resource]) -> Result<T, RegistryError>,
    ) -> Result<T, RegistryError> {
        let cache = &self.types;
        self.store.read(|r| {
            let types = cache.get(r)?;
            let root = crate::registry::lookup::find_row(r, key)?;
            let (removed, _) = crate::registry::lookup::going::what_goes(r, &types, &[root.id])?;
            on(r, &removed)
        })
    }
}

/// The work of [`Registry::destroy_sandbox`].
pub(in crate::registry) fn destroy_sandbox(
    reg: &mut Registry,
    id: SandboxId,
) -> Result<SandboxView, RegistryError> {
    let root = reg.sandboxes_root()?;
    let mut shown = reg.show_sandbox(id)?;
    let _lock = lock(&root, id, "destroy")?;
    let (mut row, location) = reg.store.read(|r| {
        let row = sandbox_row(r, id)?;
        let location = r.resource_by_id(row.resource)?.and_then(|f| f.location);
        Ok::<_, RegistryError>((row, location))
    })?;
    reg.check_machine_of(row.resource, || shown.resource.clone(), "its sandboxes")?;
    reg.check_location_in_roots(location.as_deref(), "destroy")?;
    let work = reg.placed(root, &row, location.as_deref())?;
    // A mount inside is refused before anything changes: the sandbox
    // stays as it was (active stays active) until it is unmounted.
    work.strategy
        .refuse_mounts(&work.place)
        .map_err(|source| failed(&row, &shown.resource, "destroy", source))?;
    // A live session would outlive the sandbox (and could still
    // apply): refused while one is; none can start until this ends.
    let _session = (row.strategy == SandboxStrategy::TransactionRollback)
        .then(|| session::claim(&work.root, id, "destroy"))
        .transpose()?;
    row.state = SandboxState::Destroying;
    row.updated_at = reg.now();
    reg.store.write(|w| w.update_sandbox(&row))?;
    if let Err(source) = work.strategy.destroy(&work.place) {
        let err = failed(&row, &shown.resource, "destroy", source);
        row.last_error = Some(crate::text::excerpt(&err.to_string(), 3000).into_owned());
        reg.store.write(|w| w.update_sandbox(&row))?;
        return Err(err);
    }
    let rec = reg.recorder();
    reg.store.write(|w| {
        w.delete_sandbox(id)?;
        let op = crate::registry::recording::EventOp::SandboxDestroyed;
        let changes = serde_json::json!({"strategy": row.strategy});
        rec.sandbox(w, op, id, (row.resource, &shown.resource), Some(changes))
    })?;
    let _ = std::fs::remove_file(lock_path(&work.root, id));
    let _ = std::fs::remove_file(session::session_path(&work.root, id));
    shown.state = SandboxState::Destroying;
    Ok(shown)
}
