//! The host side of the `git` interface: the one home of how the host
//! answers git questions for a handler.
//!
//! **Scoped by the host.** A call's questions are about the repository
//! that contains the call's location (the directory the sandbox's view was
//! checked against): git is run from that very directory (through its
//! open descriptor, `/proc/self/fd/N`), so the guest cannot name another
//! repository; object ids it passes must be hex ids and paths must be
//! relative without `..`, so nothing it says can become an option, a
//! revision expression or a path outside.
//!
//! **The git CLI, fixed argv, no shell.** Each answer is one `git`
//! invocation (a few for some; a commit or a tree is one line to the
//! operation's `git cat-file --batch`, `batch.rs`), run with a cleared
//! environment (no user or system config, no pager, no prompt, no
//! optional locks, fsmonitor off), stdin closed, output bounded, and
//! killed if the call's deadline
//! passes while it runs (`kill_on_drop`: the call's future owns it). The
//! CLI was chosen over gitoxide after measuring both (README, "The git
//! capability"): comparable on these queries, and no large new dependency.
//!
//! **One snapshot per registry operation.** Registering a checkout asks
//! the same repository-wide questions in several calls (its validation,
//! the repository's discovery, its content hash). Within one operation
//! the host answers each of those from one [`GitMemo`] — a consistent
//! snapshot, and a third of the processes. Only a fixed set of questions
//! about the whole repository is kept (never one a guest parametrises),
//! and the memo is bounded in bytes. Questions that always come together
//! are asked as one round, their processes side by side, when the first
//! of them is asked (`prefetch.rs`).
//!
//! What git answers and how its `-z` / `%x00` formatted output is read
//! are pure data and functions in `answers.rs`, unit tested in `tests.rs`;
//! running one git process is `process.rs`, the operation's snapshot
//! `memo.rs`, its batch process `batch.rs` (raw objects read in
//! `raw.rs`), and what a guest may name `checks.rs`.
//!
//! This file is the scope a call's questions are asked in: which
//! repository, the overrides that neutralise its configuration, and
//! running git on it (a fixed question once per operation). The questions
//! themselves are answered in rooms beside it: what a repository lists —
//! HEAD, refs, remotes, stashes, submodules (`refs.rs`); its objects —
//! commits, trees, a file's blob id (`objects.rs`); and how its work tree
//! and branches stand — status, divergence, a path's last commit
//! (`status.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a call's git questions are asked from: the directory git runs
/// in (a path to the view's open descriptor) and that directory's
/// identity (device and inode, for the memo).
#[derive(Debug, Clone)]
pub(crate) struct GitDir {
    pub path: PathBuf,
    pub identity: (u64, u64),
}

/// The git questions of one call: the directory it runs git from and the
/// repository found there (looked up once per call, or once per
/// operation through its memo).
#[derive(Debug)]
pub(crate) struct GitScope {
    dir: Option<GitDir>,
    /// A remote repository's URL (checked): the questions are about it
    /// instead (`remote.rs`).
    remote: Option<String>,
    repo: Option<Result<Repository, GitError>>,
    neutral: Option<Arc<Neutral>>,
    memo: Option<Arc<GitMemo>>,
    /// The call's own batch processes, when there is no operation's memo
    /// to keep them (`batch.rs`).
    batch: BatchPool,
    /// Which `git` runs, and the `PATH` it is handed.
    tools: Arc<GitTools>,
}

impl GitScope {
    /// Questions about the repository containing `dir` (none: every
    /// question answers `not-a-repository`), answered from `memo` when
    /// the operation keeps one.
    pub fn new(dir: Option<GitDir>, memo: Option<Arc<GitMemo>>, tools: Arc<GitTools>) -> Self {
        Self {
            dir,
            remote: None,
            repo: None,
            neutral: None,
            memo,
            batch: BatchPool::default(),
            tools,
        }
    }

    /// Questions about the remote repository at `url` (checked before
    /// git is run for it): only its refs are known.
    pub fn remote(url: String, memo: Option<Arc<GitMemo>>, tools: Arc<GitTools>) -> Self {
        Self {
            remote: Some(url),
            ..Self::new(None, memo, tools)
        }
    }

    /// The remote's listing, once per operation.
    async fn listing(&self, url: &str) -> Result<remote::Listing, GitError> {
        let scope = format!("remote {url}");
        let memo = self.memo.as_deref();
        let out = match memo.and_then(|m| m.get(&scope, "ls-remote")) {
            Some(hit) => hit,
            None => {
                let answer = remote::ls_remote(&self.tools, url).await;
                if let Some(m) = memo {
                    m.put(&scope, "ls-remote", &answer);
                }
                answer
            }
        }?;
        Ok(remote::parse_listing(&out))
    }

    /// The refusal of a question a remote cannot answer here.
    fn remote_only_refs(&self) -> Result<(), GitError> {
        match &self.remote {
            Some(url) => Err(GitError::NotARepository(format!(
                "{url} is a remote repository: only its refs are known (git ls-remote), not its \
                 objects, files or status"
            ))),
            None => Ok(()),
        }
    }

    pub async fn repository(&mut self) -> Result<Repository, GitError> {
        if let Some(done) = &self.repo {
            return done.clone();
        }
        let found = self.find_repository().await;
        self.repo = Some(found.clone());
        found
    }

    async fn find_repository(&self) -> Result<Repository, GitError> {
        if let Some(url) = &self.remote {
            // Asked now, so that an unreachable remote is said at once.
            let listing = self.listing(url).await?;
            let id_length = listing
                .head_commit
                .as_ref()
                .or(listing.refs.first().map(|r| &r.target))
                .map_or(40, |id| id.len() as u32);
            return Ok(Repository {
                git_dir: url.clone(),
                work_tree: None,
                id_length,
            });
        }
        let Some(dir) = &self.dir else {
            return Err(GitError::NotARepository(
                "this call has no location".to_owned(),
            ));
        };
        let scope = format!("dir {}:{}", dir.identity.0, dir.identity.1);
        let memo = self.memo.as_deref();
        let out = match memo.and_then(|m| m.get(&scope, "repository")) {
            Some(hit) => hit,
            None => {
                let answer = locate(&self.tools, &dir.path).await;
                if let Some(m) = memo {
                    m.put(&scope, "repository", &answer);
                }
                answer
            }
        }?;
        repository_of(&out)
    }

    /// The overrides that keep git from running what this repository's
    /// configuration names ([`Neutral`]): its configuration listed once
    /// per call, or once per operation through the memo.
    async fn neutral(&mut self) -> Result<Arc<Neutral>, GitError> {
        if let Some(done) = &self.neutral {
            return Ok(done.clone());
        }
        let repo = self.repository().await?;
        let scope = format!("repo {}", repo.git_dir);
        let memo = self.memo.as_deref();
        let listing = match memo.and_then(|m| m.get(&scope, "config")) {
            Some(hit) => hit.map(String::into_bytes),
            None => {
                let answer = list_config(&self.tools, &repo).await;
                // The memo keeps text: a listing that is not UTF-8 is
                // asked again rather than changed.
                if let Some(m) = memo {
                    match &answer {
                        Ok(bytes) => {
                            if let Ok(text) = std::str::from_utf8(bytes) {
                                m.put(&scope, "config", &Ok(text.to_owned()));
                            }
                        }
                        Err(e) => m.put(&scope, "config", &Err(e.clone())),
                    }
                }
                answer
            }
        }?;
        let neutral = Neutral::from_listing(&listing, &repo.run_dir(), None)
            .map_err(|e| GitError::Failed(e.to_string()))?;
        let neutral = Arc::new(neutral);
        self.neutral = Some(neutral.clone());
        Ok(neutral)
    }

    /// `git ARGS` on the repository, answered once per operation: only
    /// for fixed questions about the whole repository (`question` names
    /// one; a guest's arguments never reach here).
    async fn git_once(
        &mut self,
        question: &'static str,
        args: &[&str],
    ) -> Result<String, GitError> {
        let repo = self.repository().await?;
        let scope = format!("repo {}", repo.git_dir);
        if let Some(hit) = self.memo.as_deref().and_then(|m| m.get(&scope, question)) {
            return hit;
        }
        let answer = self.git(args).await;
        if let Some(memo) = &self.memo {
            memo.put(&scope, question, &answer);
        }
        answer
    }

    /// One of the fixed questions (`prefetch.rs`), answered once per
    /// operation.
    async fn ask(&mut self, question: &prefetch::Question) -> Result<String, GitError> {
        self.git_once(question.name, question.args).await
    }

    /// Run git on the repository (its git dir and, if any, work tree),
    /// neutralised.
    async fn git(&mut self, args: &[&str]) -> Result<String, GitError> {
        let repo = self.repository().await?;
        let neutral = self.neutral().await?;
        let mut argv = repo.dir_args();
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run(&self.tools, &repo.run_dir(), &argv, &neutral).await
    }

    async fn git_stdin(&mut self, args: &[&str], input: Vec<u8>) -> Result<String, GitError> {
        let repo = self.repository().await?;
        let neutral = self.neutral().await?;
        let git_dir = format!("--git-dir={}", repo.git_dir);
        let mut argv = vec![git_dir.as_str()];
        argv.extend_from_slice(args);
        run_with(
            &self.tools,
            Path::new(&repo.git_dir),
            &argv,
            Some(input),
            &neutral,
        )
        .await
    }
}

mod answers;
mod batch;
mod checks;
mod memo;
mod objects;
mod prefetch;
mod process;
mod raw;
mod refs;
mod remote;
mod repo;
mod status;

use crate::git_env::{GitTools, Neutral};
pub(crate) use answers::*;
pub(crate) use batch::BatchPool;
use checks::{check_branch, check_id, check_path};
pub use memo::GitSnapshot;
pub(crate) use memo::{GitMemo, MemoSlot};
use process::{OUTPUT_LIMIT, classify, git_output, run, run_with};
use repo::{list_config, locate, read_in_tree, repository_of};

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod tests;
