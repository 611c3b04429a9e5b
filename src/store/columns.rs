//! Reading stored rows back into checked model values: the one place where
//! a column's text becomes a [`TypeName`](crate::model::TypeName), an id,
//! an enum or JSON again. Nothing read is trusted blindly: a value that
//! does not parse is a [`StoreError::Corrupt`] naming the table and the
//! row's key, never a panic or a silently wrong value.

use super::StoreError;
use super::db::{Cell, FromCell, RowCells};
use std::fmt::Display;

/// One row being decoded, with the name refusals give it (`resources[01J…]`).
pub(super) struct Columns<'a> {
    row: &'a dyn RowCells,
    what: String,
}

impl<'a> Columns<'a> {
    /// Name the row by `table` and the text of its key column `key`.
    pub(super) fn new(row: &'a dyn RowCells, table: &str, key: usize) -> Self {
        let key = match row.cell(key) {
            Ok(Cell::Text(text)) => text,
            Ok(Cell::Int(n)) => n.to_string(),
            _ => "?".to_owned(),
        };
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

    /// A column as a plain value (text, integers, flags, bytes).
    pub fn get<T: FromCell>(&self, i: usize) -> Result<T, StoreError> {
        T::from_cell(self.row.cell(i)?).map_err(|e| self.corrupt(format!("column {i}: {e}")))
    }

    /// A text column parsed by `parse`.
    pub fn parsed<T, E: Display>(
        &self,
        i: usize,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, StoreError> {
        let text: String = self.get(i)?;
        parse(&text).map_err(|e| self.corrupt(format!("column {i}: {e}")))
    }

    /// A nullable text column parsed by `parse`.
    pub fn parsed_opt<T, E: Display>(
        &self,
        i: usize,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<Option<T>, StoreError> {
        let text: Option<String> = self.get(i)?;
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
