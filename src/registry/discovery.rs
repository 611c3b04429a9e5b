//! Calling handlers for resources: `validate` and `discover` at
//! registration, `discover` again on demand (`agents resource discover`),
//! and `inspect`.
//!
//! **Handlers compute; the host decides.** Every call runs before the
//! write transaction, in a fresh sandbox that sees only the resource's
//! location, read-only (none of these operations writes). What a handler
//! answers is checked here before anything is written: a discovered
//! child's type must exist, be allowed below the parent's type (subtypes
//! included) and, when the parent's type lists discovery rules, match one;
//! its name must be a valid name under the parent's; a virtual child has no
//! location. A refusal names the module, class and operation, and the
//! registry is left exactly as it was.

use super::args::render;
use super::catalogue::Catalogue;
use super::plugins::Handler;
use super::resources::{assemble, find_row, insert_new, load_resources as load};
use super::{Registry, RegistryError};
use crate::dag;
use crate::model::{PropertyMap, ResolvedType, Resource, ResourceId, ResourceKind, ResourceName};
use crate::plugin::{CallError, CallErrorKind, Discovered, Grant, HandlerError, ResourceView};
use crate::store::ResourceRow;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// What `agents resource discover` changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscoveryReport {
    pub resource: Resource,
    /// Children found for the first time.
    pub added: Vec<Resource>,
    /// Discovered children no longer found (and the discovered resources
    /// only they kept).
    pub removed: Vec<Resource>,
    /// Children found again (their properties and hashes refreshed).
    pub kept: usize,
}

/// What `agents resource inspect` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Inspection {
    pub resource: String,
    pub handler: String,
    pub file: Option<String>,
    pub text: String,
}

/// The sandbox a call on `location` gets: that directory (or a file's
/// directory), read-only.
fn grant(location: Option<&str>) -> Grant {
    match location.map(Path::new) {
        Some(path) if path.is_dir() => Grant::read_only(path),
        Some(path) => path.parent().map_or_else(Grant::none, Grant::read_only),
        None => Grant::none(),
    }
}

fn view(row: &ResourceRow) -> ResourceView {
    ResourceView {
        id: row.id.to_string(),
        name: row.name.as_ref().map(ToString::to_string),
        type_name: row.type_name.to_string(),
        location: row.location.clone(),
        properties: row
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), render(v)))
            .collect(),
    }
}

/// An answer the handler was entitled to give but chose not to: the
/// operation is optional.
fn unsupported(e: &CallError) -> bool {
    matches!(e.kind, CallErrorKind::Handler(HandlerError::Unsupported(_)))
}

impl Registry {
    /// Run the type's handler over a new resource: `validate` (its
    /// properties are merged over the checked arguments), `discover` (unless
    /// the type disables auto-discovery) and `content-hash`. Returns the
    /// checked children to write with it.
    pub(super) fn consult_handler(
        &self,
        catalogue: &Catalogue,
        ty: &ResolvedType,
        handler: &Handler,
        row: &mut ResourceRow,
    ) -> Result<Vec<ResourceRow>, RegistryError> {
        let runtime = &self.plugins("cannot run a handler")?.runtime;
        let sandbox = grant(row.location.as_deref());
        let args = view(row).properties;
        let mut args = args;
        if let Some(location) = &row.location {
            args.insert(0, (super::args::LOCATION_ARG.to_owned(), location.clone()));
        }
        log::debug!(
            "{}:{} validate {}",
            handler.module.module(),
            handler.class,
            ty.name
        );
        let properties = runtime.validate(&handler.module, &handler.class, &args, &sandbox)?;
        for (key, value) in properties {
            if key != super::args::LOCATION_ARG {
                row.properties.insert(key, Value::String(value));
            }
        }
        let enabled = ty.auto_discovery.as_ref().is_none_or(|a| a.value.enabled);
        let children = if enabled {
            self.discover_children(catalogue, ty, handler, row, &sandbox)?
        } else {
            Vec::new()
        };
        row.content_hash = self.hash(handler, row, &sandbox)?;
        Ok(children)
    }

    fn hash(
        &self,
        handler: &Handler,
        row: &ResourceRow,
        sandbox: &Grant,
    ) -> Result<Option<String>, RegistryError> {
        let runtime = &self.plugins("cannot run a handler")?.runtime;
        match runtime.content_hash(&handler.module, &handler.class, &view(row), sandbox) {
            Ok(hash) => Ok(Some(hash)),
            Err(e) if unsupported(&e) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn discover_children(
        &self,
        catalogue: &Catalogue,
        ty: &ResolvedType,
        handler: &Handler,
        parent: &ResourceRow,
        sandbox: &Grant,
    ) -> Result<Vec<ResourceRow>, RegistryError> {
        let runtime = &self.plugins("cannot run a handler")?.runtime;
        let found = match runtime.discover(&handler.module, &handler.class, &view(parent), sandbox)
        {
            Ok(found) => found,
            Err(e) if unsupported(&e) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let refuse = |reason: String| RegistryError::HandlerResultRefused {
            module: handler.module.module().to_owned(),
            class: handler.class.clone(),
            operation: "discover",
            reason,
        };
        let stamp = self.now();
        let mut names = BTreeSet::new();
        let mut rows = Vec::with_capacity(found.len());
        for (i, child) in found.into_iter().enumerate() {
            let row = self
                .child_row(catalogue, ty, parent, child, &stamp)
                .map_err(|reason| refuse(format!("child {i}: {reason}")))?;
            if let Some(name) = &row.name
                && !names.insert(name.clone())
            {
                return Err(refuse(format!("child {i}: the name {name} is given twice")));
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// Check one discovered child against the parent's type and make its row.
    fn child_row(
        &self,
        catalogue: &Catalogue,
        parent_ty: &ResolvedType,
        parent: &ResourceRow,
        child: Discovered,
        stamp: &str,
    ) -> Result<ResourceRow, String> {
        if !catalogue.contains(&child.type_name) {
            return Err(format!("type {} is not a registered type", child.type_name));
        }
        let child_ty = catalogue
            .resolve(&child.type_name)
            .map_err(|e| e.to_string())?;
        dag::check_link_types(parent_ty, &child_ty)?;
        if let Some(auto) = &parent_ty.auto_discovery
            && !auto.value.rules.is_empty()
            && !auto.value.rules.iter().any(|r| child_ty.is_a(&r.type_name))
        {
            let rules: Vec<&str> = auto
                .value
                .rules
                .iter()
                .map(|r| r.type_name.as_str())
                .collect();
            return Err(format!(
                "type {} matches none of {}'s discovery rules ({})",
                child_ty.name,
                parent_ty.name,
                rules.join(", ")
            ));
        }
        let kind = child_ty.resource_kind.value;
        if kind == ResourceKind::Virtual && child.location.is_some() {
            return Err(format!(
                "{} is virtual and cannot have a location",
                child_ty.name
            ));
        }
        let name = match (&parent.name, &child.name) {
            (Some(parent_name), Some(suffix)) => Some(
                ResourceName::parse(&format!("{parent_name}/{suffix}"))
                    .map_err(|e| e.to_string())?,
            ),
            _ => None,
        };
        let properties: PropertyMap = child
            .properties
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        Ok(ResourceRow {
            id: self.ids.next_id(self.clock.now()),
            name,
            type_name: child_ty.name.clone(),
            kind,
            location: child.location,
            description: None,
            read_only: false,
            auto_discovered: true,
            sandbox_strategy: None,
            content_hash: child.content_hash,
            properties,
            created_at: stamp.to_owned(),
            updated_at: stamp.to_owned(),
        })
    }

    /// Re-run discovery for a resource (`agents resource discover`): add
    /// children found for the first time, drop discovered children no
    /// longer found (with what only they kept), refresh the rest and the
    /// resource's content hash. One transaction.
    pub fn discover(&mut self, key: &str) -> Result<DiscoveryReport, RegistryError> {
        let catalogue = self.catalogue()?;
        let row = self.store.read(|r| find_row(r, key))?;
        let ty = catalogue.resolve(&row.type_name)?;
        let handler = self.require_handler(&ty, &row, "discover")?;
        let sandbox = grant(row.location.as_deref());
        let found = self.discover_children(&catalogue, &ty, &handler, &row, &sandbox)?;
        let hash = self.hash(&handler, &row, &sandbox)?;
        let now = self.now();
        let parent_id = row.id;
        self.store.write(|w| {
            let current: Vec<ResourceRow> = w
                .resources_by_ids(&w.children_of(parent_id)?)?
                .into_iter()
                .filter(|c| c.auto_discovered)
                .collect();
            let same = |a: &ResourceRow, b: &ResourceRow| {
                a.type_name == b.type_name && a.name == b.name && a.location == b.location
            };
            let (mut added, mut kept) = (Vec::new(), 0);
            for child in &found {
                match current.iter().find(|c| same(c, child)) {
                    Some(existing) => {
                        kept += 1;
                        w.update_resource_findings(
                            existing.id,
                            &child.properties,
                            child.content_hash.as_deref(),
                            &now,
                        )?;
                    }
                    None => {
                        insert_new(w, child)?;
                        w.insert_link(parent_id, child.id, true, &now)?;
                        added.push(child.id);
                    }
                }
            }
            let mut gone: Vec<ResourceId> = Vec::new();
            for old in current.iter().filter(|c| !found.iter().any(|f| same(c, f))) {
                w.delete_link(parent_id, old.id)?;
                if w.parents_of(old.id)?.is_empty() {
                    let (edges, auto) = w.subgraph_below(old.id)?;
                    let pairs: Vec<_> = edges.iter().map(|e| (e.parent, e.child)).collect();
                    gone.extend(dag::removal_set(old.id, &pairs, &auto));
                }
            }
            let removed = load(w, &catalogue, &gone)?;
            w.delete_resources(&gone)?;
            w.update_resource_findings(parent_id, &row.properties, hash.as_deref(), &now)?;
            let resource = {
                let fresh = find_row(w, &parent_id.to_string())?;
                let (p, c) = (w.parents_of(parent_id)?, w.children_of(parent_id)?);
                assemble(&catalogue, fresh, p, c)?
            };
            Ok(DiscoveryReport {
                resource,
                added: load(w, &catalogue, &added)?,
                removed,
                kept,
            })
        })
    }

    /// The handler's description of a resource, or of one file in it
    /// (`agents resource inspect [--file PATH]`).
    pub fn inspect(&self, key: &str, file: Option<&str>) -> Result<Inspection, RegistryError> {
        let catalogue = self.catalogue()?;
        let row = self.store.read(|r| find_row(r, key))?;
        let ty = catalogue.resolve(&row.type_name)?;
        let handler = self.require_handler(&ty, &row, "inspect")?;
        if let Some(file) = file {
            let path = Path::new(file);
            let inside = path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                return Err(RegistryError::HandlerResultRefused {
                    module: handler.module.module().to_owned(),
                    class: handler.class.clone(),
                    operation: "inspect",
                    reason: format!(
                        "--file {file:?} must be a relative path inside the resource (no '..', \
                         not absolute)"
                    ),
                });
            }
        }
        let runtime = &self.plugins("cannot run a handler")?.runtime;
        let text = runtime.inspect(
            &handler.module,
            &handler.class,
            &view(&row),
            file,
            &grant(row.location.as_deref()),
        )?;
        Ok(Inspection {
            resource: row
                .name
                .as_ref()
                .map_or_else(|| row.id.to_string(), ToString::to_string),
            handler: format!("{}:{}", handler.module.module(), handler.class),
            file: file.map(str::to_owned),
            text,
        })
    }

    fn require_handler(
        &self,
        ty: &ResolvedType,
        row: &ResourceRow,
        action: &'static str,
    ) -> Result<Handler, RegistryError> {
        self.handler_for(ty)?
            .ok_or_else(|| RegistryError::NoHandler {
                label: row
                    .name
                    .as_ref()
                    .map_or_else(|| row.id.to_string(), ToString::to_string),
                type_name: ty.name.clone(),
                action,
                why: match &ty.handler {
                    Some(h) => format!(
                        " ({} is a built-in handler that is not in this build yet)",
                        h.value
                    ),
                    None => " (its type names none)".to_owned(),
                },
            })
    }
}
