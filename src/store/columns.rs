//! Reading stored rows back into checked model values: the one place where
//! a column's text becomes a [`TypeName`](crate::model::TypeName), an id,
//! an enum or JSON again. Nothing read is trusted blindly: a value that
//! does not parse is a [`StoreError::Corrupt`] naming the table and the
//! row's key, never a panic or a silently wrong value.

use super::StoreError;
use rusqlite::types::FromSql;
use rusqlite::{Params, Row, Statement};
use std::fmt::Display;

/// One row being decoded, with the name refusals give it (`resources[01J…]`).
pub(super) struct Columns<'a, 'r> {
    row: &'a Row<'r>,
    what: String,
}

impl<'a, 'r> Columns<'a, 'r> {
    /// Name the row by `table` and the text of its key column `key`.
    fn new(row: &'a Row<'r>, table: &str, key: usize) -> Self {
        let key: String = row.get(key).unwrap_or_else(|_| "?".to_owned());
        Self {
            row,
            what: format!("{table}[{key}]"),
        }
    }

    fn corrupt(&self, reason: impl Display) -> StoreError {
        StoreError::Corrupt {
            what: self.what.clone(),
            reason: reason.to_string(),
        }
    }

    /// A column SQLite can convert itself (text, integers, booleans).
    pub fn get<T: FromSql>(&self, i: usize) -> Result<T, StoreError> {
        Ok(self.row.get(i)?)
    }

    /// A text column parsed by `parse`.
    pub fn parsed<T, E: Display>(
        &self,
        i: usize,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, StoreError> {
        let text: String = self.row.get(i)?;
        parse(&text).map_err(|e| self.corrupt(format!("column {i}: {e}")))
    }

    /// A nullable text column parsed by `parse`.
    pub fn parsed_opt<T, E: Display>(
        &self,
        i: usize,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<Option<T>, StoreError> {
        let text: Option<String> = self.row.get(i)?;
        text.map(|t| parse(&t).map_err(|e| self.corrupt(format!("column {i}: {e}"))))
            .transpose()
    }

    /// A `*_json` column.
    pub fn json<T: serde::de::DeserializeOwned>(&self, i: usize) -> Result<T, StoreError> {
        self.parsed(i, |text| serde_json::from_str(text))
    }

    /// A nullable `*_json` column.
    pub fn json_opt<T: serde::de::DeserializeOwned>(
        &self,
        i: usize,
    ) -> Result<Option<T>, StoreError> {
        self.parsed_opt(i, |text| serde_json::from_str(text))
    }
}

/// Run `stmt` and decode every row with `decode`; rows are named in
/// refusals by `table` and the text of column `key`.
pub(super) fn decode_all<T>(
    stmt: &mut Statement<'_>,
    params: impl Params,
    table: &str,
    key: usize,
    decode: impl Fn(&Columns<'_, '_>) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut rows = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(decode(&Columns::new(row, table, key))?);
    }
    Ok(out)
}

/// Like [`decode_all`] for a query that matches at most one row.
pub(super) fn decode_one<T>(
    stmt: &mut Statement<'_>,
    params: impl Params,
    table: &str,
    key: usize,
    decode: impl Fn(&Columns<'_, '_>) -> Result<T, StoreError>,
) -> Result<Option<T>, StoreError> {
    let mut rows = stmt.query(params)?;
    match rows.next()? {
        Some(row) => decode(&Columns::new(row, table, key)).map(Some),
        None => Ok(None),
    }
}
