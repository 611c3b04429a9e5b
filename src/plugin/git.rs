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

    pub async fn head(&mut self) -> Result<Head, GitError> {
        if let Some(url) = self.remote.clone() {
            let listing = self.listing(&url).await?;
            return Ok(Head {
                branch: listing.head_branch,
                commit: listing.head_commit,
            });
        }
        self.prefetch(prefetch::HEAD_ROUND).await;
        let branch = self
            .ask(&prefetch::HEAD_BRANCH)
            .await
            .ok()
            .map(|b| b.trim_end().to_owned())
            .filter(|b| !b.is_empty());
        let commit = self
            .ask(&prefetch::HEAD_COMMIT)
            .await
            .ok()
            .map(|c| c.trim_end().to_owned())
            .filter(|c| !c.is_empty());
        Ok(Head { branch, commit })
    }

    pub async fn references(&mut self) -> Result<Vec<Reference>, GitError> {
        if let Some(url) = self.remote.clone() {
            return Ok(self.listing(&url).await?.refs);
        }
        self.prefetch(prefetch::LISTING_ROUND).await;
        let listing = self.ask(&prefetch::REFERENCES).await?;
        // No refs at all: `show-ref` and `config` exit 1, an empty answer.
        let empty_on_exit_1 = |answer: Result<String, GitError>| match answer {
            Err(GitError::Failed(m)) if m.is_empty() => Ok(String::new()),
            other => other,
        };
        let peeled = empty_on_exit_1(self.ask(&prefetch::PEELED).await)?;
        let configured = empty_on_exit_1(self.ask(&prefetch::UPSTREAM_CONFIG).await)?;
        let branches = configured_upstreams(&configured);
        let upstreams = if branches.is_empty() {
            String::new()
        } else {
            // The repository's own configuration names these (never a
            // guest); past a few hundred, every branch is asked instead.
            let mut args = vec!["for-each-ref", "--format=%(refname)%00%(upstream)"];
            let patterns: Vec<String> =
                branches.iter().map(|b| format!("refs/heads/{b}")).collect();
            if patterns.len() <= 200 {
                args.extend(patterns.iter().map(String::as_str));
            } else {
                args.push("refs/heads/");
            }
            self.git_once("upstreams", &args).await?
        };
        Ok(join_refs(&listing, &peeled, &upstreams))
    }

    pub async fn remotes(&mut self) -> Result<Vec<Remote>, GitError> {
        if self.remote.is_some() {
            return Ok(Vec::new());
        }
        self.prefetch(prefetch::LISTING_ROUND).await;
        // No remotes: `git config` exits 1, which is an empty answer.
        let out = match self.ask(&prefetch::REMOTES).await {
            Ok(out) => out,
            Err(GitError::Failed(m)) if m.is_empty() => String::new(),
            Err(e) => return Err(e),
        };
        Ok(parse_remotes(&out))
    }

    pub async fn stashes(&mut self) -> Result<Vec<Stash>, GitError> {
        if self.remote.is_some() {
            return Ok(Vec::new());
        }
        self.prefetch(prefetch::LISTING_ROUND).await;
        let out = match self.ask(&prefetch::STASHES).await {
            Ok(out) => out,
            // No stash: an empty answer.
            Err(GitError::NotFound(_)) | Err(GitError::Failed(_)) => String::new(),
            Err(e) => return Err(e),
        };
        Ok(parse_stashes(&out))
    }

    pub async fn submodules(&mut self) -> Result<Vec<Submodule>, GitError> {
        if self.remote.is_some() {
            return Ok(Vec::new());
        }
        let repo = self.repository().await?;
        let Some(tree) = repo.work_tree else {
            return Ok(Vec::new());
        };
        let gitmodules = Path::new(&tree).join(".gitmodules");
        if std::fs::symlink_metadata(&gitmodules).map_or(true, |m| !m.is_file()) {
            return Ok(Vec::new());
        }
        let config = self
            .git_once(
                "submodule-config",
                &[
                    "config",
                    "--null",
                    "--file",
                    ".gitmodules",
                    "--get-regexp",
                    r"^submodule\..*\.(path|url)$",
                ],
            )
            .await
            .unwrap_or_default();
        let staged = self
            .git_once("staged", &["ls-files", "--stage", "-z"])
            .await?;
        Ok(parse_submodules(&config, &staged))
    }

    /// `spec`'s object from the operation's batch process for this
    /// repository (`batch.rs`); `None`: ask the one-shot way.
    async fn batch_object(&mut self, spec: &str) -> Option<batch::Object> {
        let repo = self.repository().await.ok()?;
        let neutral = self.neutral().await.ok()?;
        let pool = match &self.memo {
            Some(memo) => &memo.batch,
            None => &self.batch,
        };
        pool.object(&self.tools, &repo, &neutral, spec).await
    }

    /// Whether the repository changes commits' parents as git reads
    /// them (a shallow clone's boundary, grafts): then only `git show`
    /// says what a commit's parents are. Asked once per operation.
    async fn grafted(&mut self) -> Result<bool, GitError> {
        let repo = self.repository().await?;
        let scope = format!("repo {}", repo.git_dir);
        let memo = self.memo.as_deref();
        if let Some(Ok(hit)) = memo.and_then(|m| m.get(&scope, "grafted")) {
            return Ok(hit == "yes");
        }
        let grafted = repo::grafted(Path::new(&repo.git_dir));
        if let Some(m) = memo {
            m.put(
                &scope,
                "grafted",
                &Ok(if grafted { "yes" } else { "no" }.into()),
            );
        }
        Ok(grafted)
    }

    pub async fn read_commit(&mut self, id: &str) -> Result<Commit, GitError> {
        self.remote_only_refs()?;
        check_id(id)?;
        let spec = format!("{id}^{{commit}}");
        if !self.grafted().await?
            && let Some(object) = self.batch_object(&spec).await
            && object.kind == "commit"
            && let Some(commit) = raw::commit_of_raw(&object.id, &object.content)
        {
            return Ok(commit);
        }
        self.read_commit_one_shot(&spec).await
    }

    /// [`GitScope::read_commit`] by one `git show` (`spec` checked).
    async fn read_commit_one_shot(&mut self, spec: &str) -> Result<Commit, GitError> {
        let id = spec.strip_suffix("^{commit}").unwrap_or(spec);
        let out = self
            .git(&[
                "show",
                "-s",
                "--no-show-signature",
                "--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%at%x00%ct%x00%s",
                spec,
                "--",
            ])
            .await?;
        parse_commit(&out).ok_or_else(|| GitError::Failed(format!("cannot read commit {id}")))
    }

    pub async fn read_tree(&mut self, id: &str) -> Result<Vec<TreeEntry>, GitError> {
        self.remote_only_refs()?;
        check_id(id)?;
        let spec = format!("{id}^{{tree}}");
        if let Some(object) = self.batch_object(&spec).await
            && object.kind == "tree"
            && let Some((entries, listed)) =
                raw::tree_of_raw(&object.content, object.id.len() / 2)
            // Past the one-shot answer's bound, that answer's refusal.
            && listed as u64 <= OUTPUT_LIMIT
        {
            return Ok(entries);
        }
        self.read_tree_one_shot(&spec).await
    }

    /// [`GitScope::read_tree`] by one `git ls-tree` (`spec` checked).
    async fn read_tree_one_shot(&mut self, spec: &str) -> Result<Vec<TreeEntry>, GitError> {
        let repo = self.repository().await?;
        let neutral = self.neutral().await?;
        let mut argv = repo.dir_args();
        argv.extend(["ls-tree", "-z", "--full-tree", spec].map(str::to_owned));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let out = process::run_bytes(&self.tools, &repo.run_dir(), &argv, &neutral).await?;
        Ok(parse_tree(&out))
    }

    pub async fn blob_id(&mut self, path: &str) -> Result<Option<String>, GitError> {
        self.remote_only_refs()?;
        check_path(path)?;
        let repo = self.repository().await?;
        let Some(tree) = repo.work_tree else {
            return Err(GitError::Invalid(
                "a bare repository has no work tree".into(),
            ));
        };
        let Some(content) = read_in_tree(Path::new(&tree), path)? else {
            return Ok(None);
        };
        let out = self
            .git_stdin(
                &["hash-object", "-t", "blob", "--stdin", "--no-filters"],
                content,
            )
            .await?;
        Ok(Some(out.trim_end().to_owned()))
    }

    pub async fn status(&mut self, path: Option<&str>) -> Result<Vec<PathStatus>, GitError> {
        self.remote_only_refs()?;
        let out = match path {
            None => {
                // A bare repository has no status: its listing is not
                // asked ahead either.
                if self.repository().await.is_ok_and(|r| r.work_tree.is_some()) {
                    self.prefetch(prefetch::STATUS_ROUND).await;
                }
                self.ask(&prefetch::STATUS).await?
            }
            Some(path) => {
                check_path(path)?;
                let mut args = prefetch::STATUS.args.to_vec();
                args.push(path);
                self.git(&args).await?
            }
        };
        Ok(parse_status(&out))
    }

    pub async fn divergence(&mut self, branch: &str) -> Result<Option<(u32, u32)>, GitError> {
        self.remote_only_refs()?;
        check_branch(branch)?;
        // `<branch>@{upstream}` takes a branch's name, not its full ref
        // (`refs/heads/x@{upstream}` is "no such branch").
        let range = format!("refs/heads/{branch}...{branch}@{{upstream}}");
        match self
            .git(&["rev-list", "--left-right", "--count", &range, "--"])
            .await
        {
            Ok(out) => {
                let mut counts = out.split_whitespace().map(|n| n.parse::<u32>().ok());
                Ok(match (counts.next().flatten(), counts.next().flatten()) {
                    (Some(ahead), Some(behind)) => Some((ahead, behind)),
                    _ => None,
                })
            }
            // No upstream (or no such branch): nothing to compare.
            Err(GitError::NotFound(_)) | Err(GitError::Failed(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub async fn last_commit(&mut self, path: &str) -> Result<Option<Commit>, GitError> {
        self.remote_only_refs()?;
        check_path(path)?;
        let out = match self
            .git(&[
                "log",
                "-1",
                "--no-show-signature",
                "--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%at%x00%ct%x00%s",
                "HEAD",
                "--",
                path,
            ])
            .await
        {
            Ok(out) => out,
            Err(GitError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(parse_commit(&out))
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
mod prefetch;
mod process;
mod raw;
mod remote;
mod repo;

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
