//! Reading stored rows back into checked model values: the one place where
//! a column's text becomes a [`TypeName`](crate::model::TypeName), an id,
//! an enum or JSON again. Nothing read is trusted blindly: a value that
//! does not parse is a [`StoreError::Corrupt`] naming the table and the
//! row's key, never a panic or a silently wrong value.

use super::{Cell, FromCell, RowCells};
use crate::model::{Actor, Face};
use crate::store::StoreError;
use std::fmt::Display;

/// One row being decoded, with the name refusals give it (`resources[01J…]`).
pub(in crate::store) struct Columns<'a> {
    row: &'a dyn RowCells,
    what: String,
}

impl<'a> Columns<'a> {
    /// Name the row by `table` and the text of its key column `key`.
    pub(in crate::store) fn new(row: &'a dyn RowCells, table: &str, key: usize) -> Self {
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

    /// The actor stored in columns `at` (face) and `at + 1` (name): who
    /// registered a resource or made a link, and through which face.
    pub fn actor(&self, at: usize) -> Result<Option<Actor>, StoreError> {
        let Some(face) =
            self.parsed_opt(at, |f| Face::parse(f).ok_or(format!("unknown face {f:?}")))?
        else {
            return Ok(None);
        };
        let name: Option<String> = self.get(at + 1)?;
        Ok(Some(Actor::new(face, name.unwrap_or_default())))
    }
}
