//! Registering resources: one way through. The caller asks for a type's
//! [`RegistrationForm`] (what `agents resource add TYPE` turns into its
//! flags), then hands a [`NewResource`]; the registry checks it against
//! the type it resolved once, runs the type's handler (`validate`) and the
//! discovery engine ([`REGISTRATION_DEPTH`](crate::registry::REGISTRATION_DEPTH)
//! levels below it) outside any transaction, and writes the resource, what
//! was discovered and the links in one transaction, handing back the
//! [`Resource`] it assembled there.
//!
//! If another process changed a type the registration relied on while
//! the handler ran, the write is refused rather than made under rules
//! nobody checked ([`RegistryError::Types(TypesError::TypesChanged)`]).

use crate::dag::AdmittedLink;
use crate::model::{Resource, ResourceId, ResourceName, SandboxStrategy, TypeArgument, TypeName};
use crate::registry::ResourcesError;
use crate::registry::args::{self, CheckedArgs};
use crate::registry::link_refused as refused;
use crate::registry::lookup::assemble;
use crate::registry::recording::{EventOp, Recorder, listed};
use crate::registry::resources::discovery::{
    Depth, DiscoveryProgress, Findings, REGISTRATION_DEPTH, RootHash, insert_new, write_findings,
};
use crate::registry::resources::equivalence;
use crate::registry::type_set::TypeSet;
use crate::registry::{Registry, RegistryError};
use crate::store::{ResourceInserter, ResourceRow, Writer};
use serde_json::json;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// How [`Registry::register_resource`] runs.
#[derive(Default)]
pub struct RegisterOptions<'a> {
    /// Told how far the registration's discovery came after each
    /// handler call; answering `Break` stops it, nothing written
    /// (default: none).
    pub progress: Option<&'a mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>>,
}

impl std::fmt::Debug for RegisterOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisterOptions")
            .field("progress", &self.progress.as_ref().map(|_| "…"))
            .finish()
    }
}

/// A registration request: what `agents resource add` collects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewResource {
    /// The type's name, as given.
    pub type_name: String,
    /// Optional namespaced name (`local/api-repo`).
    pub name: Option<String>,
    /// The type's arguments: flag name (without `--`) and raw text.
    pub args: Vec<(String, String)>,
    pub description: Option<String>,
    /// A per-resource sandbox strategy override.
    pub sandbox_strategy: Option<String>,
    pub read_only: bool,
    /// What relative `path` arguments are relative to.
    pub base_dir: Option<PathBuf>,
}

/// What registering a resource of one type takes: the type's effective
/// arguments and what the command line shows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct RegistrationForm {
    pub type_name: TypeName,
    pub description: String,
    pub args: Vec<TypeArgument>,
    /// The type's sandbox strategy (a resource may override it).
    pub sandbox_strategy: SandboxStrategy,
}

/// A registration that passed every check, ready to write: the resource
/// and what discovery found below it.
struct Prepared {
    row: ResourceRow,
    found: Findings,
    /// For a type with discovery rules and no handler: one placeholder
    /// per rule (see [`placeholders`]).
    placeholders: Vec<ResourceRow>,
}

impl Registry {
    /// Check a request against its type and run its handler; nothing is
    /// written. `at` is the operation's one clock reading.
    fn prepare(
        &self,
        types: &TypeSet,
        at: SystemTime,
        request: NewResource,
        progress: Option<&mut (dyn FnMut(DiscoveryProgress) -> ControlFlow<()> + '_)>,
    ) -> Result<Prepared, RegistryError> {
        let ty = types.find(&request.type_name)?;
        check_addable(&ty)?;
        let name = request
            .name
            .as_deref()
            .map(ResourceName::parse_chosen)
            .transpose()?;
        let checked: CheckedArgs = args::check(&ty, &request.args, request.base_dir.as_deref())?;
        self.check_args_in_roots(&ty, &checked)?;
        args::check_description(request.description.as_deref())?;
        let strategy = request
            .sandbox_strategy
            .as_deref()
            .map(|s| check_strategy(&ty, name.as_ref(), s))
            .transpose()?;
        // After the handler's own validation when there is one: its
        // refusal says more about what is wrong with the location.
        let fits = |row: &ResourceRow| {
            check_location_fits(
                &ty,
                row.name.as_ref(),
                strategy.unwrap_or(ty.sandbox_strategy()),
                row.location.as_deref(),
            )
        };
        let stamp = crate::effects::iso8601(at);
        let id = self.ids.next_id(at);
        let mut row = ResourceRow {
            location: checked.location,
            description: request.description,
            read_only: request.read_only,
            sandbox_strategy: strategy,
            properties: checked.properties,
            registered_by: Some(self.actor.clone()),
            ..ResourceRow::new(id, name, ty.name.clone(), ty.kind(), &stamp)
        };
        let mut placeholders = Vec::new();
        let found = match self.handler_for(&ty)? {
            None => {
                fits(&row)?;
                placeholders = self.placeholders(types, &ty, &row, &stamp);
                if !placeholders.is_empty() {
                    row.discovered_at = Some(stamp.clone());
                }
                Findings::default()
            }
            Some(handler) => {
                // Refuse a taken name before running the handler for
                // nothing (the write is refused again by the constraint).
                if let Some(name) = &row.name
                    && let Some(existing) = self.store.read(|r| r.resource_by_name(name))?
                {
                    return Err(RegistryError::Resources(ResourcesError::DuplicateName {
                        name: name.clone(),
                        id: existing.id,
                    }));
                }
                row.properties = self.fresh_properties(&handler, &ty, &row)?;
                fits(&row)?;
                let depth = Depth::Levels(REGISTRATION_DEPTH);
                let found =
                    self.explore(types, row.clone(), false, RootHash::Ask, depth, progress)?;
                row.content_hash = found.root_hash.clone();
                if found.root_explored {
                    row.discovered_at = Some(stamp.clone());
                }
                found
            }
        };
        Ok(Prepared {
            row,
            found,
            placeholders,
        })
    }
}

/// Write a resource, what was discovered below it and the links —
/// refused when a type `p` was checked against (in `then`) has changed
/// since (another process replaced or removed it while handlers ran).
fn write_prepared(
    w: &Writer<'_>,
    (current, then): (&Arc<TypeSet>, &Arc<TypeSet>),
    inserter: &mut ResourceInserter<'_>,
    p: &Prepared,
    now: &str,
    rec: &Recorder,
) -> Result<(), RegistryError> {
    // A chosen name may not pass for an existing one (checked in the
    // transaction that takes it).
    if let Some(name) = &p.row.name {
        for existing in w.names_with_skeleton(&name.skeleton())? {
            if name.confusable_with(&existing) {
                return Err(RegistryError::Resources(ResourcesError::ConfusableName {
                    name: name.clone(),
                    existing,
                }));
            }
        }
    }
    insert_new(w, inserter, &p.row)?;
    for placeholder in &p.placeholders {
        insert_new(w, inserter, placeholder)?;
        let link = AdmittedLink::new_child(p.row.id, placeholder.id)
            .map_err(|r| refused(r, p.row.label(), placeholder.label()))?;
        w.insert_link(link, true, now, None)?;
    }
    write_findings(
        w,
        current,
        then,
        std::iter::once(&p.row.type_name).chain(&p.found.types),
        || format!("the registration of {}", p.row.label()),
        &p.found,
        None,
        now,
    )?;
    let found = p.found.added.iter().map(|f| f.row.label());
    let mut changes = json!({
        "type": p.row.type_name.as_str(),
        "location": p.row.location,
    });
    if !p.found.added.is_empty() {
        changes["discovered"] = listed(found, p.found.added.len());
    }
    rec.resource(w, EventOp::ResourceRegistered, &p.row, Some(changes))?;
    Ok(())
}

mod checks;

use crate::registry::sandboxes::strategy::{check_location_fits, check_strategy};
use checks::check_addable;

/// The work of [`Registry::registration_form`].
pub(crate) fn registration_form(
    reg: &Registry,
    type_name: &str,
) -> Result<RegistrationForm, RegistryError> {
    let types = reg.store.read(|r| reg.types.get(r))?;
    let ty = types.find(type_name)?;
    check_addable(&ty)?;
    Ok(RegistrationForm {
        type_name: ty.name.clone(),
        description: ty.description().to_owned(),
        args: ty.args().cloned().collect(),
        sandbox_strategy: ty.sandbox_strategy(),
    })
}

/// The work of [`Registry::register_resource`].
pub(crate) fn register_resource(
    reg: &mut Registry,
    request: NewResource,
    progress: Option<&mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>>,
) -> Result<Resource, RegistryError> {
    register(reg, [request], progress, |w, types, prepared| {
        let row = &prepared[0].row;
        assemble(types, row.clone(), Vec::new(), w.children_of(row.id)?)
    })
}

/// The work of [`Registry::register_resources`].
pub(crate) fn register_resources(
    reg: &mut Registry,
    requests: impl IntoIterator<Item = NewResource>,
) -> Result<Vec<ResourceId>, RegistryError> {
    register(reg, requests, None, |_, _, prepared| {
        Ok(prepared.iter().map(|p| p.row.id).collect())
    })
}

/// Prepare `requests` (one clock reading for all), write them in one
/// transaction, the identities reconciled, and answer what `finish`
/// reads then.
fn register<T>(
    reg: &mut Registry,
    requests: impl IntoIterator<Item = NewResource>,
    mut progress: Option<&mut dyn FnMut(DiscoveryProgress) -> ControlFlow<()>>,
    finish: impl FnOnce(&Writer<'_>, &TypeSet, &[Prepared]) -> Result<T, RegistryError>,
) -> Result<T, RegistryError> {
    let _git = reg.git_snapshot();
    let types = reg.store.read(|r| reg.types.get(r))?;
    let at = reg.clock.now();
    let prepared = requests
        .into_iter()
        .map(|r| reg.prepare(&types, at, r, progress.as_deref_mut()))
        .collect::<Result<Vec<_>, _>>()?;
    let now = reg.now();
    let rec = reg.recorder();
    let cache = &reg.types;
    let (ids, clock) = (&reg.ids, &reg.clock);
    reg.store.write(|w| {
        let current = cache.get(w)?;
        let mut inserter = w.resource_inserter()?;
        for p in &prepared {
            write_prepared(w, (&current, &types), &mut inserter, p, &now, &rec)?;
        }
        equivalence::reconcile(w, &types, &|| ids.next_id(clock.now()), &now)?;
        finish(w, &types, &prepared)
    })
}
