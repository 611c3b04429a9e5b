//! How far one `transaction_rollback` session may go: the one home of its
//! bounds, because the session holds the database's write lock and runs
//! whatever SQL an agent sends.
//!
//! * **A deadline per input.** Each [`execute`](super::SqliteTransaction::execute)
//!   runs under SQLite's progress handler, which interrupts the statement
//!   once [`SessionLimits::input_timeout`] has passed (a recursive CTE with
//!   no end spun forever, holding the lock). A query so interrupted is
//!   undone like any failing input and the session goes on; a statement
//!   that writes cannot be: SQLite rolls back the *whole* transaction of an
//!   interrupted write (its rule, not ours — a write half done has no
//!   statement journal to undo it by), so the session ends, nothing applied
//!   and the file as it was, and says so.
//! * **A bound on growth.** At open the connection's `max_page_count` is
//!   set to the file's pages plus [`SessionLimits::max_growth_bytes`] (and
//!   the connection's temporary database gets the same bound), so a write
//!   past it fails with SQLite's own "database or disk is full" — named
//!   here as the session's bound — instead of filling the disk
//!   (`randomblob` grew a database 1.7 GB in 12 s). An agent cannot lift
//!   it: `PRAGMA max_page_count = …` is one of the pragmas the guard
//!   refuses.
//! * **A bound on one input's size.** Longer SQL is refused before SQLite
//!   parses it (a 300 MB statement took 2.3 GB of memory); the shell also
//!   stops reading a line past the bound instead of holding it.

use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;

/// The bounds of one session (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLimits {
    /// Wall-clock time one input may run before it is interrupted.
    pub input_timeout: Duration,
    /// Bytes the database may grow by during the session.
    pub max_growth_bytes: u64,
    /// Bytes of SQL in one input.
    pub max_input_bytes: usize,
}

impl Default for SessionLimits {
    /// 60 s per input, 1 GiB of growth, 4 MiB of SQL per input.
    fn default() -> Self {
        Self {
            input_timeout: Duration::from_secs(60),
            max_growth_bytes: 1 << 30,
            max_input_bytes: 4 << 20,
        }
    }
}

/// How often (in SQLite's virtual machine instructions) the deadline is
/// looked at: cheap, and well under a millisecond between looks.
const PROGRESS_OPS: i32 = 10_000;

/// Cap the main and temporary databases of `conn` at their size now plus
/// `limits.max_growth_bytes`.
pub(super) fn bound_growth(conn: &Connection, limits: &SessionLimits) -> rusqlite::Result<()> {
    for schema in ["main", "temp"] {
        let page_size: i64 = conn.pragma_query_value(Some(schema), "page_size", |r| r.get(0))?;
        let pages: i64 = conn.pragma_query_value(Some(schema), "page_count", |r| r.get(0))?;
        let growth = i64::try_from(limits.max_growth_bytes).unwrap_or(i64::MAX);
        let allowed = pages.saturating_add(growth / page_size.max(512)).max(1);
        conn.pragma_update(Some(schema), "max_page_count", allowed)?;
    }
    Ok(())
}

/// Run `f` with a deadline of `timeout` from now on `conn`'s statements;
/// answers what `f` did and whether the deadline interrupted it.
pub(super) fn with_deadline<T>(
    conn: &mut Connection,
    timeout: Duration,
    f: impl FnOnce(&Connection) -> T,
) -> (T, bool) {
    let deadline = Instant::now() + timeout;
    let hit = Arc::new(AtomicBool::new(false));
    let noted = Arc::clone(&hit);
    let installed = conn
        .progress_handler(
            PROGRESS_OPS,
            Some(move || {
                let over = Instant::now() >= deadline;
                if over {
                    noted.store(true, Ordering::Relaxed);
                }
                over
            }),
        )
        .is_ok();
    let out = f(conn);
    if installed {
        let _ = conn.progress_handler(0, None::<fn() -> bool>);
    }
    (out, hit.load(Ordering::Relaxed))
}

/// `SQLite`'s "database or disk is full", said as the session's bound when
/// that is what was hit.
pub(super) fn explain_full(error: String, limits: &SessionLimits) -> String {
    if !error.contains("database or disk is full") {
        return error;
    }
    format!(
        "{error}: this input would grow the database past the session's bound ({} MiB more \
         than when the sandbox was opened; `agents sandbox shell --max-growth MIB` raises it), \
         or the disk is full",
        limits.max_growth_bytes >> 20
    )
}

/// What reading one line found.
#[derive(PartialEq, Eq)]
pub(super) enum LineRead {
    Line,
    /// More than the bound before the line ended: skipped to its end.
    TooLong,
    End,
}

/// Read one line into `line`, holding at most `max` bytes of it (and its
/// line feed): a longer one is read past, not kept.
pub(super) fn read_line_bounded(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    line.clear();
    let read = std::io::Read::take(&mut *input, max as u64 + 1).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(LineRead::End);
    }
    let ended = line.ends_with(b"\n");
    if line.len() - usize::from(ended) <= max {
        return Ok(LineRead::Line);
    }
    line.clear();
    if !ended {
        loop {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    input.consume(at + 1);
                    break;
                }
                None => {
                    let n = buf.len();
                    input.consume(n);
                }
            }
        }
    }
    Ok(LineRead::TooLong)
}
