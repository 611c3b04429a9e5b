//! `devcontainer_trust` rows: who trusted which devcontainer's
//! configuration, bound to which digest (the rules are
//! `registry::trust`'s).

use super::columns::Columns;
use super::db::args;
use super::{Reader, StoreError, Writer};
use crate::model::ResourceId;

/// One person's trust in one devcontainer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustRow {
    pub resource: ResourceId,
    /// The machine it was decided on (`""`: machines are not told apart).
    pub machine_id: String,
    pub uid: u32,
    pub user_name: String,
    pub digest: String,
    /// JSON: the files the digest covers.
    pub files: String,
    /// JSON: what the person was shown.
    pub summary: String,
    pub trusted_at: String,
}

const COLUMNS: &str = "resource_id, machine_id, uid, user_name, digest, files, summary, trusted_at";

fn decode(c: &Columns<'_>) -> Result<TrustRow, StoreError> {
    let uid: i64 = c.get(2)?;
    Ok(TrustRow {
        resource: c.parsed(0, ResourceId::parse)?,
        machine_id: c.get(1)?,
        uid: u32::try_from(uid).map_err(|e| StoreError::Corrupt {
            what: "devcontainer_trust".into(),
            reason: format!("uid {uid}: {e}"),
        })?,
        user_name: c.get(3)?,
        digest: c.get(4)?,
        files: c.get(5)?,
        summary: c.get(6)?,
        trusted_at: c.get(7)?,
    })
}

impl Reader<'_> {
    /// The trust `uid` on `machine` gave `resource`, if any.
    pub fn trust(
        &self,
        resource: ResourceId,
        machine: &str,
        uid: u32,
    ) -> Result<Option<TrustRow>, StoreError> {
        self.tx.row(
            &format!(
                "SELECT {COLUMNS} FROM devcontainer_trust
                  WHERE resource_id = ?1 AND machine_id = ?2 AND uid = ?3"
            ),
            args![resource.to_string(), machine, uid],
            "devcontainer_trust",
            0,
            decode,
        )
    }
}

impl Writer<'_> {
    /// Record (or replace) a person's trust.
    pub fn put_trust(&self, row: &TrustRow) -> Result<(), StoreError> {
        self.tx.execute(
            &format!(
                "INSERT INTO devcontainer_trust ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (resource_id, machine_id, uid) DO UPDATE SET
                     user_name = excluded.user_name, digest = excluded.digest,
                     files = excluded.files, summary = excluded.summary,
                     trusted_at = excluded.trusted_at"
            ),
            args![
                row.resource.to_string(),
                &row.machine_id,
                row.uid,
                &row.user_name,
                &row.digest,
                &row.files,
                &row.summary,
                &row.trusted_at
            ],
        )?;
        Ok(())
    }

    /// Forget a person's trust; answers whether there was one.
    pub fn delete_trust(
        &self,
        resource: ResourceId,
        machine: &str,
        uid: u32,
    ) -> Result<bool, StoreError> {
        let n = self.tx.execute(
            "DELETE FROM devcontainer_trust
              WHERE resource_id = ?1 AND machine_id = ?2 AND uid = ?3",
            args![resource.to_string(), machine, uid],
        )?;
        Ok(n > 0)
    }
}
