//! The `transaction_rollback` strategy: the one home of how a SQLite
//! database file is sandboxed by holding one connection in one open
//! transaction.
//!
//! The sandbox is a live [`SqliteTransaction`], not files on disk, so it is
//! not a [`Strategy`](super::Strategy) (there is no area or working copy
//! to come back to): its lifetime is its holder's. Through the library an
//! agent runtime keeps it open and executes SQL through it; from the CLI,
//! `agents sandbox shell ID` keeps it open for one interactive [`shell`]
//! session. When the holder goes away without applying (a dropped value, a
//! killed process) SQLite rolls the transaction back: nothing is ever
//! committed implicitly.
//!
//! | sandbox operation | SQL |
//! |---|---|
//! | open | `BEGIN IMMEDIATE` |
//! | checkpoint | `SAVEPOINT agents_cp_<n>` |
//! | rollback | `ROLLBACK TO SAVEPOINT agents_cp_<n>` (later checkpoints are gone, as in SQLite) |
//! | apply | `COMMIT` |
//! | discard, drop | `ROLLBACK` |
//!
//! Decisions:
//!
//! * `open` refuses, before SQLite sees the path (so nothing is created): a
//!   missing path, a symlink (not followed; SQLite is also told
//!   `SQLITE_OPEN_NOFOLLOW`), anything but a regular file, a file without
//!   the 16-byte SQLite header; then a file read-only for this user and a
//!   database another writer holds (after [`BUSY_TIMEOUT`]).
//! * `BEGIN IMMEDIATE` gives the sandbox the database's write lock for its
//!   whole life: other writers wait (their busy timeout) and then fail
//!   while a sandbox is open; readers keep seeing the committed database
//!   (WAL or rollback journal, whichever the file uses). In rollback-journal
//!   mode a transaction larger than SQLite's page cache takes the
//!   exclusive lock before commit, and readers then wait too.
//! * Statements are SQLite's own: what may not run (anything that would
//!   end or escape the transaction) is refused while it is prepared, see
//!   `guard.rs`. The real guard is the connection's autocommit state,
//!   checked after every input: if the transaction ended anyway (SQLite
//!   rolls back a whole transaction for `INSERT OR ROLLBACK`,
//!   `RAISE(ROLLBACK)`, a full disk…), the sandbox says so and is over.
//! * One [`execute`](SqliteTransaction::execute) is all or nothing: it runs
//!   inside its own savepoint, so a refused or failing statement leaves the
//!   transaction as it was before the call, statements before it included.
//! * Checkpoint names are generated (`agents_cp_1`, `agents_cp_2`, …, never
//!   reused, never user text in SQL); a label is kept alongside. A
//!   checkpoint is found by name, by 1-based position in
//!   [`checkpoints`](SqliteTransaction::checkpoints), or by label; so a
//!   label may not be a number or look like a name.
//! * [`changes`](SqliteTransaction::changes) (the sandbox's diff) is
//!   cheap: row operations per table as SQLite's update hook reports them
//!   (snapshotted at every checkpoint, so a rollback takes them back), and
//!   the schema objects created, dropped or altered, compared with
//!   `sqlite_schema` at open. Row counts are operations, not a net
//!   difference (a row inserted then deleted counts once in each); rows of
//!   `WITHOUT ROWID` tables, rows deleted by `REPLACE` conflict resolution
//!   and rows of a dropped table are not counted (SQLite does not report
//!   them to the hook).
//! * Query results are rendered as text (NULL as `None`, blobs as
//!   `x'hex'`) and bounded to 1,000 rows (`statements::MAX_ROWS`). The values are the
//!   database's, untrusted and unescaped: whoever shows them escapes them
//!   (the shell does).
//!
//! Known limits: the symlink and header checks and SQLite's open are two
//! steps (a regular file swapped for another regular file between them is
//! not noticed); `temp` tables are the connection's own and not part of
//! `changes`.

mod changes;
mod file;
mod guard;
mod limits;
mod shell;
mod statements;
#[cfg(test)]
mod tests;

pub use changes::{RowCounts, SchemaChange, SchemaEdit, TxnChanges};
pub use file::check_database_file;
pub use limits::SessionLimits;
pub use shell::{ShellEnd, shell};
pub use statements::{ResultRows, StatementOutcome};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::hooks::{AuthContext, Authorization};
use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::sandbox::SandboxError;
use changes::{Counts, Schema, read_schema};
use statements::run_statements;

/// How long `open` waits for another writer to finish before refusing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const CHECKPOINT_PREFIX: &str = "agents_cp_";
const EXEC_SAVEPOINT: &str = "agents_exec";

/// A checkpoint: its generated savepoint name and the label it was given
/// (its view: those two).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TxnCheckpoint {
    pub name: String,
    pub label: Option<String>,
    /// The row counts when it was taken (what a rollback restores).
    #[serde(skip)]
    counts: Counts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    Applied,
    Discarded,
    /// SQLite ended the transaction by itself (rolled it back).
    Aborted,
}

/// A `transaction_rollback` sandbox: one connection to a database file,
/// inside one open transaction. See the module documentation.
#[derive(Debug)]
pub struct SqliteTransaction {
    conn: Connection,
    path: PathBuf,
    checkpoints: Vec<TxnCheckpoint>,
    next_checkpoint: u64,
    /// Written by the update hook.
    counts: Arc<Mutex<Counts>>,
    base_schema: Schema,
    state: State,
    limits: SessionLimits,
    /// A lock held for as long as the session lives (the registry's
    /// session lock file: see `Registry::open_transaction`).
    session_lock: Option<std::fs::File>,
}

fn unsuitable(message: String) -> SandboxError {
    SandboxError::Unsuitable(message)
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SqliteTransaction {
    /// Opens the database file at `path` and begins the sandbox's
    /// transaction, waiting at most [`BUSY_TIMEOUT`] for another writer.
    pub fn open(path: &Path) -> Result<Self, SandboxError> {
        Self::open_waiting(path, BUSY_TIMEOUT)
    }

    /// [`open`](Self::open), waiting at most `wait` for another writer.
    pub fn open_waiting(path: &Path, wait: Duration) -> Result<Self, SandboxError> {
        Self::open_with(path, wait, SessionLimits::default())
    }

    /// [`open_waiting`](Self::open_waiting) with the session bounded by
    /// `limits` instead of the defaults.
    pub fn open_with(
        path: &Path,
        wait: Duration,
        limits: SessionLimits,
    ) -> Result<Self, SandboxError> {
        check_database_file(path)?;
        let shown = path.display();
        let cannot = |e: rusqlite::Error| unsuitable(format!("cannot open {shown}: {e}"));
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = Connection::open_with_flags(path, flags).map_err(cannot)?;
        if conn.is_readonly(rusqlite::MAIN_DB).map_err(cannot)? {
            return Err(unsuitable(format!(
                "{shown} is read-only for this user; a sandbox needs to write it"
            )));
        }
        conn.busy_timeout(wait).map_err(cannot)?;
        let counts = Arc::new(Mutex::new(Counts::new()));
        let hook_counts = Arc::clone(&counts);
        conn.update_hook(Some(move |action, db: &str, table: &str, _rowid| {
            if db != "main" {
                return;
            }
            changes::count(&mut locked(&hook_counts), action, table);
        }))
        .map_err(cannot)?;
        match conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => {}
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => {
                return Err(unsuitable(format!(
                    "{shown} is locked by another writer (waited {:.1} s); close the other \
                     writer's transaction (or sandbox) and try again",
                    wait.as_secs_f64()
                )));
            }
            Err(e) => {
                return Err(unsuitable(format!(
                    "cannot begin a transaction on {shown}: {e}"
                )));
            }
        }
        let base_schema = read_schema(&conn)
            .map_err(|e| unsuitable(format!("cannot read the schema of {shown}: {e}")))?;
        limits::bound_growth(&conn, &limits)
            .map_err(|e| unsuitable(format!("cannot bound the growth of {shown}: {e}")))?;
        Ok(Self {
            conn,
            path: path.to_owned(),
            checkpoints: Vec::new(),
            next_checkpoint: 1,
            counts,
            base_schema,
            state: State::Open,
            limits,
            session_lock: None,
        })
    }

    /// The bounds this session runs under.
    pub fn limits(&self) -> &SessionLimits {
        &self.limits
    }

    /// Keep `lock` (a file whose lock marks the session as live) until the
    /// session ends.
    pub fn hold(&mut self, lock: std::fs::File) {
        self.session_lock = Some(lock);
    }

    /// The database file, as given to `open`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Is the transaction still open (neither applied, discarded nor ended
    /// by SQLite)?
    pub fn is_open(&self) -> bool {
        self.state == State::Open
    }

    fn ensure_open(&self) -> Result<(), SandboxError> {
        let shown = self.path.display();
        match self.state {
            State::Open => Ok(()),
            State::Applied => Err(unsuitable(format!(
                "this sandbox was applied (committed to {shown}); open a new one to change it again"
            ))),
            State::Discarded => Err(unsuitable(format!("this sandbox of {shown} was discarded"))),
            State::Aborted => Err(unsuitable(format!(
                "this sandbox of {shown} is over: SQLite rolled its transaction back, nothing \
                 was applied; open a new one"
            ))),
        }
    }

    /// Runs the sandbox's own SQL (never user text); notices when SQLite
    /// ended the transaction.
    fn run_own(&mut self, sql: &str) -> Result<(), SandboxError> {
        let ran = self.conn.execute_batch(sql);
        if self.conn.is_autocommit() {
            self.state = State::Aborted;
        }
        ran.map_err(|e| unsuitable(format!("{sql} failed on {}: {e}", self.path.display())))?;
        self.ensure_open()
    }

    fn counts(&self) -> Counts {
        locked(&self.counts).clone()
    }

    /// Runs one or more statements, all or nothing: if one is refused or
    /// fails, every statement of `sql` is undone and the transaction is as
    /// it was. One outcome per statement, in order.
    pub fn execute(&mut self, sql: &str) -> Result<Vec<StatementOutcome>, SandboxError> {
        self.ensure_open()?;
        let limits = self.limits.clone();
        if sql.len() > limits.max_input_bytes {
            return Err(unsuitable(format!(
                "this input is {} bytes, more than the {} one input may hold; nothing of it was \
                 run (the transaction is still open)",
                sql.len(),
                limits.max_input_bytes
            )));
        }
        let before = self.counts();
        self.run_own(&format!("SAVEPOINT {EXEC_SAVEPOINT}"))?;
        // Why the guard refused a statement, if it did (SQLite itself only
        // says "not authorized").
        let refusal = Arc::new(Mutex::new(None));
        let refused = Arc::clone(&refusal);
        let mut guard = guard::Guard::default();
        let guarded = self.conn.authorizer(Some(move |ctx: AuthContext<'_>| {
            guard.authorize(ctx.action).unwrap_or_else(|why| {
                *locked(&refused) = Some(why);
                Authorization::Deny
            })
        }));
        let ran = match guarded {
            Ok(()) => {
                let timeout = limits.input_timeout;
                let (ran, late) =
                    limits::with_deadline(&mut self.conn, timeout, |c| run_statements(c, sql));
                match ran {
                    Err(_) if late => Err(format!(
                        "the input was still running after {:.3} s, the session's deadline for \
                         one input, and was interrupted (`agents sandbox shell --input-timeout \
                         SECONDS` sets it)",
                        timeout.as_secs_f64()
                    )),
                    ran => ran.map_err(|e| limits::explain_full(e, &limits)),
                }
            }
            Err(e) => Err(format!("cannot install the sandbox's guard: {e}")),
        };
        let unguarded = self
            .conn
            .authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
        let refused = locked(&refusal).take();
        let error = match (ran, refused) {
            (Ok(outcomes), _) if !self.conn.is_autocommit() => {
                unguarded
                    .map_err(|e| unsuitable(format!("cannot remove the sandbox's guard: {e}")))?;
                self.run_own(&format!("RELEASE {EXEC_SAVEPOINT}"))?;
                return Ok(outcomes);
            }
            (Ok(_), _) => "the input ended the transaction".to_owned(),
            (Err(_), Some(why)) => why,
            (Err(e), None) => e,
        };
        if self.conn.is_autocommit() {
            self.state = State::Aborted;
            return Err(unsuitable(format!(
                "{error}; SQLite ended the sandbox's transaction on {}, so it is over: nothing \
                 was applied",
                self.path.display()
            )));
        }
        unguarded.map_err(|e| unsuitable(format!("cannot remove the sandbox's guard: {e}")))?;
        self.run_own(&format!(
            "ROLLBACK TO {EXEC_SAVEPOINT}; RELEASE {EXEC_SAVEPOINT}"
        ))?;
        *locked(&self.counts) = before;
        Err(unsuitable(format!(
            "{error} (nothing of this input was kept; the transaction is still open)"
        )))
    }

    /// Marks the transaction's current state as a checkpoint; returns its
    /// generated savepoint name.
    pub fn checkpoint(&mut self, label: Option<&str>) -> Result<String, SandboxError> {
        self.ensure_open()?;
        if let Some(label) = label {
            check_label(label)?;
        }
        let name = format!("{CHECKPOINT_PREFIX}{}", self.next_checkpoint);
        self.run_own(&format!("SAVEPOINT {name}"))?;
        self.next_checkpoint += 1;
        self.checkpoints.push(TxnCheckpoint {
            name: name.clone(),
            label: label.map(str::to_owned),
            counts: self.counts(),
        });
        Ok(name)
    }

    /// The live checkpoints, oldest first (a rollback drops the later ones).
    pub fn checkpoints(&self) -> &[TxnCheckpoint] {
        &self.checkpoints
    }

    /// Which checkpoint `to` names: its name, its 1-based position or its
    /// label; the latest when `None`.
    fn find(&self, to: Option<&str>) -> Result<usize, SandboxError> {
        let Some(to) = to else {
            return self
                .checkpoints
                .len()
                .checked_sub(1)
                .ok_or_else(|| SandboxError::NoCheckpoint("latest".to_owned()));
        };
        if let Some(at) = self.checkpoints.iter().position(|cp| cp.name == to) {
            return Ok(at);
        }
        if !to.is_empty() && to.bytes().all(|b| b.is_ascii_digit()) {
            return match to.parse::<usize>() {
                Ok(n) if (1..=self.checkpoints.len()).contains(&n) => Ok(n - 1),
                _ => Err(SandboxError::NoCheckpoint(to.to_owned())),
            };
        }
        let labelled: Vec<usize> = (0..self.checkpoints.len())
            .filter(|&at| self.checkpoints[at].label.as_deref() == Some(to))
            .collect();
        match labelled[..] {
            [] => Err(SandboxError::NoCheckpoint(to.to_owned())),
            [at] => Ok(at),
            _ => Err(unsuitable(format!(
                "the label {} names checkpoints {}; roll back by number or name",
                crate::text::quote(to),
                labelled
                    .iter()
                    .map(|at| (at + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Returns the transaction to checkpoint `to` (see `find`), which stays;
    /// later checkpoints are gone, as in SQLite. Returns the checkpoint.
    pub fn rollback(&mut self, to: Option<&str>) -> Result<TxnCheckpoint, SandboxError> {
        self.ensure_open()?;
        let at = self.find(to)?;
        let target = self.checkpoints[at].clone();
        self.run_own(&format!("ROLLBACK TO SAVEPOINT {}", target.name))?;
        self.checkpoints.truncate(at + 1);
        *locked(&self.counts) = target.counts.clone();
        Ok(target)
    }

    /// What the transaction changed so far (see the module documentation).
    pub fn changes(&self) -> Result<TxnChanges, SandboxError> {
        self.ensure_open()?;
        let now = read_schema(&self.conn).map_err(|e| {
            unsuitable(format!(
                "cannot read the schema of {}: {e}",
                self.path.display()
            ))
        })?;
        Ok(TxnChanges {
            rows: self.counts(),
            schema: changes::schema_diff(&self.base_schema, &now),
        })
    }

    /// Commits the transaction to the database file. If the commit fails
    /// and SQLite kept the transaction (another reader still busy, say),
    /// the sandbox stays open: apply again or discard. Returns what was
    /// committed.
    pub fn apply(&mut self) -> Result<TxnChanges, SandboxError> {
        let changes = self.changes()?;
        match self.conn.execute_batch("COMMIT") {
            Ok(()) => {
                self.state = State::Applied;
                Ok(changes)
            }
            Err(e) if self.conn.is_autocommit() => {
                self.state = State::Aborted;
                Err(unsuitable(format!(
                    "COMMIT failed on {} and SQLite rolled the transaction back, so nothing was \
                     applied: {e}",
                    self.path.display()
                )))
            }
            Err(e) => Err(unsuitable(format!(
                "COMMIT failed on {}: {e}; the sandbox is still open: apply again or discard",
                self.path.display()
            ))),
        }
    }

    /// Rolls the whole transaction back; the database file is as it was.
    pub fn discard(mut self) -> Result<(), SandboxError> {
        if self.state != State::Open {
            return Ok(());
        }
        self.state = State::Discarded;
        self.conn
            .execute_batch("ROLLBACK")
            .map_err(|e| unsuitable(format!("ROLLBACK failed on {}: {e}", self.path.display())))
    }
}

impl Drop for SqliteTransaction {
    /// Never commits: an open transaction is rolled back (and closing the
    /// connection would roll it back if this failed).
    fn drop(&mut self) {
        if self.state == State::Open {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// A label must not be mistaken for a checkpoint's number or name.
fn check_label(label: &str) -> Result<(), SandboxError> {
    if label.trim().is_empty()
        || label.bytes().all(|b| b.is_ascii_digit())
        || label.starts_with(CHECKPOINT_PREFIX)
    {
        return Err(unsuitable(format!(
            "the checkpoint label {} is refused: a label may not be empty, a number or start \
             with {CHECKPOINT_PREFIX} (checkpoints are also found by number and name)",
            crate::text::quote(label)
        )));
    }
    Ok(())
}
