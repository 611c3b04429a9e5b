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
use postgres::types::ToSql;
use std::cell::RefCell;
use std::collections::HashMap;

mod values;
pub(super) use values::{Arg, Cell, FromCell, RowCells, args, id_list};

pub(super) mod columns;
use columns::Columns;

/// Which SQL a statement must be spelled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Sqlite,
    Postgres,
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
