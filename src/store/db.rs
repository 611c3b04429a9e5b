//! One SQL surface over both backends: the store's statements are written
//! once (SQLite's `?N` placeholders), bound with [`Arg`]s and read back
//! as [`Cell`]s, and [`Tx`] runs them on whichever connection the store
//! opened. On PostgreSQL a statement's `?N` become `$N` and it is
//! prepared once per connection and cached, as SQLite's `prepare_cached`
//! does.
//!
//! Where the dialects differ (a JSON array of ids as a set, a JSON
//! property as text) the statement asks [`Tx::dialect`] and the two
//! spellings sit side by side in the one function that needs them.

use super::StoreError;
use super::columns::Columns;
use postgres::types::{IsNull, ToSql, Type};
use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;

/// Which SQL a statement must be spelled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
}

/// A value bound to a statement.
#[derive(Debug, Clone)]
pub(super) enum Arg<'a> {
    Null,
    Int(i64),
    Text(std::borrow::Cow<'a, str>),
    Bytes(&'a [u8]),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(v.into())
    }
}
impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(v.as_str().into())
    }
}
impl From<String> for Arg<'_> {
    fn from(v: String) -> Self {
        Arg::Text(v.into())
    }
}
impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}
impl From<u32> for Arg<'_> {
    fn from(v: u32) -> Self {
        Arg::Int(v.into())
    }
}
impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Int(v.into())
    }
}
impl<'a> From<&'a [u8]> for Arg<'a> {
    fn from(v: &'a [u8]) -> Self {
        Arg::Bytes(v)
    }
}
impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        v.as_deref().map_or(Arg::Null, Arg::from)
    }
}
impl<'a, T: Into<Arg<'a>>> From<Option<T>> for Arg<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Arg::Null, Into::into)
    }
}

/// `args![a, b, …]`: the values of a statement's `?1`, `?2`, ….
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::db::Arg::from($value)),*][..]
    };
}
pub(super) use args;

/// A value read back.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Cell {
    fn kind(&self) -> &'static str {
        match self {
            Cell::Null => "NULL",
            Cell::Int(_) => "an integer",
            Cell::Real(_) => "a real",
            Cell::Text(_) => "text",
            Cell::Bytes(_) => "bytes",
        }
    }
}

/// A Rust value a [`Cell`] converts to (the store's column types).
pub(super) trait FromCell: Sized {
    fn from_cell(cell: Cell) -> Result<Self, String>;
}

impl FromCell for Cell {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        Ok(cell)
    }
}
impl FromCell for String {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        match cell {
            Cell::Text(t) => Ok(t),
            other => Err(format!("expected text, found {}", other.kind())),
        }
    }
}
impl FromCell for i64 {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        match cell {
            Cell::Int(n) => Ok(n),
            other => Err(format!("expected an integer, found {}", other.kind())),
        }
    }
}
impl FromCell for bool {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        match cell {
            Cell::Int(0) => Ok(false),
            Cell::Int(1) => Ok(true),
            Cell::Int(n) => Err(format!("expected 0 or 1, found {n}")),
            other => Err(format!("expected a flag, found {}", other.kind())),
        }
    }
}
impl FromCell for Vec<u8> {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        match cell {
            Cell::Bytes(b) => Ok(b),
            other => Err(format!("expected bytes, found {}", other.kind())),
        }
    }
}
impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> Result<Self, String> {
        match cell {
            Cell::Null => Ok(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// One row being read: its cells by position.
pub(super) trait RowCells {
    fn cell(&self, i: usize) -> Result<Cell, StoreError>;
}

impl RowCells for rusqlite::Row<'_> {
    fn cell(&self, i: usize) -> Result<Cell, StoreError> {
        use rusqlite::types::ValueRef;
        Ok(match self.get_ref(i)? {
            ValueRef::Null => Cell::Null,
            ValueRef::Integer(n) => Cell::Int(n),
            ValueRef::Real(x) => Cell::Real(x),
            ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
        })
    }
}

impl RowCells for postgres::Row {
    fn cell(&self, i: usize) -> Result<Cell, StoreError> {
        let column = self.columns().get(i).ok_or_else(|| StoreError::Corrupt {
            what: "a statement".into(),
            reason: format!("no column {i}"),
        })?;
        let ty = column.type_().clone();
        let cell = if ty == Type::INT8 {
            self.try_get::<_, Option<i64>>(i)?.map(Cell::Int)
        } else if ty == Type::INT4 {
            self.try_get::<_, Option<i32>>(i)?
                .map(|n| Cell::Int(n.into()))
        } else if ty == Type::INT2 {
            self.try_get::<_, Option<i16>>(i)?
                .map(|n| Cell::Int(n.into()))
        } else if ty == Type::BOOL {
            self.try_get::<_, Option<bool>>(i)?
                .map(|b| Cell::Int(b.into()))
        } else if ty == Type::FLOAT8 {
            self.try_get::<_, Option<f64>>(i)?.map(Cell::Real)
        } else if ty == Type::BYTEA {
            self.try_get::<_, Option<Vec<u8>>>(i)?.map(Cell::Bytes)
        } else {
            self.try_get::<_, Option<String>>(i)?.map(Cell::Text)
        };
        Ok(cell.unwrap_or(Cell::Null))
    }
}

impl ToSql for Arg<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(n) if *ty == Type::INT8 => n.to_sql(ty, out),
            Arg::Int(n) if *ty == Type::INT4 => i32::try_from(*n)?.to_sql(ty, out),
            Arg::Int(n) if *ty == Type::INT2 => i16::try_from(*n)?.to_sql(ty, out),
            Arg::Int(n) if *ty == Type::BOOL => (*n != 0).to_sql(ty, out),
            Arg::Int(n) => n.to_string().to_sql(ty, out),
            Arg::Text(t) => t.as_ref().to_sql(ty, out),
            Arg::Bytes(b) => b.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [
            Type::INT8,
            Type::INT4,
            Type::INT2,
            Type::BOOL,
            Type::TEXT,
            Type::VARCHAR,
            Type::BPCHAR,
            Type::NAME,
            Type::UNKNOWN,
            Type::JSON,
            Type::JSONB,
            Type::BYTEA,
        ]
        .contains(ty)
    }

    postgres::types::to_sql_checked!();
}

/// A server error as people read it: the server's own message, detail and
/// hint, not the driver's debug form.
pub(super) fn postgres_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut text = format!("{} ({})", db.message(), db.code().code());
            if let Some(detail) = db.detail() {
                text.push_str(&format!("; {detail}"));
            }
            if let Some(hint) = db.hint() {
                text.push_str(&format!("; hint: {hint}"));
            }
            text
        }
        None => e.to_string(),
    }
}

/// A PostgreSQL connection and the statements prepared on it.
pub(super) struct PgConn {
    pub(super) client: RefCell<postgres::Client>,
    statements: RefCell<HashMap<String, postgres::Statement>>,
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConn").finish_non_exhaustive()
    }
}

impl PgConn {
    pub(super) fn new(client: postgres::Client) -> Self {
        Self {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
        }
    }

    fn statement(&self, sql: &str) -> Result<postgres::Statement, StoreError> {
        if let Some(stmt) = self.statements.borrow().get(sql) {
            return Ok(stmt.clone());
        }
        let stmt = self.client.borrow_mut().prepare(&numbered(sql))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_owned(), stmt.clone());
        Ok(stmt)
    }

    pub(super) fn batch(&self, sql: &str) -> Result<(), StoreError> {
        Ok(self.client.borrow_mut().batch_execute(sql)?)
    }
}

/// SQLite's `?N` (and bare `?`) as PostgreSQL's `$N`. Statements hold no
/// `?` inside literals, so the rewrite is positional and exact.
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut next = 1;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '?' {
            out.push(c);
            continue;
        }
        out.push('$');
        if chars.peek().is_some_and(char::is_ascii_digit) {
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                out.push(d);
            }
        } else {
            out.push_str(&next.to_string());
            next += 1;
        }
    }
    out
}

/// A connection inside a transaction the store opened.
#[derive(Debug, Clone, Copy)]
pub(super) enum Tx<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(&'c PgConn),
}

impl<'c> Tx<'c> {
    pub(super) fn dialect(self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Run a statement; how many rows it changed.
    pub(super) fn execute(self, sql: &str, args: &[Arg<'_>]) -> Result<u64, StoreError> {
        match self {
            Tx::Sqlite(conn) => {
                let n = conn
                    .prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(args))?;
                Ok(n as u64)
            }
            Tx::Postgres(pg) => {
                let stmt = pg.statement(sql)?;
                Ok(pg.client.borrow_mut().execute(&stmt, &pg_params(args))?)
            }
        }
    }

    /// Run a query and decode every row; rows are named in refusals by
    /// `table` and the text of column `key`.
    pub(super) fn rows<T>(
        self,
        sql: &str,
        args: &[Arg<'_>],
        table: &str,
        key: usize,
        decode: impl Fn(&Columns<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::new();
        match self {
            Tx::Sqlite(conn) => {
                let mut stmt = conn.prepare_cached(sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
                while let Some(row) = rows.next()? {
                    out.push(decode(&Columns::new(row, table, key))?);
                }
            }
            Tx::Postgres(pg) => {
                let stmt = pg.statement(sql)?;
                let rows = pg.client.borrow_mut().query(&stmt, &pg_params(args))?;
                out.reserve(rows.len());
                for row in &rows {
                    out.push(decode(&Columns::new(row, table, key))?);
                }
            }
        }
        Ok(out)
    }

    /// Like [`Tx::rows`] for a query that matches at most one row.
    pub(super) fn row<T>(
        self,
        sql: &str,
        args: &[Arg<'_>],
        table: &str,
        key: usize,
        decode: impl Fn(&Columns<'_>) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.rows(sql, args, table, key, decode)?.into_iter().next())
    }

    /// The one value a query answers (`SELECT count(*) …`).
    pub(super) fn value<T: FromCell>(self, sql: &str, args: &[Arg<'_>]) -> Result<T, StoreError> {
        self.row(sql, args, "a query", usize::MAX, |c| c.get(0))?
            .ok_or_else(|| StoreError::Corrupt {
                what: "a query".into(),
                reason: "it answered no row".into(),
            })
    }

    /// Run several statements without arguments.
    pub(super) fn batch(self, sql: &str) -> Result<(), StoreError> {
        match self {
            Tx::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Tx::Postgres(pg) => pg.batch(sql),
        }
    }

    /// Argument `n` as text that compares like the id and name columns
    /// (bytewise), where its type cannot be inferred (a CTE's seed).
    pub(super) fn text_arg(self, n: usize) -> String {
        match self.dialect() {
            Dialect::Sqlite => format!("CAST(?{n} AS TEXT)"),
            Dialect::Postgres => format!("CAST(?{n} AS TEXT) COLLATE \"C\""),
        }
    }

    /// The set of values in JSON array argument `n`, as a subquery body
    /// (`… IN (<this>)`): one bound value however many ids, no limit on
    /// parameters.
    pub(super) fn json_set(self, n: usize) -> String {
        match self.dialect() {
            Dialect::Sqlite => format!("SELECT value FROM json_each(?{n})"),
            Dialect::Postgres => {
                // Compared and ordered bytewise, like the columns (see
                // migrations/postgres/0001_registry.sql).
                format!(
                    "SELECT value COLLATE \"C\" FROM json_array_elements_text(CAST(?{n} AS json)) \
                     AS j(value)"
                )
            }
        }
    }
}

/// `args` as the PostgreSQL client takes them.
fn pg_params<'a>(args: &'a [Arg<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter().map(|a| a as &(dyn ToSql + Sync)).collect()
}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::ValueRef;
        Ok(rusqlite::types::ToSqlOutput::Borrowed(match self {
            Arg::Null => ValueRef::Null,
            Arg::Int(n) => ValueRef::Integer(*n),
            Arg::Text(t) => ValueRef::Text(t.as_bytes()),
            Arg::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn placeholders_are_renumbered_for_postgres() {
        assert_eq!(numbered("a = ?1 AND b = ?12"), "a = $1 AND b = $12");
        assert_eq!(numbered("IN (?, ?, ?)"), "IN ($1, $2, $3)");
        assert_eq!(numbered("no placeholders"), "no placeholders");
    }
}
