//! Running an agent's SQL: the one home of how a sandbox's input is split
//! into statements, run, and answered (see [`StatementOutcome`]).

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection, Statement};

/// Rows of one query kept in a [`StatementOutcome`].
pub const MAX_ROWS: usize = 1000;

/// What one statement of an [`execute`](super::SqliteTransaction::execute) did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum StatementOutcome {
    /// A statement that answers with rows (a query, a pragma, `… RETURNING`).
    Rows(ResultRows),
    /// Any other statement: the rows it inserted, updated or deleted,
    /// those its triggers and foreign keys changed included.
    Changed(u64),
}

/// A statement's answer: column names and at most `MAX_ROWS` rows, each
/// value as text (`None` is SQL NULL, a blob is `x'…'` in hex).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResultRows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
    /// More rows were there and were not kept.
    pub truncated: bool,
    /// Rows the statement changed (`… RETURNING`); 0 for a query.
    pub changed: u64,
}

/// Prepares and runs `sql`'s statements one at a time (so each sees what
/// the ones before it did); `Err` is why one failed.
pub fn run_statements(conn: &Connection, sql: &str) -> Result<Vec<StatementOutcome>, String> {
    let mut batch = Batch::new(conn, sql);
    let mut outcomes = Vec::new();
    while let Some(mut stmt) = batch.next().map_err(|e| e.to_string())? {
        if stmt.parameter_count() > 0 {
            return Err(
                "a statement with parameters (?, :name, …) is refused: a sandbox runs literal \
                 SQL only"
                    .to_owned(),
            );
        }
        outcomes.push(run_one(conn, &mut stmt).map_err(|e| e.to_string())?);
    }
    Ok(outcomes)
}

fn run_one(conn: &Connection, stmt: &mut Statement<'_>) -> rusqlite::Result<StatementOutcome> {
    let before = conn.total_changes();
    if stmt.column_count() == 0 {
        stmt.raw_execute()?;
        return Ok(StatementOutcome::Changed(conn.total_changes() - before));
    }
    let columns: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let width = columns.len();
    // A query stops reading at the bound; a statement that writes
    // (`… RETURNING`) runs to its end whatever it answers.
    let reads_only = stmt.readonly();
    let mut rows = Vec::new();
    let mut truncated = false;
    let mut answer = stmt.raw_query();
    while let Some(row) = answer.next()? {
        if rows.len() == MAX_ROWS {
            truncated = true;
            if reads_only {
                break;
            }
            continue;
        }
        rows.push(
            (0..width)
                .map(|i| row.get_ref(i).map(render))
                .collect::<rusqlite::Result<_>>()?,
        );
    }
    drop(answer);
    Ok(StatementOutcome::Rows(ResultRows {
        columns,
        rows,
        truncated,
        changed: conn.total_changes() - before,
    }))
}

fn render(value: ValueRef<'_>) -> Option<String> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(format!("{f:?}")),
        ValueRef::Text(text) => Some(String::from_utf8_lossy(text).into_owned()),
        ValueRef::Blob(blob) => Some(format!("x'{}'", crate::digest::hex(blob))),
    }
}
