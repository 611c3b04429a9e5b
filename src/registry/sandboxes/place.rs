//! Where a sandbox's files are: the one home of the rule that the paths
//! the host acts on come from the home and the sandbox's id (its area,
//! `<home>/sandboxes/<id>`), its strategy (the working copy in that area)
//! and its resource (the original is the resource's location) — never
//! from the sandbox's row.
//!
//! A row is data anyone who may write the registry can change: on a
//! shared PostgreSQL registry every teammate can, and a row whose `area`
//! named `/home/you/projects` would have `sandbox destroy` remove it. So
//! the row's paths are only compared with the derived ones, and a row
//! that disagrees is refused ([`RegistryError::Sandboxes(SandboxesError::SandboxRowDisagrees)`],
//! naming the field and how to put it back), never acted on. The
//! `sandboxes/` directory itself must be private (`crate::private_dir`):
//! whoever may write it could swap an area for a link elsewhere.

use crate::model::SandboxId;
use crate::registry::RegistryError;
use crate::registry::SandboxesError;
use crate::sandbox::{SandboxPlace, Strategy};
use crate::store::SandboxRow;
use std::path::{Path, PathBuf};

/// `<home>/sandboxes`, made private if missing and refused unless private.
pub(super) fn sandboxes_root(home: &Path) -> Result<PathBuf, RegistryError> {
    let root = home.join("sandboxes");
    let checked = crate::private_dir::check(&root).map_err(RegistryError::home(&root))?;
    checked.map_err(|exposed| {
        RegistryError::Sandboxes(SandboxesError::InsecureSandboxes {
            why: exposed.explain(
                &root,
                "they could swap a sandbox's files for links to yours, which destroy would remove",
            ),
            path: root.clone(),
        })
    })?;
    Ok(root)
}

/// The one place sandbox `id`'s area can be.
pub(super) fn area_of(root: &Path, id: SandboxId) -> PathBuf {
    root.join(id.to_string())
}

/// Where the files of the sandbox of `row` are, derived from `root` (the
/// home's `sandboxes/`), its strategy and its resource's `location`;
/// refused when the row says otherwise.
pub(super) fn place(
    root: &Path,
    row: &SandboxRow,
    location: Option<&str>,
    strategy: &dyn Strategy,
) -> Result<SandboxPlace, RegistryError> {
    let disagrees = |field, stored: &str, expected: &Path, rule| {
        RegistryError::Sandboxes(SandboxesError::SandboxRowDisagrees {
            sandbox: row.id,
            field,
            stored: stored.to_owned(),
            expected: expected.to_string_lossy().into_owned(),
            rule,
        })
    };
    let area = area_of(root, row.id);
    if Path::new(&row.area) != area {
        return Err(disagrees(
            "area",
            &row.area,
            &area,
            "a sandbox's area is always <home>/sandboxes/<id>, here",
        ));
    }
    let original = PathBuf::from(location.unwrap_or_default());
    if Path::new(&row.original) != original {
        return Err(disagrees(
            "original",
            &row.original,
            &original,
            "a sandbox's original is its resource's location",
        ));
    }
    let workdir = strategy.workdir(&original, &area);
    if let Some(stored) = &row.workdir
        && Path::new(stored) != workdir
    {
        return Err(disagrees(
            "workdir",
            stored,
            &workdir,
            "its strategy's working copy is",
        ));
    }
    Ok(SandboxPlace {
        original,
        area,
        workdir,
        base: row.base.clone().unwrap_or_default(),
    })
}
