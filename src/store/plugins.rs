//! `plugins` rows: the plugin store's index (the files are `plugin`'s).

use super::{Reader, StoreError, Writer, from_json, to_json};
use rusqlite::{OptionalExtension, Row, params};

/// One added plugin module.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PluginRow {
    pub module: String,
    pub version: String,
    pub sha256: String,
    /// The classes it exports: (name, description).
    pub classes: Vec<(String, String)>,
    pub size_bytes: i64,
    pub source: String,
    pub added_at: String,
}

const COLUMNS: &str = "module, version, sha256, classes_json, size_bytes, source, added_at";

fn raw(row: &Row<'_>) -> rusqlite::Result<(PluginRow, String)> {
    Ok((
        PluginRow {
            module: row.get(0)?,
            version: row.get(1)?,
            sha256: row.get(2)?,
            classes: Vec::new(),
            size_bytes: row.get(4)?,
            source: row.get(5)?,
            added_at: row.get(6)?,
        },
        row.get(3)?,
    ))
}

fn decode((mut row, classes): (PluginRow, String)) -> Result<PluginRow, StoreError> {
    row.classes = from_json(&classes, || format!("plugins[{}]", row.module))?;
    Ok(row)
}

impl Reader<'_> {
    pub fn plugins(&self) -> Result<Vec<PluginRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM plugins ORDER BY module"))?;
        let rows = stmt.query_map([], raw)?;
        rows.map(|r| decode(r?)).collect()
    }

    pub fn plugin(&self, module: &str) -> Result<Option<PluginRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM plugins WHERE module = ?1"))?;
        stmt.query_row([module], raw)
            .optional()?
            .map(decode)
            .transpose()
    }
}

impl Writer<'_> {
    /// Insert the plugin, or replace the row of the same module.
    pub fn upsert_plugin(&self, row: &PluginRow) -> Result<(), StoreError> {
        self.conn().execute(
            &format!(
                "INSERT OR REPLACE INTO plugins ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            ),
            params![
                row.module,
                row.version,
                row.sha256,
                to_json(&row.classes),
                row.size_bytes,
                row.source,
                row.added_at
            ],
        )?;
        Ok(())
    }

    pub fn delete_plugin(&self, module: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn()
            .execute("DELETE FROM plugins WHERE module = ?1", [module])?
            == 1)
    }
}
