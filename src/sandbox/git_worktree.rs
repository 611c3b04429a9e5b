//! The `git_worktree` strategy: the one home of how a git checkout is
//! sandboxed, checkpointed, rolled back, compared and applied.
//!
//! A sandbox is a *detached* `git worktree` of the original's HEAD at
//! `<area>/work`; its `base` is that HEAD's commit id. Everything is done
//! with the `git` CLI (fixed argv, no shell, a cleared environment with
//! no system or global config, and the identity `agents
//! <agents@localhost>` for the commits the sandbox makes), naming the git
//! directory and work tree from the host's own records and with every
//! program the repository's configuration names overridden (`repo.rs`,
//! [`crate::git_env::Neutral`]): the agent's `<workdir>/.git` is never
//! followed.
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
//!   outside checkpoints. It is built in the host's own index
//!   (`<area>/state.index`, seeded at creation from the index `git
//!   worktree add` wrote, its time kept), so the agent's HEAD and index
//!   neither move nor are trusted. That index is never copied: git's
//!   rule for stat information that may be stale ("racily clean": an
//!   entry not older than the index file is re-read) holds only while the
//!   index file keeps the time git gave it — a copy of the agent's index
//!   once made a same-size write in the same clock tick invisible to a
//!   checkpoint, and a rollback then lost it. Its parents: the previous
//!   checkpoint (or `base`); the sandbox's HEAD at that moment is kept in
//!   the message as `Agents-Sandbox-Head: <sha>`. The ref
//!   `refs/agents/sandbox/<area-name>/<n>` keeps it from `git gc`; it is
//!   written last and only if it did not exist, so a crash halfway leaves
//!   at most an unreferenced commit and the earlier checkpoints usable.
//! * **Modes**: git keeps a file's executable bit only; each checkpoint
//!   also records every file's and directory's permission bits beside it
//!   (`<area>/modes/<commit>`, `modes.rs`), and rollback puts them back.
//! * **Rollback** makes the working copy exactly the checkpoint's tree
//!   (contents, full modes, symlinks, deletions), removes special files
//!   (FIFOs, sockets, devices: never part of a checkpoint) and untracked,
//!   non-ignored files created since (`git clean -fd`, under both the
//!   current and the restored ignore rules). Ignored files are neither
//!   restored nor deleted; nested repositories are left alone. HEAD goes
//!   back (detached) to the commit it was on at the checkpoint and the
//!   index is reset to it: what was staged is unstaged, not lost. Only
//!   checkpoints of this sandbox are accepted. Every step can be repeated,
//!   so a rollback that failed halfway is finished by running it again.
//! * **Diff** compares the whole current state (as a checkpoint would
//!   record it) with `base`, computed in a scratch index and object store
//!   inside the area (`<area>/diff/`, borrowing the original's objects as
//!   git alternates, removed after): a diff writes nothing into the
//!   original's `.git`, so `--read-only` stays read-only; a type or mode change counts as modified;
//!   renames are a deletion plus an addition.
//! * **Apply** creates the branch `agents/sandbox-<area-name>` in the
//!   original repository at a commit of the whole current state whose
//!   parent is the sandbox's HEAD (or at HEAD itself when nothing is
//!   uncommitted). It is refused when that branch exists already; it never
//!   moves the user's branches, HEAD, index or work tree.
//! * **Nested repositories** (a `.git` below the working copy, made by the
//!   agent or a submodule it populated) are recorded as the commit their
//!   HEAD names (a gitlink), as `git add` records them; git is never run
//!   inside one (their configuration is the agent's): a checkpoint takes
//!   the gitlinks out of `git add -A`'s view and records them with `git
//!   update-index`, which reads their HEAD and nothing else.
//! * **The working copy's `.git` file is the host's**: checked at every
//!   operation, written back when the agent rewrote, removed or symlinked
//!   it (never followed), refused with what to do when a directory took
//!   its place. The host's own commands never read it.
//! * **Destroy** removes the working copy itself (never through git, so a
//!   `.git` file the agent rewrote cannot redirect it), then the
//!   worktree's records (`git worktree remove`, which finds them by path),
//!   the sandbox's refs under `refs/agents/sandbox/<area-name>/` and the
//!   area. The applied branch stays: it belongs to the user now.
//!
//! The area's directory name becomes a ref component, so it must be plain
//! (ASCII letters, digits, `-`, `_`; a ULID is); anything else is refused.

mod modes;
mod repo;
mod state;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use super::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};
use crate::git_env::{GitProgram, GitTools};
use repo::{Git, Side};
use state::whole_state_tree;

/// The trailer that records the sandbox's HEAD in a checkpoint commit.
const HEAD_TRAILER: &str = "Agents-Sandbox-Head: ";

/// The `git_worktree` strategy. `git` says which `git` to run and the
/// `PATH` it is handed (by default: found on the system's standard
/// directories, [`crate::git_env::STANDARD_PATH`]).
#[derive(Debug, Clone)]
pub struct GitWorktree {
    git: GitTools,
    /// How long one git process may run (then it is killed and the
    /// operation refused): [`GIT_DEADLINE`] unless set.
    deadline: Duration,
}

/// How long one git process of a sandbox operation may run. Generous: a
/// checkpoint of a large working copy is one `git add -A`; what it bounds
/// is a git the working copy made wait for ever (a FIFO git opens).
pub const GIT_DEADLINE: Duration = Duration::from_secs(600);

impl Default for GitWorktree {
    fn default() -> Self {
        Self {
            git: GitTools::default(),
            deadline: GIT_DEADLINE,
        }
    }
}

impl GitWorktree {
    /// The strategy running the `git` that `git` finds.
    pub fn new(git: GitTools) -> Self {
        Self {
            git,
            ..Self::default()
        }
    }

    /// The same, each git process bounded by `deadline`.
    pub fn with_deadline(self, deadline: Duration) -> Self {
        Self { deadline, ..self }
    }

    fn program(&self) -> Result<GitProgram<'_>, SandboxError> {
        self.git.find().map_err(SandboxError::Unsuitable)
    }

    /// The sandbox's git, its `.git` file checked (repaired if the agent
    /// rewrote it).
    fn open<'a>(&'a self, place: &SandboxPlace) -> Result<Git<'a>, SandboxError> {
        let git = Git::open(self.program()?, self.deadline, place)?;
        git.check_gitfile()?;
        Ok(git)
    }

    /// This sandbox's checkpoints, oldest first: `(n, sha)`.
    fn checkpoints(
        &self,
        git: &Git<'_>,
        place: &SandboxPlace,
    ) -> Result<Vec<(u64, String)>, SandboxError> {
        let prefix = ref_prefix(place)?;
        let out = git.run(
            Side::Original,
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
}

fn head(git: &Git<'_>, side: Side) -> Result<String, SandboxError> {
    Ok(git
        .run(side, &["rev-parse", "--verify", "HEAD^{commit}"])?
        .trim()
        .to_string())
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
        let program = self.program()?;
        let not_a_checkout = |why: String| {
            SandboxError::Unsuitable(format!(
                "{} is not the root of a git work tree ({why}); a git_worktree sandbox needs a git checkout with at least one commit",
                original.display()
            ))
        };
        let located = Git::locate(program, self.deadline, original, true).map_err(|e| match e {
            SandboxError::Git { stderr, .. } => not_a_checkout(stderr),
            other => other,
        })?;
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let top = located.top.clone().unwrap_or_default();
        if canonical(&top) != canonical(original) {
            return Err(not_a_checkout(format!(
                "its work tree's root is {}",
                top.display()
            )));
        }
        let mut place = SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir: area.join("work"),
            base: String::new(),
        };
        let mut git = Git::original(program, self.deadline, &place, located);
        place.base = head(&git, Side::Original).map_err(|_| {
            SandboxError::Unsuitable(format!(
                "the git repository at {} has no commits yet; commit something first (a sandbox starts from HEAD)",
                original.display()
            ))
        })?;
        git.run_with(
            Side::Original,
            &[
                OsStr::new("worktree"),
                OsStr::new("add"),
                OsStr::new("--detach"),
                OsStr::new("--quiet"),
                place.workdir.as_os_str(),
                OsStr::new(&place.base),
            ],
            &[],
            None,
        )?;
        let admin = match git.admins(&place.workdir)?.pop() {
            Some(admin) => admin,
            None => {
                return Err(SandboxError::Unsuitable(format!(
                    "git worktree add made {} but no worktree of {} names it",
                    place.workdir.display(),
                    original.display()
                )));
            }
        };
        git.with_sandbox(&place.workdir, admin);
        git.check_gitfile()?;
        state::seed_state_index(&git, &place);
        Ok(place)
    }

    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
        let prefix = ref_prefix(place)?;
        let git = self.open(place)?;
        let tree = whole_state_tree(&git, place)?;
        let head = head(&git, Side::Sandbox)?;
        let existing = self.checkpoints(&git, place)?;
        let (n, parent) = match existing.last() {
            Some((n, sha)) => (n + 1, sha.clone()),
            None => (1, place.base.clone()),
        };
        let message = format!("{label}\n\n{HEAD_TRAILER}{head}\n");
        let sha = git.run(
            Side::Sandbox,
            &["commit-tree", &tree, "-p", &parent, "-m", &message],
        )?;
        let sha = sha.trim().to_string();
        // What git does not keep (full modes), beside the commit, before
        // the ref makes the checkpoint exist.
        modes::record(&git, place, &tree, &sha)?;
        // The empty old value: never overwrite a checkpoint someone else
        // recorded meanwhile.
        git.run(
            Side::Original,
            &["update-ref", &format!("{prefix}{n}"), &sha, ""],
        )?;
        Ok(CheckpointRef(sha))
    }

    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
        let git = self.open(place)?;
        if !self
            .checkpoints(&git, place)?
            .iter()
            .any(|(_, sha)| *sha == to.0)
        {
            return Err(SandboxError::NoCheckpoint(to.0.clone()));
        }
        // The last trailer line: the label (written first) cannot forge it.
        let commit = git.run(Side::Sandbox, &["cat-file", "commit", &to.0])?;
        let head = commit
            .lines()
            .filter_map(|l| l.strip_prefix(HEAD_TRAILER))
            .next_back()
            .map(str::trim)
            .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| SandboxError::NoCheckpoint(to.0.clone()))?
            .to_string();
        // Untracked files under today's ignore rules, then the checkpoint's
        // tree, then untracked files under the checkpoint's ignore rules.
        // Each step can be repeated: a rollback that failed halfway is
        // finished by running it again.
        git.run(Side::Sandbox, &["clean", "-fdq"])?;
        git.run(
            Side::Sandbox,
            &["read-tree", "--reset", "-u", &format!("{}^{{tree}}", to.0)],
        )?;
        git.run(Side::Sandbox, &["clean", "-fdq"])?;
        // What git does not keep: the recorded modes back, special files
        // (never in a checkpoint) gone.
        modes::restore(place, &to.0)?;
        git.run(Side::Sandbox, &["update-ref", "--no-deref", "HEAD", &head])?;
        git.run(Side::Sandbox, &["reset", "-q"])?;
        Ok(())
    }

    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        let git = self.open(place)?;
        // Computed in a scratch index and object store inside the area:
        // a diff writes nothing into the original's `.git`.
        let scratch = state::Scratch::new(&git, place)?;
        let tree = scratch.tree(&git)?;
        let args = [
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--name-status",
            &place.base,
            &tree,
        ]
        .map(OsStr::new);
        let out = git.run_with(Side::Sandbox, &args, &scratch.env(), None)?;
        drop(scratch);
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
        let log = git.run(
            Side::Sandbox,
            &[
                "log",
                "--reverse",
                "--no-show-signature",
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
        let git = self.open(place)?;
        if git
            .run(Side::Original, &["rev-parse", "--verify", "--quiet", &full])
            .is_ok()
        {
            return Err(SandboxError::Unsuitable(format!(
                "branch {branch} already exists in {}; this sandbox was applied already (delete or rename that branch to apply again)",
                place.original.display()
            )));
        }
        let head = head(&git, Side::Sandbox)?;
        let tree = whole_state_tree(&git, place)?;
        let head_tree = git.run(Side::Sandbox, &["rev-parse", &format!("{head}^{{tree}}")])?;
        let commit = if head_tree.trim() == tree {
            head
        } else {
            let message = format!("agents: sandbox {branch}");
            git.run(
                Side::Sandbox,
                &["commit-tree", &tree, "-p", &head, "-m", &message],
            )?
            .trim()
            .to_string()
        };
        // The empty old value makes creation atomic: it fails if the branch
        // appeared since the check above.
        git.run(Side::Original, &["update-ref", &full, &commit, ""])?;
        Ok(Applied::Branch(branch))
    }

    /// Whatever the agent did to its working copy (its `.git` file
    /// pointed elsewhere, a directory in its place), this removes what
    /// the host made, found from the host's records: the working copy by
    /// the host itself, the worktree's records by `git worktree remove`
    /// once it is gone (git finds them by path and deletes nothing else),
    /// the refs, the area. An original that no longer exists holds none of
    /// it.
    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        if !place.workdir.starts_with(&place.area) {
            return Err(SandboxError::Unsuitable(format!(
                "the sandbox's working copy {} is not inside its area {}; the host removes only what it made there",
                place.workdir.display(),
                place.area.display()
            )));
        }
        let remove_area = || super::copy_on_write::tree::remove_tree(&place.area);
        if std::fs::symlink_metadata(&place.original).is_err() {
            return remove_area();
        }
        let program = self.program()?;
        let located = Git::locate(program, self.deadline, &place.original, false)?;
        let git = Git::original(program, self.deadline, place, located);
        super::copy_on_write::tree::remove_tree(&place.workdir)?;
        if !git.admins(&place.workdir)?.is_empty() {
            git.run_with(
                Side::Original,
                &[
                    OsStr::new("worktree"),
                    OsStr::new("remove"),
                    OsStr::new("--force"),
                    OsStr::new("--force"),
                    place.workdir.as_os_str(),
                ],
                &[],
                None,
            )?;
        }
        let prefix = ref_prefix(place)?;
        for (n, sha) in self.checkpoints(&git, place)? {
            git.run(
                Side::Original,
                &["update-ref", "-d", &format!("{prefix}{n}"), &sha],
            )?;
        }
        remove_area()
    }
}

#[cfg(test)]
#[path = "tests_git.rs"]
mod tests;

#[cfg(test)]
#[path = "tests_git_hostile.rs"]
mod hostile_tests;
