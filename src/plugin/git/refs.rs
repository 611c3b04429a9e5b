//! What a repository lists: HEAD, its refs (peeled, with their
//! upstreams), remotes, stashes and submodules — for a remote, what its
//! `ls-remote` listing says. The local answers are the fixed questions
//! asked a round at a time (`prefetch.rs`) and kept in the operation's
//! memo.

use super::{GitError, GitScope, Head, Reference, Remote, Stash, Submodule, prefetch};
use super::{configured_upstreams, join_refs, parse_remotes, parse_stashes, parse_submodules};
use std::path::Path;

impl GitScope {
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
}
