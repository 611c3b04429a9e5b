//! The values statements take and give on both backends: [`Arg`]s bound
//! (and how each driver receives them), [`Cell`]s read back (and how each
//! driver's row gives them), and the conversions to and from them — a
//! cell of the wrong kind is a [`CellMismatch`].

use crate::store::StoreError;
use postgres::types::{IsNull, ToSql, Type};
use std::error::Error;

/// A value bound to a statement.
#[derive(Debug, Clone)]
pub(in crate::store) enum Arg<'a> {
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
pub(in crate::store) use args;

/// A value read back.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::store) enum Cell {
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

/// Why a [`Cell`] is not the value a column was read as: the store
/// reports it as a corrupt row, naming the column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(in crate::store) enum CellMismatch {
    /// The cell holds another kind of value.
    #[error("expected {expected}, found {found}")]
    Kind {
        expected: &'static str,
        found: &'static str,
    },
    /// A flag column holds an integer other than 0 and 1.
    #[error("expected 0 or 1, found {0}")]
    NotAFlag(i64),
}

fn mismatch<T>(expected: &'static str, found: &Cell) -> Result<T, CellMismatch> {
    Err(CellMismatch::Kind {
        expected,
        found: found.kind(),
    })
}

/// A Rust value a [`Cell`] converts to (the store's column types).
pub(in crate::store) trait FromCell: Sized {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch>;
}

impl FromCell for Cell {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        Ok(cell)
    }
}
impl FromCell for String {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        match cell {
            Cell::Text(t) => Ok(t),
            other => mismatch("text", &other),
        }
    }
}
impl FromCell for i64 {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        match cell {
            Cell::Int(n) => Ok(n),
            other => mismatch("an integer", &other),
        }
    }
}
impl FromCell for bool {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        match cell {
            Cell::Int(0) => Ok(false),
            Cell::Int(1) => Ok(true),
            Cell::Int(n) => Err(CellMismatch::NotAFlag(n)),
            other => mismatch("a flag", &other),
        }
    }
}
impl FromCell for Vec<u8> {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        match cell {
            Cell::Bytes(b) => Ok(b),
            other => mismatch("bytes", &other),
        }
    }
}
impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell) -> Result<Self, CellMismatch> {
        match cell {
            Cell::Null => Ok(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// One row being read: its cells by position.
pub(in crate::store) trait RowCells {
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
mod tests;

/// `ids` as a JSON array of strings, for `json_each` (one bound value
/// however many ids: no statement per id, no limit on parameters).
pub(in crate::store) fn id_list(ids: &[crate::model::ResourceId]) -> String {
    let mut text = String::with_capacity(ids.len() * 29 + 2);
    text.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push('"');
        text.push_str(&id.to_string());
        text.push('"');
    }
    text.push(']');
    text
}
