//! Reading a repository's objects: a commit, a tree, and the blob id a
//! work tree file would have. A commit or a tree comes from the
//! operation's `git cat-file --batch` process (`batch.rs`) when it can,
//! and the one-shot `git show` / `git ls-tree` otherwise — always for a
//! grafted or shallow repository, whose parents only `git show` tells
//! right.

use super::{Commit, GitError, GitScope, OUTPUT_LIMIT, TreeEntry, batch, raw, repo};
use super::{check_id, check_path, parse_commit, parse_tree, process, read_in_tree};
use std::path::Path;

impl GitScope {
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
    pub(super) async fn read_commit_one_shot(&mut self, spec: &str) -> Result<Commit, GitError> {
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
    pub(super) async fn read_tree_one_shot(
        &mut self,
        spec: &str,
    ) -> Result<Vec<TreeEntry>, GitError> {
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
}
