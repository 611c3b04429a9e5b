//! How the work tree and its branches stand: the status of the work tree
//! (or of one path), how far a branch has diverged from its upstream, and
//! the last commit that touched a path.

use super::{Commit, GitError, GitScope, PathStatus, prefetch};
use super::{check_branch, check_path, parse_commit, parse_status};

impl GitScope {
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
}
