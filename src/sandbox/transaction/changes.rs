//! What a sandbox's transaction changed: the one home of its diff, row
//! operations counted per table by SQLite's update hook and schema objects
//! compared with `sqlite_schema` as it was at open.

use std::collections::BTreeMap;

use rusqlite::Connection;
use rusqlite::hooks::Action;

/// Row operations on one table since the sandbox opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RowCounts {
    pub inserted: u64,
    pub updated: u64,
    pub deleted: u64,
}

/// How a schema object differs from the database as it was at open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SchemaEdit {
    Created,
    Dropped,
    Altered,
}

/// One schema object (`table`, `index`, `view`, `trigger`) that changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SchemaChange {
    pub edit: SchemaEdit,
    pub kind: String,
    pub name: String,
}

/// What a sandbox's transaction changed so far: its diff.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TxnChanges {
    /// Per table of the database, by name.
    pub rows: BTreeMap<String, RowCounts>,
    /// Sorted by kind, then name.
    pub schema: Vec<SchemaChange>,
}

impl TxnChanges {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty() && self.schema.is_empty()
    }
}

/// Row operations per table.
pub type Counts = BTreeMap<String, RowCounts>;
/// `(type, name)` → `sql` of every schema object but automatic indexes.
pub type Schema = BTreeMap<(String, String), Option<String>>;

/// The schema objects of the main database.
pub fn read_schema(conn: &Connection) -> rusqlite::Result<Schema> {
    let mut stmt = conn.prepare(
        "SELECT type, name, sql FROM main.sqlite_schema WHERE name NOT LIKE 'sqlite\\_autoindex\\_%' ESCAPE '\\'",
    )?;
    let rows = stmt.query_map([], |row| Ok(((row.get(0)?, row.get(1)?), row.get(2)?)))?;
    rows.collect()
}

/// How `now` differs from `base`, sorted by kind, then name.
pub fn schema_diff(base: &Schema, now: &Schema) -> Vec<SchemaChange> {
    let mut schema = Vec::new();
    for (key, sql) in now {
        match base.get(key) {
            None => schema.push((SchemaEdit::Created, key)),
            Some(old) if old != sql => schema.push((SchemaEdit::Altered, key)),
            Some(_) => {}
        }
    }
    for key in base.keys().filter(|key| !now.contains_key(*key)) {
        schema.push((SchemaEdit::Dropped, key));
    }
    let mut schema: Vec<SchemaChange> = schema
        .into_iter()
        .map(|(edit, (kind, name))| SchemaChange {
            edit,
            kind: kind.clone(),
            name: name.clone(),
        })
        .collect();
    schema.sort_by(|a, b| (&a.kind, &a.name, a.edit).cmp(&(&b.kind, &b.name, b.edit)));
    schema
}

/// Counts one row operation the update hook reported.
pub fn count(counts: &mut Counts, action: Action, table: &str) {
    let entry = counts.entry(table.to_owned()).or_default();
    match action {
        Action::SQLITE_INSERT => entry.inserted += 1,
        Action::SQLITE_UPDATE => entry.updated += 1,
        Action::SQLITE_DELETE => entry.deleted += 1,
        _ => {}
    }
}
