//! `agents resource inspect`: the handler's description of a resource, or
//! of one file in it. The host refuses a `--file` that could leave the
//! resource before any handler runs.

use crate::model::ResourceKey;
use crate::registry::ResourcesError;
use crate::registry::lookup::find_row;
use crate::registry::{Registry, RegistryError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// What `agents resource inspect` shows: the handler's text for people,
/// and the same facts as fields (what `-o json` is for; empty when the
/// handler gives text only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inspection {
    pub resource: String,
    pub handler: String,
    pub file: Option<String>,
    pub fields: BTreeMap<String, String>,
    pub text: String,
}

/// The work of [`Registry::inspect`].
pub(crate) fn inspect(
    reg: &Registry,
    key: &ResourceKey,
    file: Option<&str>,
) -> Result<Inspection, RegistryError> {
    let (types, row) = reg
        .store
        .read(|r| Ok::<_, RegistryError>((reg.types.get(r)?, find_row(r, key)?)))?;
    if let Some(file) = file {
        let inside = !file.is_empty()
            && Path::new(file)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            return Err(RegistryError::Resources(
                ResourcesError::InspectPathRefused {
                    resource: row.label(),
                    file: file.to_owned(),
                },
            ));
        }
    }
    reg.check_location_in_roots(row.location.as_deref(), "inspect")?;
    if let (Some(file), Some(location)) = (file, &row.location) {
        reg.check_inspected_file(Path::new(location), file)?;
    }
    let ty = types.resolve(&row.type_name)?;
    let handler = reg.require_handler(&ty, &row, "inspect")?;
    let inspected = reg.call_inspect(&handler, &row, file)?;
    Ok(Inspection {
        resource: row.label(),
        handler: handler.reference.to_string(),
        file: file.map(str::to_owned),
        fields: inspected.fields.into_iter().collect(),
        text: inspected.text,
    })
}
