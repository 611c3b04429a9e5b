//! Migration 0010's data step: each named row's confusable skeleton
//! (`model::ResourceName::skeleton`), which the new `name_skeleton`
//! column indexes, filled in for the rows stored before it.

use super::StoreError;
use super::db::{Tx, args};
use crate::model::ResourceName;

/// Fill `name_skeleton`, inside the migration's transaction.
pub(super) fn migrate(tx: Tx<'_>) -> Result<(), StoreError> {
    let rows: Vec<(String, String)> = tx.rows(
        "SELECT resource_id, namespaced_name FROM resources WHERE namespaced_name IS NOT NULL",
        args![],
        "resources",
        0,
        |c| Ok((c.get(0)?, c.get(1)?)),
    )?;
    for (id, name) in rows {
        // A stored name that no longer parses keeps no skeleton: it can
        // look like no chosen one.
        let Ok(name) = ResourceName::parse(&name) else {
            continue;
        };
        tx.execute(
            "UPDATE resources SET name_skeleton = ?1 WHERE resource_id = ?2",
            args![name.skeleton(), id],
        )?;
    }
    Ok(())
}
