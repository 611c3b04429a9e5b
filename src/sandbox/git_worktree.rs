//! The `git_worktree` strategy: the one home of how a git checkout is
//! sandboxed, checkpointed, rolled back, compared and applied.
//!
//! A sandbox is a *detached* `git worktree` of the original's HEAD at
//! `<area>/work`; its `base` is that HEAD's commit id. Everything is done
//! with the `git` CLI (fixed argv, no shell, `-C <dir>`, a cleared
//! environment with `GIT_CONFIG_NOSYSTEM=1`, no global config, no hooks,
//! no commit signing, and the identity `agents <agents@localhost>` for the
//! commits the sandbox makes).
//!
//! Decisions a user should know about:
//!
//! * **Uncommitted changes of the original are not carried over.** The
//!   sandbox starts from the original's last commit (HEAD); staged,
//!   unstaged and untracked changes in the original's work tree are not in
//!   it. Commit (or stash) them first if the agent should see them.
//! * **The original's work tree and branches are never written.** Only its
//!   `.git` gains what a worktree needs (`worktrees/<name>`), objects, the
//!   refs `refs/agents/sandbox/<area-name>/<n>` and, on `apply`, one new
//!   branch `agents/sandbox-<area-name>`.
//! * **A checkpoint** is a commit of the working copy's whole state:
//!   tracked files (staged or not), deletions, and untracked files that
//!   are *not ignored*. Ignored files (build outputs such as `target/`) are
//!   outside checkpoints. It is built in a temporary index
//!   (`<area>/checkpoint.index`, seeded from the sandbox's index for speed),
//!   so the agent's HEAD and index do not move. Its parents: the previous
//!   checkpoint (or `base`); the sandbox's HEAD at that moment is kept in
//!   the message as `Agents-Sandbox-Head: <sha>`. The ref
//!   `refs/agents/sandbox/<area-name>/<n>` keeps it from `git gc`; it is
//!   written last and only if it did not exist, so a crash halfway leaves
//!   at most an unreferenced commit and the earlier checkpoints usable.
//! * **Rollback** makes the working copy exactly the checkpoint's tree
//!   (contents, modes, symlinks, deletions) and removes untracked,
//!   non-ignored files created since (`git clean -fd`, under both the
//!   current and the restored ignore rules). Ignored files are neither
//!   restored nor deleted; nested repositories are left alone. HEAD goes
//!   back (detached) to the commit it was on at the checkpoint and the
//!   index is reset to it: what was staged is unstaged, not lost. Only
//!   checkpoints of this sandbox are accepted. Every step can be repeated,
//!   so a rollback that failed halfway is finished by running it again.
//! * **Diff** compares the whole current state (as a checkpoint would
//!   record it) with `base`; a type or mode change counts as modified;
//!   renames are a deletion plus an addition.
//! * **Apply** creates the branch `agents/sandbox-<area-name>` in the
//!   original repository at a commit of the whole current state whose
//!   parent is the sandbox's HEAD (or at HEAD itself when nothing is
//!   uncommitted). It is refused when that branch exists already; it never
//!   moves the user's branches, HEAD, index or work tree.
//! * **Destroy** removes the worktree (`git worktree remove --force`, or
//!   `git worktree prune` if it is gone already), the sandbox's refs under
//!   `refs/agents/sandbox/<area-name>/` and the area. The applied branch
//!   stays: it belongs to the user now.
//!
//! The area's directory name becomes a ref component, so it must be plain
//! (ASCII letters, digits, `-`, `_`; a ULID is); anything else is refused.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};

/// The trailer that records the sandbox's HEAD in a checkpoint commit.
const HEAD_TRAILER: &str = "Agents-Sandbox-Head: ";

/// The `git_worktree` strategy. `program` is the `git` to run (by default
/// `git`, found on `PATH`).
#[derive(Debug, Clone)]
pub struct GitWorktree {
    program: PathBuf,
}

impl Default for GitWorktree {
    fn default() -> Self {
        Self::new("git")
    }
}

impl GitWorktree {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
        }
    }

    /// Runs `git -C dir args…` in a controlled environment and returns its
    /// stdout, or the failure with its stderr.
    fn git(
        &self,
        dir: &Path,
        args: &[&OsStr],
        env: &[(&str, &OsStr)],
    ) -> Result<String, SandboxError> {
        let mut cmd = Command::new(&self.program);
        cmd.env_clear()
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "color.ui=false",
                "--no-pager",
            ])
            .args(args)
            .stdin(Stdio::null());
        cmd.envs(crate::git_env::hermetic());
        // The identity of the commits a sandbox makes.
        for (key, value) in [
            ("GIT_AUTHOR_NAME", "agents"),
            ("GIT_AUTHOR_EMAIL", "agents@localhost"),
            ("GIT_COMMITTER_NAME", "agents"),
            ("GIT_COMMITTER_EMAIL", "agents@localhost"),
        ] {
            cmd.env(key, value);
        }
        for (key, value) in env {
            cmd.env(key, value);
        }
        let failed = |stderr: String| SandboxError::Git {
            args: args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            dir: dir.to_path_buf(),
            stderr,
        };
        let out = cmd.output().map_err(|source| SandboxError::Io {
            what: "cannot run git",
            path: self.program.clone(),
            source,
        })?;
        if !out.status.success() {
            return Err(failed(
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Result<String, SandboxError> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        self.git(dir, &args, &[])
    }

    /// The tree of the working copy's whole state (see the module doc),
    /// built in a temporary index so the sandbox's own index is untouched.
    fn whole_state_tree(&self, place: &SandboxPlace) -> Result<String, SandboxError> {
        let temp = place.area.join("checkpoint.index");
        let real = self.run(
            &place.workdir,
            &["rev-parse", "--path-format=absolute", "--git-path", "index"],
        )?;
        let real = PathBuf::from(real.trim());
        let _ = std::fs::remove_file(&temp);
        if real.exists() {
            std::fs::copy(&real, &temp).map_err(|source| SandboxError::Io {
                what: "cannot copy the sandbox's index to",
                path: temp.clone(),
                source,
            })?;
        }
        let env = [("GIT_INDEX_FILE", temp.as_os_str())];
        let tree = self
            .git(&place.workdir, &[OsStr::new("add"), OsStr::new("-A")], &env)
            .and_then(|_| self.git(&place.workdir, &[OsStr::new("write-tree")], &env));
        let _ = std::fs::remove_file(&temp);
        Ok(tree?.trim().to_string())
    }

    /// This sandbox's checkpoints, oldest first: `(n, sha)`.
    fn checkpoints(&self, place: &SandboxPlace) -> Result<Vec<(u64, String)>, SandboxError> {
        let prefix = ref_prefix(place)?;
        let out = self.run(
            &place.original,
            &["for-each-ref", "--format=%(refname) %(objectname)", &prefix],
        )?;
        let mut found: Vec<(u64, String)> = out
            .lines()
            .filter_map(|line| {
                let (name, sha) = line.split_once(' ')?;
                let n = name.strip_prefix(&prefix)?.parse().ok()?;
                Some((n, sha.to_string()))
            })
            .collect();
        found.sort();
        Ok(found)
    }

    fn head(&self, workdir: &Path) -> Result<String, SandboxError> {
        Ok(self
            .run(workdir, &["rev-parse", "--verify", "HEAD^{commit}"])?
            .trim()
            .to_string())
    }
}

/// The area's directory name, checked to be a plain ref component.
fn area_name(area: &Path) -> Result<&str, SandboxError> {
    let name = area.file_name().and_then(OsStr::to_str).unwrap_or("");
    let plain = !name.is_empty()
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        Ok(name)
    } else {
        Err(SandboxError::Unsuitable(format!(
            "the sandbox area {} must be named with ASCII letters, digits, '-' or '_' (its name becomes a git ref); use an id such as a ULID",
            area.display()
        )))
    }
}

fn ref_prefix(place: &SandboxPlace) -> Result<String, SandboxError> {
    Ok(format!("refs/agents/sandbox/{}/", area_name(&place.area)?))
}

impl Strategy for GitWorktree {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        area_name(area)?;
        let not_a_checkout = |why: String| {
            SandboxError::Unsuitable(format!(
                "{} is not the root of a git work tree ({why}); a git_worktree sandbox needs a git checkout with at least one commit",
                original.display()
            ))
        };
        let top = self
            .run(original, &["rev-parse", "--show-toplevel"])
            .map_err(|e| match e {
                SandboxError::Git { stderr, .. } => not_a_checkout(stderr),
                other => other,
            })?;
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if canonical(Path::new(top.trim())) != canonical(original) {
            return Err(not_a_checkout(format!(
                "its work tree's root is {}",
                top.trim()
            )));
        }
        let base = self.head(original).map_err(|_| {
            SandboxError::Unsuitable(format!(
                "the git repository at {} has no commits yet; commit something first (a sandbox starts from HEAD)",
                original.display()
            ))
        })?;
        let workdir = area.join("work");
        self.git(
            original,
            &[
                OsStr::new("worktree"),
                OsStr::new("add"),
                OsStr::new("--detach"),
                OsStr::new("--quiet"),
                workdir.as_os_str(),
                OsStr::new(&base),
            ],
            &[],
        )?;
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir,
            base,
        })
    }

    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
        let prefix = ref_prefix(place)?;
        let tree = self.whole_state_tree(place)?;
        let head = self.head(&place.workdir)?;
        let existing = self.checkpoints(place)?;
        let (n, parent) = match existing.last() {
            Some((n, sha)) => (n + 1, sha.clone()),
            None => (1, place.base.clone()),
        };
        let message = format!("{label}\n\n{HEAD_TRAILER}{head}\n");
        let sha = self.run(
            &place.workdir,
            &["commit-tree", &tree, "-p", &parent, "-m", &message],
        )?;
        let sha = sha.trim().to_string();
        // The empty old value: never overwrite a checkpoint someone else
        // recorded meanwhile.
        self.run(
            &place.original,
            &["update-ref", &format!("{prefix}{n}"), &sha, ""],
        )?;
        Ok(CheckpointRef(sha))
    }

    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
        if !self.checkpoints(place)?.iter().any(|(_, sha)| *sha == to.0) {
            return Err(SandboxError::NoCheckpoint(to.0.clone()));
        }
        // The last trailer line: the label (written first) cannot forge it.
        let commit = self.run(&place.workdir, &["cat-file", "commit", &to.0])?;
        let head = commit
            .lines()
            .filter_map(|l| l.strip_prefix(HEAD_TRAILER))
            .next_back()
            .map(str::trim)
            .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| SandboxError::NoCheckpoint(to.0.clone()))?
            .to_string();
        let dir = &place.workdir;
        // Untracked files under today's ignore rules, then the checkpoint's
        // tree, then untracked files under the checkpoint's ignore rules.
        // Each step can be repeated: a rollback that failed halfway is
        // finished by running it again.
        self.run(dir, &["clean", "-fdq"])?;
        self.run(
            dir,
            &["read-tree", "--reset", "-u", &format!("{}^{{tree}}", to.0)],
        )?;
        self.run(dir, &["clean", "-fdq"])?;
        self.run(dir, &["update-ref", "--no-deref", "HEAD", &head])?;
        self.run(dir, &["reset", "-q"])?;
        Ok(())
    }

    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        let tree = self.whole_state_tree(place)?;
        let out = self.run(
            &place.workdir,
            &[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-status",
                &place.base,
                &tree,
            ],
        )?;
        let mut diff = SandboxDiff::default();
        let mut fields = out.split('\0').filter(|f| !f.is_empty());
        while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
            let list = match status {
                "A" => &mut diff.added,
                "D" => &mut diff.deleted,
                _ => &mut diff.modified,
            };
            list.push(path.to_string());
        }
        diff.added.sort();
        diff.modified.sort();
        diff.deleted.sort();
        let log = self.run(
            &place.workdir,
            &[
                "log",
                "--reverse",
                "--format=%H %s",
                &format!("{}..HEAD", place.base),
            ],
        )?;
        diff.commits = log.lines().map(str::to_string).collect();
        Ok(diff)
    }

    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError> {
        let branch = format!("agents/sandbox-{}", area_name(&place.area)?);
        let full = format!("refs/heads/{branch}");
        if self
            .run(
                &place.original,
                &["rev-parse", "--verify", "--quiet", &full],
            )
            .is_ok()
        {
            return Err(SandboxError::Unsuitable(format!(
                "branch {branch} already exists in {}; this sandbox was applied already (delete or rename that branch to apply again)",
                place.original.display()
            )));
        }
        let head = self.head(&place.workdir)?;
        let tree = self.whole_state_tree(place)?;
        let head_tree = self.run(&place.workdir, &["rev-parse", &format!("{head}^{{tree}}")])?;
        let commit = if head_tree.trim() == tree {
            head
        } else {
            let message = format!("agents: sandbox {branch}");
            self.run(
                &place.workdir,
                &["commit-tree", &tree, "-p", &head, "-m", &message],
            )?
            .trim()
            .to_string()
        };
        // The empty old value makes creation atomic: it fails if the branch
        // appeared since the check above.
        self.run(&place.original, &["update-ref", &full, &commit, ""])?;
        Ok(Applied::Branch(branch))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        if place.workdir.exists() {
            self.git(
                &place.original,
                &[
                    OsStr::new("worktree"),
                    OsStr::new("remove"),
                    OsStr::new("--force"),
                    OsStr::new("--force"),
                    place.workdir.as_os_str(),
                ],
                &[],
            )?;
        } else {
            self.run(&place.original, &["worktree", "prune"])?;
        }
        let prefix = ref_prefix(place)?;
        for (n, sha) in self.checkpoints(place)? {
            self.run(
                &place.original,
                &["update-ref", "-d", &format!("{prefix}{n}"), &sha],
            )?;
        }
        match std::fs::remove_dir_all(&place.area) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(SandboxError::Io {
                what: "cannot remove the sandbox area",
                path: place.area.clone(),
                source,
            }),
        }
    }
}

#[cfg(test)]
#[path = "tests_git.rs"]
mod tests;
