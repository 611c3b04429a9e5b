//! Running a container tool: the one home of how a `devcontainer`,
//! `docker` or `podman` process is started, bounded, ended and quoted.
//!
//! Fixed argv (no shell), stdin closed (or the bytes handed in), a cleared environment plus the
//! variables the caller chose, stdout and stderr read at once (a tool
//! blocked on one pipe would otherwise wait for the deadline) and bounded
//! (their *tails* are kept: a tool's verdict is at the end). The child
//! leads its own process group, so that on the deadline the tool *and*
//! what it started (the CLI's `docker build`, a `sleep`) are killed. The
//! price: a Ctrl-C at a terminal reaches the caller, not the tool (the
//! caller's exit closes the tool's pipes).

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::DevcontainerError;
use crate::text::{EXCERPT_CHARS, escape_line, excerpt, quote};

/// Bytes of stdout kept (its tail).
const STDOUT_LIMIT: usize = 1 << 20;
/// Bytes of stderr kept (its tail).
const STDERR_LIMIT: usize = 64 << 10;
/// How long the pipes may stay open after the tool ended (something it
/// left running in another session may hold them): then what was read is
/// what there is.
const PIPE_GRACE: Duration = Duration::from_secs(5);

/// A finished call.
#[derive(Debug)]
pub(super) struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    /// Raw (untrusted): quote it with [`shown_stderr`].
    pub stderr: String,
}

/// One call of `program`.
#[derive(Debug)]
pub(super) struct Call<'a> {
    pub program: &'a Path,
    pub args: Vec<OsString>,
    pub env: &'a [(OsString, OsString)],
    pub limit: Duration,
    /// What the tool reads on stdin (else it is closed).
    pub input: Option<&'a [u8]>,
    /// Its working folder (else the caller's).
    pub cwd: Option<&'a Path>,
}

impl Call<'_> {
    /// Runs it to the end or to the deadline (then `Timeout`, the group
    /// killed). A non-zero exit is a [`Finished`], for the caller to read.
    pub fn run(&self) -> Result<Finished, DevcontainerError> {
        let mut command = Command::new(self.program);
        if let Some(cwd) = self.cwd {
            command.current_dir(cwd);
        }
        let mut child = command
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .args(&self.args)
            .stdin(if self.input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|source| DevcontainerError::Io {
                what: "cannot run",
                path: self.program.to_path_buf(),
                source,
            })?;
        let group = child.id();
        if let (Some(input), Some(mut stdin)) = (self.input, child.stdin.take()) {
            // Written on a thread: a tool that does not read it must not
            // block the caller (the deadline still holds).
            let input = input.to_vec();
            thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&input);
            });
        }
        let (tx, rx) = mpsc::channel();
        let stdout = drain(child.stdout.take(), STDOUT_LIMIT, tx.clone());
        let stderr = drain(child.stderr.take(), STDERR_LIMIT, tx.clone());
        thread::spawn(move || {
            let status = child.wait();
            let _ = tx.send(Event::Exited(status));
        });
        let deadline = Instant::now() + self.limit;
        let mut status = None;
        let mut timed_out = false;
        let mut drained = 0;
        while status.is_none() {
            let left = if timed_out {
                // SIGKILL cannot be refused; this only bounds a process
                // stuck in the kernel.
                PIPE_GRACE
            } else {
                deadline.saturating_duration_since(Instant::now())
            };
            match rx.recv_timeout(left) {
                Ok(Event::Exited(s)) => status = Some(s),
                Ok(Event::Drained) => drained += 1,
                Err(mpsc::RecvTimeoutError::Timeout) if !timed_out => {
                    timed_out = true;
                    kill_group(group);
                }
                Err(_) => break,
            }
        }
        // The pipes: both drained (EOF), or the grace is over.
        let grace = Instant::now() + PIPE_GRACE;
        while drained < 2 {
            match rx.recv_timeout(grace.saturating_duration_since(Instant::now())) {
                Ok(Event::Drained) => drained += 1,
                Ok(Event::Exited(_)) => {}
                Err(_) => break,
            }
        }
        let stdout = stdout.take();
        let stderr = stderr.take();
        if timed_out {
            return Err(DevcontainerError::Timeout {
                program: self.shown_program(),
                args: self.shown_args(),
                limit: self.limit,
                stderr: shown_stderr(&stderr),
            });
        }
        let status = status
            .ok_or_else(|| std::io::Error::other("the tool's waiter ended without a status"))
            .and_then(|s| s)
            .map_err(|source| DevcontainerError::Io {
                what: "cannot wait for",
                path: self.program.to_path_buf(),
                source,
            })?;
        Ok(Finished {
            status,
            stdout,
            stderr,
        })
    }

    /// The `Tool` error of a failed call.
    pub fn failed(&self, finished: &Finished) -> DevcontainerError {
        self.failed_with(finished, shown_stderr(&finished.stderr))
    }

    /// The `Tool` error of a failed call, with what to show for it.
    pub fn failed_with(&self, finished: &Finished, stderr: String) -> DevcontainerError {
        DevcontainerError::Tool {
            program: self.shown_program(),
            args: self.shown_args(),
            status: finished.status.to_string(),
            stderr,
        }
    }

    /// The `Unexpected` error of a call whose answer cannot be read.
    pub fn unexpected(&self, answer: &str) -> DevcontainerError {
        DevcontainerError::Unexpected {
            program: self.shown_program(),
            args: self.shown_args(),
            answer: if answer.trim().is_empty() {
                "nothing".into()
            } else {
                shown_stderr(answer)
            },
        }
    }

    pub fn shown_program(&self) -> String {
        escape_line(&self.program.display().to_string()).into_owned()
    }

    /// The arguments for a message: plain ones as they are, others
    /// quoted (and cut), the whole cut too.
    pub fn shown_args(&self) -> String {
        let words: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                let a = a.to_string_lossy();
                let plain = !a.is_empty()
                    && a.chars()
                        .all(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\'' | '\\'));
                if plain { a.into_owned() } else { quote(&a) }
            })
            .collect();
        excerpt(&words.join(" "), 400).into_owned()
    }
}

/// Untrusted tool output for a message: trimmed, its last
/// [`EXCERPT_CHARS`] characters (where a tool says what went wrong),
/// escaped onto one line.
pub(super) fn shown_stderr(text: &str) -> String {
    let text = text.trim();
    let count = text.chars().count();
    let cut = if count > EXCERPT_CHARS {
        let start = text
            .char_indices()
            .nth(count - EXCERPT_CHARS)
            .map_or(0, |(i, _)| i);
        format!("({} earlier bytes) …{}", start, &text[start..])
    } else {
        text.to_owned()
    };
    escape_line(&cut).into_owned()
}

enum Event {
    Exited(std::io::Result<ExitStatus>),
    Drained,
}

/// The bytes a reader keeps: the last `limit` of them.
#[derive(Debug, Clone)]
struct Tail(Arc<Mutex<Vec<u8>>>);

impl Tail {
    fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Reads `pipe` to its end on a thread, keeping its tail; says `Drained`
/// at the end.
fn drain<R: Read + Send + 'static>(pipe: Option<R>, limit: usize, tx: mpsc::Sender<Event>) -> Tail {
    let tail = Tail(Arc::new(Mutex::new(Vec::new())));
    let kept = tail.clone();
    thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut bytes = kept.0.lock().unwrap_or_else(|e| e.into_inner());
                        bytes.extend_from_slice(&chunk[..n]);
                        if bytes.len() > limit {
                            let extra = bytes.len() - limit;
                            bytes.drain(..extra);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = tx.send(Event::Drained);
    });
    tail
}

/// SIGKILL to the tool's process group (its id is the tool's pid: it was
/// made the group's leader).
fn kill_group(group: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    if let Some(pid) = i32::try_from(group).ok().and_then(Pid::from_raw) {
        // Gone already is fine: the group ended on its own.
        let _ = kill_process_group(pid, Signal::KILL);
    }
}
