//! Which statements a `transaction_rollback` sandbox runs: the one home of
//! the rule that nothing an agent types may end or escape the sandbox's
//! transaction.
//!
//! The rule is decided on SQLite's own parse of each statement (its
//! authorizer, called while a statement is prepared, so a refused
//! statement never runs), not on the statement's text: comments, case,
//! quoting and odd spellings (`END TRANSACTION` for `COMMIT`) all reach
//! the same callback.
//! Refused:
//!
//! * transaction control (`BEGIN`, `COMMIT`/`END`, `ROLLBACK`) and
//!   savepoints (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`): the sandbox is one
//!   transaction whose savepoints are its checkpoints, so these go through
//!   `checkpoint`, `rollback`, `apply` and `discard`;
//! * `ATTACH` and `DETACH`: another database file would be changed (or
//!   created) outside the sandbox's transaction;
//! * every `PRAGMA` but a short list of questions ([`QUERY_PRAGMAS`] with
//!   any argument, [`READ_PRAGMAS`] without a value): most pragmas change
//!   the connection or the file outside the transaction (`journal_mode`,
//!   `locking_mode`, `wal_checkpoint`, `writable_schema`, …). A pragma's
//!   table-valued function (`SELECT * FROM pragma_optimize`) prepares the
//!   pragma itself, so it meets the same rule.
//!
//! `VACUUM` needs no rule: SQLite itself refuses it inside a transaction.
//! The authorizer is the first guard; the second is the sandbox checking
//! after every input that the transaction is still open (see
//! `transaction.rs`).
//!
//! One more answer is not a refusal: a `DELETE` is authorized with
//! `SQLITE_IGNORE`, which SQLite documents as "the DELETE proceeds but
//! the truncate optimization is disabled", so every deleted row of a
//! `DELETE FROM t` reaches the update hook that counts the sandbox's
//! changes. SQLite asks the same `SQLITE_DELETE` question while coding a
//! `DROP` (the schema table, and for `DROP TABLE`/`VIEW` the dropped
//! object right after the drop's own question) and there reads any
//! answer but OK as "skip the drop": so those two get OK. The tests drop
//! every kind of object to hold SQLite to that order.

use rusqlite::hooks::{AuthAction, Authorization, TransactionOperation};

/// Pragmas that only answer a question whatever their argument (a table or
/// index name, a row limit).
pub const QUERY_PRAGMAS: &[&str] = &[
    "collation_list",
    "compile_options",
    "database_list",
    "foreign_key_check",
    "foreign_key_list",
    "function_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "integrity_check",
    "module_list",
    "pragma_list",
    "quick_check",
    "table_info",
    "table_list",
    "table_xinfo",
];

/// Pragmas that answer a question when given no value (and change a
/// setting when given one, which is refused).
pub const READ_PRAGMAS: &[&str] = &[
    "application_id",
    "auto_vacuum",
    "data_version",
    "encoding",
    "foreign_keys",
    "freelist_count",
    "journal_mode",
    "page_count",
    "page_size",
    "schema_version",
    "user_version",
];

const USE_CHECKPOINTS: &str = "a sandbox is one transaction and its savepoints are its checkpoints: \
     use checkpoint and rollback to mark and return to a point, apply to commit, discard to drop every change";

/// The schema tables, which SQLite's `DROP` code asks to delete from.
const SCHEMA_TABLES: &[&str] = &[
    "sqlite_master",
    "sqlite_schema",
    "sqlite_temp_master",
    "sqlite_temp_schema",
];

/// The answers for one input's statements (a guard remembers the previous
/// question, see the module documentation).
#[derive(Debug, Default)]
pub struct Guard {
    /// The previous question was a `DROP TABLE` or `DROP VIEW`.
    dropping: bool,
}

impl Guard {
    /// SQLite's question "may this statement do `action`?", answered: `Err`
    /// is a refusal, saying why and what to do instead.
    pub fn authorize(&mut self, action: AuthAction<'_>) -> Result<Authorization, String> {
        let dropping = std::mem::take(&mut self.dropping);
        match action {
            AuthAction::DropTable { .. }
            | AuthAction::DropTempTable { .. }
            | AuthAction::DropView { .. }
            | AuthAction::DropTempView { .. }
            | AuthAction::DropVtable { .. } => {
                self.dropping = true;
                Ok(Authorization::Allow)
            }
            AuthAction::Delete { table_name }
                if dropping || SCHEMA_TABLES.contains(&table_name) =>
            {
                Ok(Authorization::Allow)
            }
            AuthAction::Delete { .. } => Ok(Authorization::Ignore),
            action => refuse(action),
        }
    }
}

/// The refusals (see the module documentation); anything else is allowed.
fn refuse(action: AuthAction<'_>) -> Result<Authorization, String> {
    match action {
        AuthAction::Transaction { operation } => {
            let what = match operation {
                TransactionOperation::Begin => "BEGIN",
                TransactionOperation::Rollback => "ROLLBACK",
                _ => "COMMIT/END",
            };
            Err(format!("{what} is refused: {USE_CHECKPOINTS}"))
        }
        AuthAction::Savepoint { operation, .. } => {
            let what = match operation {
                TransactionOperation::Begin => "SAVEPOINT",
                TransactionOperation::Release => "RELEASE",
                _ => "ROLLBACK TO",
            };
            Err(format!("{what} is refused: {USE_CHECKPOINTS}"))
        }
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => Err(
            "ATTACH and DETACH are refused: a sandbox holds one database file, and another one \
             would be changed (or created) outside its transaction"
                .to_owned(),
        ),
        AuthAction::Pragma {
            pragma_name,
            pragma_value,
        } => {
            let name = pragma_name.to_ascii_lowercase();
            let asks = QUERY_PRAGMAS.contains(&name.as_str())
                || (pragma_value.is_none() && READ_PRAGMAS.contains(&name.as_str()));
            if asks {
                Ok(Authorization::Allow)
            } else {
                Err(format!(
                    "PRAGMA {} is refused in a sandbox: pragmas may change the connection or the \
                     file outside the transaction. Allowed: {} (with any argument) and {} \
                     (without a value)",
                    crate::text::quote(pragma_name),
                    QUERY_PRAGMAS.join(", "),
                    READ_PRAGMAS.join(", ")
                ))
            }
        }
        _ => Ok(Authorization::Allow),
    }
}
