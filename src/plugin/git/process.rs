//! Running one `git` process: a fixed argv, a cleared environment, the
//! repository's command-bearing configuration overridden
//! ([`crate::git_env::Neutral`]), stdin closed (or fed), output bounded,
//! killed when the call's future is dropped; and what its complaint
//! means.

use super::GitError;
use crate::git_env::{GitTools, Neutral};
use std::path::Path;
use std::process::Stdio;
use tokio::io::AsyncReadExt;

/// Bytes of output one git invocation may produce.
pub(super) const OUTPUT_LIMIT: u64 = 32 * 1024 * 1024;
/// Bytes of stderr kept for an error message.
const STDERR_LIMIT: u64 = 4 * 1024;

/// Run `git ARGS` (the `git` that `git` finds) in `dir`, neutralised by
/// `neutral`, and answer its stdout (bounded, lossy UTF-8).
pub(super) async fn run(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    neutral: &Neutral,
) -> Result<String, GitError> {
    run_with(git, dir, args, None, neutral).await
}

/// [`run`], its stdout as bytes (names that are not UTF-8 kept).
pub(super) async fn run_bytes(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    neutral: &Neutral,
) -> Result<Vec<u8>, GitError> {
    let out = git_output(git, dir, args, None, neutral).await?;
    if out.success {
        Ok(out.stdout)
    } else {
        Err(classify(out.stderr))
    }
}

pub(super) async fn run_with(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    input: Option<Vec<u8>>,
    neutral: &Neutral,
) -> Result<String, GitError> {
    let out = git_output(git, dir, args, input, neutral).await?;
    if out.success {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(classify(out.stderr))
    }
}

/// What one git process said.
pub(super) struct GitOutput {
    pub success: bool,
    /// Its bytes, at most [`OUTPUT_LIMIT`].
    pub stdout: Vec<u8>,
    /// Its first few KiB, trimmed.
    pub stderr: String,
}

/// Run one git process: the host's `git` (found through the absolute
/// entries of the `PATH` that `git` was handed), `neutral`'s overrides, a
/// hermetic environment, no optional locks, no pager, stdin closed (or
/// fed `input`).
pub(super) async fn git_output(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    input: Option<Vec<u8>>,
    neutral: &Neutral,
) -> Result<GitOutput, GitError> {
    git_output_with_env(git, dir, args, input, neutral, &[]).await
}

/// [`git_output`], with `env` set over the hermetic environment (a
/// remote's transports: `remote.rs`).
pub(super) async fn git_output_with_env(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    input: Option<Vec<u8>>,
    neutral: &Neutral,
    env: &[(&str, &str)],
) -> Result<GitOutput, GitError> {
    let mut cmd = command(git, dir, args, neutral)?;
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd.envs(env.iter().copied());
    let mut child = cmd
        .spawn()
        .map_err(|e| GitError::Failed(format!("cannot run git: {e}")))?;
    let feeding = async {
        if let Some(input) = input
            && let Some(mut stdin) = child.stdin.take()
        {
            use tokio::io::AsyncWriteExt;
            stdin.write_all(&input).await?;
        }
        Ok::<_, std::io::Error>(())
    };
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    // All at once: git blocked writing one pipe while the other is read
    // would wait for the deadline.
    let reading_out = async {
        if let Some(out) = out {
            out.take(OUTPUT_LIMIT + 1).read_to_end(&mut stdout).await?;
        }
        if stdout.len() as u64 > OUTPUT_LIMIT {
            // Stop here: the child goes (killed when dropped).
            return Err(std::io::Error::other(format!(
                "its answer is larger than {} MiB",
                OUTPUT_LIMIT >> 20
            )));
        }
        Ok::<_, std::io::Error>(())
    };
    let reading_err = async {
        if let Some(mut err) = err {
            (&mut err)
                .take(STDERR_LIMIT)
                .read_to_end(&mut stderr)
                .await?;
            // The rest is drained, not kept.
            tokio::io::copy(&mut err, &mut tokio::io::sink()).await?;
        }
        Ok::<_, std::io::Error>(())
    };
    tokio::try_join!(feeding, reading_out, reading_err)
        .map_err(|e| GitError::Failed(format!("git: {e}")))?;
    let status = child
        .wait()
        .await
        .map_err(|e| GitError::Failed(format!("git: {e}")))?;
    Ok(GitOutput {
        success: status.success(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).trim().to_owned(),
    })
}

/// The one way every git process of the host is made: the host's `git`
/// (found through the absolute entries of the `PATH` that `git` was
/// handed), `neutral`'s overrides and the fixed safety options before
/// `args`, in `dir`, a hermetic environment (reads only: no optional
/// locks, no replace objects), killed when dropped. Its pipes are the
/// caller's to set.
pub(super) fn command(
    git: &GitTools,
    dir: &Path,
    args: &[&str],
    neutral: &Neutral,
) -> Result<tokio::process::Command, GitError> {
    let program = git.find().map_err(GitError::Failed)?;
    let mut cmd = tokio::process::Command::new(program.path);
    cmd.current_dir(dir)
        .env_clear()
        .args(neutral.args())
        .args([
            "-c",
            "core.untrackedCache=false",
            "-c",
            "color.ui=false",
            "--no-optional-locks",
            "--no-pager",
        ])
        .args(args)
        .kill_on_drop(true);
    cmd.envs(program.hermetic());
    // Reads only: take no optional locks, see the objects as they are.
    for (key, value) in [("GIT_OPTIONAL_LOCKS", "0"), ("GIT_NO_REPLACE_OBJECTS", "1")] {
        cmd.env(key, value);
    }
    Ok(cmd)
}

/// What git's complaint means.
pub(super) fn classify(message: String) -> GitError {
    let lower = message.to_lowercase();
    if lower.contains("not a git repository") {
        GitError::NotARepository(message)
    } else if lower.contains("unknown revision")
        || lower.contains("not a valid object name")
        || lower.contains("bad object")
        || lower.contains("does not exist")
        || lower.contains("bad revision")
        || lower.contains("no such ref")
        || lower.contains("ambiguous argument")
    {
        GitError::NotFound(message)
    } else {
        GitError::Failed(message)
    }
}
