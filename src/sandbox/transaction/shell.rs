//! A line-oriented session over a [`SqliteTransaction`]: the one home of
//! what `agents sandbox shell ID` reads and prints (the CLI hands in its
//! terminal, tests a script).
//!
//! * A line is SQL, gathered until it completes a statement (the test is
//!   SQLite's `sqlite3_complete`, ported in `complete.rs`: rusqlite does
//!   not expose it, and it knows that a `CREATE TRIGGER … BEGIN …; END;`
//!   is one statement). Each completed input is one
//!   [`execute`](SqliteTransaction::execute), all or nothing.
//! * A line whose first word is a command and that does not end in `;`,
//!   typed when no SQL is pending, is a command: `checkpoint [LABEL]`,
//!   `rollback [CHECKPOINT]`, `checkpoints`, `changes`, `apply`,
//!   `discard`, `quit`, `help`. Commands are lowercase, so `ROLLBACK;`
//!   stays SQL (and is refused, pointing at the command).
//! * An error is printed and the session goes on with the transaction
//!   open, unless SQLite ended the transaction: then the session says so
//!   and ends as discarded. The end of the input is `discard`.
//! * Everything that came from the database or the input (values, column
//!   and table names, labels, error messages) is escaped with
//!   [`escape_line`] and cut to a bound before it is printed.

mod complete;
#[cfg(test)]
mod tests;

use std::io::{BufRead, Write};

use super::limits::{LineRead, read_line_bounded};
use super::{SqliteTransaction, StatementOutcome, TxnChanges};
use crate::sandbox::SandboxError;
use crate::text::{escape_line, excerpt};
use complete::{Completeness, complete};

/// Characters of one value shown in a result table.
pub const CELL_CHARS: usize = 60;
/// Characters of one error message shown.
const MESSAGE_CHARS: usize = 1_000;

const HELP: &str = "\
SQL lines run inside the sandbox's transaction once a statement is complete (ends in ;).
Commands (alone on a line, without ;):
  checkpoint [LABEL]     mark this point (a savepoint) to come back to
  rollback [CHECKPOINT]  back to a checkpoint (name, number or label; default the latest)
  checkpoints            list the checkpoints
  changes                what the transaction changed so far
  apply                  commit the changes to the database and end
  discard, quit          roll everything back and end (so does the end of input)
  help                   this text";

/// How a shell session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ShellEnd {
    /// The transaction was committed.
    Applied,
    /// The transaction was rolled back (by `discard`, the end of the
    /// input, or SQLite itself): the database file is as it was.
    Discarded,
}

/// Runs a session over `tx` reading `input` and printing to `out`, with
/// prompts (`sql> `, `...> `) when `interactive`. `Err` only when the input
/// cannot be read or the output written (the transaction is then rolled
/// back) or the final rollback fails.
pub fn shell(
    mut tx: SqliteTransaction,
    mut input: impl BufRead,
    mut out: impl Write,
    interactive: bool,
) -> Result<ShellEnd, SandboxError> {
    let db = tx.path().to_owned();
    let write_err = |source| SandboxError::Io {
        what: "write the sandbox shell's output for",
        path: db.clone(),
        source,
    };
    let mut pending = String::new();
    let mut line = Vec::new();
    loop {
        if interactive {
            let prompt = if pending.is_empty() { "sql> " } else { "...> " };
            write!(out, "{prompt}")
                .and_then(|()| out.flush())
                .map_err(write_err)?;
        }
        let max = tx.limits().max_input_bytes.saturating_sub(pending.len());
        let read = read_line_bounded(&mut input, &mut line, max);
        let read = read.map_err(|source| SandboxError::Io {
            what: "read the sandbox shell's input for",
            path: db.clone(),
            source,
        })?;
        if read == LineRead::TooLong {
            pending.clear();
            writeln!(
                out,
                "error: this input is longer than {} bytes, the most one input may hold; it was \
                 not run (the transaction is still open)",
                tx.limits().max_input_bytes
            )
            .map_err(write_err)?;
            continue;
        }
        if read == LineRead::End {
            if interactive {
                writeln!(out).map_err(write_err)?;
            }
            if !pending.is_empty() {
                writeln!(
                    out,
                    "error: the input ended inside a statement, which was not run"
                )
                .map_err(write_err)?;
            }
            return discard(tx, &mut out, write_err);
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            writeln!(out, "error: that line is not UTF-8 text; it was ignored")
                .map_err(write_err)?;
            continue;
        };
        let text = text.trim_end_matches(['\n', '\r']);
        let step = if pending.is_empty()
            && let Some(command) = Command::parse(text)
        {
            command.run(&mut tx, &mut out)
        } else {
            pending.push_str(text);
            pending.push('\n');
            match complete(&pending) {
                Completeness::Empty => {
                    pending.clear();
                    Ok(Step::Continue)
                }
                Completeness::Incomplete => Ok(Step::Continue),
                Completeness::Complete => {
                    let sql = std::mem::take(&mut pending);
                    run_sql(&mut tx, &sql, &mut out)
                }
            }
        };
        match step.map_err(write_err)? {
            Step::Continue => {}
            Step::Applied => return Ok(ShellEnd::Applied),
            Step::Discard => return discard(tx, &mut out, write_err),
            Step::Ended => {
                writeln!(
                    out,
                    "discarded: SQLite ended the transaction; nothing was applied and {} is as it was",
                    escape_line(&db.display().to_string())
                )
                .map_err(write_err)?;
                return Ok(ShellEnd::Discarded);
            }
        }
    }
}

/// What the session does after a line.
enum Step {
    Continue,
    Applied,
    Discard,
    /// SQLite ended the transaction.
    Ended,
}

fn discard(
    tx: SqliteTransaction,
    out: &mut impl Write,
    write_err: impl FnOnce(std::io::Error) -> SandboxError,
) -> Result<ShellEnd, SandboxError> {
    let db = escape_line(&tx.path().display().to_string()).into_owned();
    tx.discard()?;
    writeln!(
        out,
        "discarded: every change was rolled back; {db} is as it was"
    )
    .map_err(write_err)?;
    Ok(ShellEnd::Discarded)
}

fn print_error(out: &mut impl Write, error: &SandboxError) -> std::io::Result<()> {
    let message = error.to_string();
    writeln!(
        out,
        "error: {}",
        escape_line(&excerpt(&message, MESSAGE_CHARS))
    )
}

/// One cell, escaped and bounded.
fn cell(value: &str) -> String {
    escape_line(&excerpt(value, CELL_CHARS)).into_owned()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn run_sql(tx: &mut SqliteTransaction, sql: &str, out: &mut impl Write) -> std::io::Result<Step> {
    match tx.execute(sql) {
        Ok(outcomes) => {
            for outcome in outcomes {
                print_outcome(out, &outcome)?;
            }
            Ok(Step::Continue)
        }
        Err(e) => failed(out, tx, &e),
    }
}

fn print_outcome(out: &mut impl Write, outcome: &StatementOutcome) -> std::io::Result<()> {
    let answer = match outcome {
        StatementOutcome::Changed(n) => {
            return writeln!(out, "{}", plural(*n, "row changed", "rows changed"));
        }
        StatementOutcome::Rows(answer) => answer,
    };
    let header: Vec<String> = answer.columns.iter().map(|c| cell(c)).collect();
    let rows: Vec<Vec<String>> = answer
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| v.as_deref().map_or_else(|| "NULL".to_owned(), cell))
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (width, value) in widths.iter_mut().zip(row) {
            *width = (*width).max(value.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut text = String::new();
        for (i, (value, width)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            text.push_str(value);
            if i + 1 < cells.len() {
                let pad = width.saturating_sub(value.chars().count());
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        text
    };
    writeln!(out, "{}", line(&header))?;
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w.max(1))).collect();
    writeln!(out, "{}", line(&rule))?;
    for row in &rows {
        writeln!(out, "{}", line(row))?;
    }
    let count = plural(rows.len() as u64, "row", "rows");
    if answer.truncated {
        writeln!(out, "({count} shown; the rest were not read)")?;
    } else {
        writeln!(out, "({count})")?;
    }
    if answer.changed > 0 {
        writeln!(
            out,
            "{}",
            plural(answer.changed, "row changed", "rows changed")
        )?;
    }
    Ok(())
}

fn print_changes(out: &mut impl Write, changes: &TxnChanges) -> std::io::Result<()> {
    if changes.is_empty() {
        return writeln!(out, "no changes");
    }
    for (table, counts) in &changes.rows {
        writeln!(
            out,
            "table {}: {} inserted, {} updated, {} deleted",
            cell(table),
            counts.inserted,
            counts.updated,
            counts.deleted
        )?;
    }
    for change in &changes.schema {
        let edit = match change.edit {
            super::SchemaEdit::Created => "created",
            super::SchemaEdit::Dropped => "dropped",
            super::SchemaEdit::Altered => "altered",
        };
        writeln!(out, "{edit} {} {}", cell(&change.kind), cell(&change.name))?;
    }
    Ok(())
}

/// A shell command (see the module documentation).
enum Command<'l> {
    Checkpoint(Option<&'l str>),
    Rollback(Option<&'l str>),
    Checkpoints,
    Changes,
    Apply,
    Discard,
    Help,
    /// A command word with an argument it does not take.
    Extra(&'l str),
}

impl<'l> Command<'l> {
    fn parse(line: &'l str) -> Option<Self> {
        let line = line.trim();
        if line.ends_with(';') {
            return None;
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let arg = (!rest.is_empty()).then_some(rest);
        let command = match word {
            "checkpoint" => return Some(Command::Checkpoint(arg)),
            "rollback" => return Some(Command::Rollback(arg)),
            "checkpoints" => Command::Checkpoints,
            "changes" => Command::Changes,
            "apply" => Command::Apply,
            "discard" | "quit" => Command::Discard,
            "help" => Command::Help,
            _ => return None,
        };
        Some(if arg.is_some() {
            Command::Extra(word)
        } else {
            command
        })
    }

    fn run(self, tx: &mut SqliteTransaction, out: &mut impl Write) -> std::io::Result<Step> {
        match self {
            Command::Help => writeln!(out, "{HELP}")?,
            Command::Extra(word) => writeln!(out, "error: {word} takes no argument (see help)")?,
            Command::Checkpoint(label) => match tx.checkpoint(label) {
                Ok(name) => {
                    let number = tx.checkpoints().len();
                    writeln!(out, "checkpoint {number}: {name}{}", label_suffix(label))?;
                }
                Err(e) => return failed(out, tx, &e),
            },
            Command::Rollback(to) => {
                let before = tx.checkpoints().len();
                match tx.rollback(to) {
                    Ok(cp) => {
                        let number = tx.checkpoints().len();
                        let gone = (before - number) as u64;
                        writeln!(
                            out,
                            "rolled back to checkpoint {number}: {}{}{}",
                            cp.name,
                            label_suffix(cp.label.as_deref()),
                            if gone > 0 {
                                format!(
                                    "; {} discarded",
                                    plural(gone, "later checkpoint", "later checkpoints")
                                )
                            } else {
                                String::new()
                            }
                        )?;
                    }
                    Err(e) => return failed(out, tx, &e),
                }
            }
            Command::Checkpoints => {
                if tx.checkpoints().is_empty() {
                    writeln!(out, "no checkpoints")?;
                }
                for (i, cp) in tx.checkpoints().iter().enumerate() {
                    writeln!(
                        out,
                        "{}: {}{}",
                        i + 1,
                        cp.name,
                        label_suffix(cp.label.as_deref())
                    )?;
                }
            }
            Command::Changes => match tx.changes() {
                Ok(changes) => print_changes(out, &changes)?,
                Err(e) => return failed(out, tx, &e),
            },
            Command::Apply => match tx.apply() {
                Ok(changes) => {
                    print_changes(out, &changes)?;
                    writeln!(
                        out,
                        "applied: the changes are committed to {}",
                        escape_line(&tx.path().display().to_string())
                    )?;
                    return Ok(Step::Applied);
                }
                Err(e) => return failed(out, tx, &e),
            },
            Command::Discard => return Ok(Step::Discard),
        }
        Ok(Step::Continue)
    }
}

/// Prints a failed operation's error; the session goes on unless the
/// transaction is over.
fn failed(out: &mut impl Write, tx: &SqliteTransaction, e: &SandboxError) -> std::io::Result<Step> {
    print_error(out, e)?;
    Ok(if tx.is_open() {
        Step::Continue
    } else {
        Step::Ended
    })
}

fn label_suffix(label: Option<&str>) -> String {
    label.map_or_else(String::new, |l| format!(" ({})", cell(l)))
}
