//! [`Registry::resources_at`](crate::registry::Registry::resources_at): which resources are located at a path or
//! above it (`agents resource which PATH`), nearest first — the one home
//! of the rule that picks among several at one location: the deepest in
//! the DAG first (a checkout's `worktree` before the checkout, both at
//! the checkout's root) — and of the row a location key names
//! ([`row_at`], `show ./src`).

use crate::model::TypeName;
use crate::registry::type_set::TypeSet;
use crate::registry::{RegistryError, ResourcesError};
use crate::store::{Reader, ResourceRow, StoreError};
use std::path::Path;

/// The row a location key names: of those located exactly at `path` (of
/// `type_name` or a subtype, when given), the deepest in the DAG.
pub(crate) fn row_at(
    r: &Reader<'_>,
    path: &Path,
    type_name: Option<&TypeName>,
) -> Result<ResourceRow, RegistryError> {
    let types = match type_name {
        Some(t) => Some(TypeSet::load(r)?.with_subtypes(t)),
        None => None,
    };
    let here: Vec<_> = r
        .resources(types.as_deref())?
        .into_iter()
        .filter(|row| row.location.as_deref().map(Path::new) == Some(path))
        .collect();
    deepest_first(r, here)?.into_iter().next().ok_or_else(|| {
        RegistryError::Resources(ResourcesError::NothingAt {
            path: path.display().to_string(),
            type_name: type_name.cloned(),
        })
    })
}

/// `here` (rows at one location), each before those it lies below.
fn deepest_first(
    r: &Reader<'_>,
    here: Vec<ResourceRow>,
) -> Result<Vec<ResourceRow>, RegistryError> {
    // Deepest first: fewer of the others below which it lies means
    // higher up, so sort by how many reach it, most first.
    let above = |row: &ResourceRow| -> Result<usize, StoreError> {
        here.iter()
            .filter(|other| other.id != row.id)
            .map(|other| r.reaches(other.id, row.id).map(usize::from))
            .sum()
    };
    let counts = here.iter().map(above).collect::<Result<Vec<_>, _>>()?;
    let mut ranked: Vec<_> = counts.into_iter().zip(here).collect();
    ranked.sort_by_key(|(above, row)| (std::cmp::Reverse(*above), row.id));
    Ok(ranked.into_iter().map(|(_, row)| row).collect())
}

/// The rows located at `path` or one of its ancestors, nearest first;
/// at one location, each before those it lies below (what
/// [`Registry::resources_at`] assembles).
pub(in crate::registry) fn rows_at_or_above(
    r: &Reader<'_>,
    path: &Path,
) -> Result<Vec<ResourceRow>, RegistryError> {
    let rows = r.resources(None)?;
    let mut found = Vec::new();
    for place in path.ancestors() {
        let here: Vec<_> = rows
            .iter()
            .filter(|row| row.location.as_deref().map(Path::new) == Some(place))
            .cloned()
            .collect();
        found.extend(deepest_first(r, here)?);
    }
    Ok(found)
}
