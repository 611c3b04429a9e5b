//! One `git cat-file --batch` process per repository per operation: the
//! objects a handler asks for one at a time (`read-commit`,
//! `read-tree`) come from it, a line in and an object out, instead of a
//! git process each (~2.5 ms apiece, most of a deep discovery's time).
//!
//! **Made as every git process is** (`process::command`: the host's git,
//! the repository's command-bearing configuration neutralised, the fixed
//! safety options, a hermetic environment). `cat-file --batch` applies no
//! filter or textconv, so nothing a repository names runs; it is asked
//! only object names the host built from checked hex ids.
//!
//! **Spawned lazily, kept per operation, killed at its end.** A process
//! is made on the first question that needs one and lent to one question
//! at a time: taken out of its [`BatchPool`] while it answers and given
//! back after. The pool lives in the operation's memo (or in the call's
//! scope outside an operation) and goes with it: dropping a process
//! kills it and reaps it. A question abandoned half-way (the call's
//! deadline) drops the process it holds, so nothing half-read is ever
//! reused. Processes are kept by repository and by the executor that
//! drives their pipes (each engine has its own), at most [`MAX_IDLE`].
//!
//! **Bounded, and never the last word.** An object larger than the
//! one-shot answer's bound, a header out of shape, a process that stops
//! answering: the process goes and the question answers `None`, as it
//! does for an object the batch says is missing or ambiguous — the
//! caller then asks the one-shot way, whose answer (or complaint) is the
//! one it always was.

use super::{GitError, OUTPUT_LIMIT, Repository, process};
use crate::git_env::{GitTools, Neutral};
use std::process::Stdio;
use std::sync::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The most idle batch processes one pool keeps (more are made when
/// questions overlap; past this many, one given back is ended).
const MAX_IDLE: usize = 4;

/// The longest answer header (`<id> <type> <size>\n`, or `<name>
/// missing`) read before a process is given up.
const HEADER_LIMIT: u64 = 512;

/// How long dropping a process waits for it to be reaped after killing
/// it (it dies at once on SIGKILL; this only bounds the wait).
const REAP_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// One object as the batch answered it.
#[derive(Debug)]
pub(super) struct Object {
    /// Its id (for a peeled name such as `<id>^{commit}`, the object's
    /// own id).
    pub id: String,
    /// `commit`, `tree`, `blob` or `tag`.
    pub kind: String,
    pub content: Vec<u8>,
}

/// Which pooled process fits a question: the executor whose driver owns
/// its pipes, and the repository (its git directory).
type Key = (tokio::runtime::Id, String);

/// The idle batch processes of one operation (or one call).
#[derive(Default)]
pub(crate) struct BatchPool {
    idle: Mutex<Vec<(Key, CatFile)>>,
}

impl std::fmt::Debug for BatchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let idle = self.idle.lock().map_or(0, |i| i.len());
        f.debug_struct("BatchPool").field("idle", &idle).finish()
    }
}

impl BatchPool {
    /// `spec`'s object in `repo` from a pooled process (made when none
    /// is idle); `None` when the batch cannot say (see the module).
    pub(super) async fn object(
        &self,
        tools: &GitTools,
        repo: &Repository,
        neutral: &Neutral,
        spec: &str,
    ) -> Option<Object> {
        let key = (
            tokio::runtime::Handle::try_current().ok()?.id(),
            repo.git_dir.clone(),
        );
        let taken = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            idle.iter()
                .position(|(k, _)| *k == key)
                .map(|at| idle.swap_remove(at).1)
        };
        let mut process = match taken {
            Some(process) => process,
            None => match CatFile::spawn(tools, repo, neutral) {
                Ok(process) => process,
                Err(e) => {
                    log::debug!(target: "plugin", "git cat-file --batch: {e:?}");
                    return None;
                }
            },
        };
        match process.ask(spec).await {
            Ok(answer) => {
                let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
                if idle.len() < MAX_IDLE {
                    idle.push((key, process));
                }
                answer
            }
            Err(why) => {
                // The process goes (killed as it is dropped).
                log::debug!(target: "plugin", "git cat-file --batch: {why}");
                None
            }
        }
    }
}

/// One running `git cat-file --batch`.
pub(super) struct CatFile {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl CatFile {
    fn spawn(tools: &GitTools, repo: &Repository, neutral: &Neutral) -> Result<Self, GitError> {
        let mut argv = repo.dir_args();
        argv.extend(["cat-file", "--batch"].map(str::to_owned));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let mut cmd = process::command(tools, &repo.run_dir(), &argv, neutral)?;
        // Its complaints are not read (a full pipe would stall it); a
        // process that stops answering sends the question the one-shot
        // way, which says why.
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .map_err(|e| GitError::Failed(format!("cannot run git: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(GitError::Failed("git cat-file has no pipes".into()));
        };
        Ok(Self {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// Ask for `spec` (an object name the host built: hex, and `^{…}`).
    /// `Ok(None)`: missing or ambiguous; `Err`: this process is not to
    /// be asked again.
    async fn ask(&mut self, spec: &str) -> Result<Option<Object>, String> {
        if spec.contains(['\n', ' ']) {
            return Err(format!("{spec:?} is not an object name"));
        }
        let io = |e: std::io::Error| e.to_string();
        self.stdin
            .write_all(format!("{spec}\n").as_bytes())
            .await
            .map_err(io)?;
        self.stdin.flush().await.map_err(io)?;
        let mut header = Vec::new();
        (&mut self.stdout)
            .take(HEADER_LIMIT)
            .read_until(b'\n', &mut header)
            .await
            .map_err(io)?;
        let Some(header) = header.strip_suffix(b"\n") else {
            return Err("no answer (the process ended, or its header is too long)".into());
        };
        let header = std::str::from_utf8(header).map_err(|e| e.to_string())?;
        let fields: Vec<&str> = header.split(' ').collect();
        let (id, kind, size) = match fields.as_slice() {
            [_, "missing" | "ambiguous"] => return Ok(None),
            [id, kind, size] => (*id, *kind, *size),
            _ => return Err(format!("an answer out of shape: {header:?}")),
        };
        let size: u64 = size
            .parse()
            .map_err(|_| format!("a bad size: {header:?}"))?;
        if size > OUTPUT_LIMIT {
            // Not read: the process goes with what it was writing.
            return Err(format!("object {id} is larger than the answer's bound"));
        }
        let mut content = vec![0; size as usize + 1];
        self.stdout.read_exact(&mut content).await.map_err(io)?;
        if content.pop() != Some(b'\n') {
            return Err(format!("object {id} does not end where its size says"));
        }
        Ok(Some(Object {
            id: id.to_owned(),
            kind: kind.to_owned(),
            content,
        }))
    }
}

impl Drop for CatFile {
    /// Killed and reaped now, not whenever the runtime gets to it: when
    /// the operation is over, its processes are gone.
    fn drop(&mut self) {
        if self.child.start_kill().is_err() {
            return; // already reaped
        }
        let start = std::time::Instant::now();
        while start.elapsed() < REAP_WAIT {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }
}
