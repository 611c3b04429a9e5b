//! `machines` and `resources.machine_id`: which machine's filesystem a
//! resource's location is a path on (the rules are
//! `registry::machines`').

use super::db::args;
use super::{Reader, StoreError, Writer};
use crate::model::ResourceId;

/// A machine as the registry knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineRow {
    pub id: String,
    /// The host name it last reported (`None`: it never did).
    pub hostname: Option<String>,
}

impl Reader<'_> {
    /// The machine `id`'s location belongs to (`None`: any machine — no
    /// location, or registered where machines are not told apart).
    pub fn resource_machine(&self, id: ResourceId) -> Result<Option<MachineRow>, StoreError> {
        Ok(self
            .tx
            .row(
                "SELECT r.machine_id, m.hostname FROM resources r
                   LEFT JOIN machines m ON m.machine_id = r.machine_id
                  WHERE r.resource_id = ?1",
                args![id.to_string()],
                "resources",
                usize::MAX,
                |c| {
                    Ok(c.get::<Option<String>>(0)?.map(|id| MachineRow {
                        id,
                        hostname: c.get(1).ok().flatten(),
                    }))
                },
            )?
            .flatten())
    }

    /// The host name `machine` last reported.
    pub fn machine_hostname(&self, machine: &str) -> Result<Option<String>, StoreError> {
        self.tx.row(
            "SELECT hostname FROM machines WHERE machine_id = ?1",
            args![machine],
            "machines",
            usize::MAX,
            |c| c.get(0),
        )
    }
}

impl Writer<'_> {
    /// Record (or update) a machine's host name.
    pub fn put_machine(&self, machine: &str, hostname: &str, now: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO machines (machine_id, hostname, seen_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (machine_id) DO UPDATE SET hostname = excluded.hostname,
                 seen_at = excluded.seen_at",
            args![machine, hostname, now],
        )?;
        Ok(())
    }
}
