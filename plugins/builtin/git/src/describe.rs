//! What `agents resource inspect` shows for a checkout, a repository and a
//! file in a checkout: what a person wants to see first, and the same
//! facts as fields.

use resource_handler_sdk::git::{self, RefKind};
use resource_handler_sdk::{HandlerError, Inspection, ResourceView};

/// Branch, HEAD, upstream distance, and how many paths are changed.
pub fn checkout(r: &ResourceView) -> Result<Inspection, HandlerError> {
    let head = git::head()?;
    let location = r.location()?;
    let mut out = Inspection::new()
        .line(format!("checkout {location}"))
        .data("path", location);
    out = match &head.branch {
        Some(branch) => out.field("branch", branch.as_str()),
        None => out.line("detached HEAD"),
    };
    out = match &head.commit {
        Some(id) => {
            let c = git::read_commit(id)?;
            out.line(format!("HEAD {} {}", c.id, c.summary))
                .data("head", c.id)
                .data("summary", c.summary)
        }
        None => out.line("HEAD (no commits yet)"),
    };
    if let Some(branch) = &head.branch {
        let upstream = git::references()?
            .into_iter()
            .find(|r| r.kind == RefKind::Branch && &r.short_name == branch)
            .and_then(|r| r.upstream);
        out = match (upstream, git::divergence(branch)?) {
            (Some(up), Some(d)) => out
                .line(format!(
                    "upstream {up}: ahead {}, behind {}",
                    d.ahead, d.behind
                ))
                .data("upstream", up)
                .data("ahead", d.ahead.to_string())
                .data("behind", d.behind.to_string()),
            _ => out.line("upstream (none)"),
        };
    }
    let status = git::status(None)?;
    let untracked = status.iter().filter(|s| s.index == "?").count();
    let modified = status.len() - untracked;
    Ok(out
        .line(format!("modified {modified}, untracked {untracked}"))
        .data("modified", modified.to_string())
        .data("untracked", untracked.to_string()))
}

/// Where HEAD is and how many refs of each kind (`remote`: a remote
/// repository, of which only the refs are known).
pub fn repository(remote: bool) -> Result<Inspection, HandlerError> {
    let repo = git::repository()?;
    let head = git::head()?;
    let refs = git::references()?;
    let count = |k: RefKind| refs.iter().filter(|r| r.kind == k).count();
    let (branches, tags, remote_branches) = (
        count(RefKind::Branch),
        count(RefKind::Tag),
        count(RefKind::RemoteBranch),
    );
    let (remotes, stashes, submodules) = (
        git::remotes()?.len(),
        git::stashes()?.len(),
        git::submodules()?.len(),
    );
    let bare = repo.work_tree.is_none();
    let mut out = Inspection::new()
        .line(if remote {
            format!(
                "remote repository {} (its refs, as ls-remote lists them)",
                repo.git_dir
            )
        } else {
            format!(
                "repository {}{}",
                repo.git_dir,
                if bare { " (bare)" } else { "" }
            )
        })
        .line(format!(
            "HEAD {} {}",
            head.branch.as_deref().unwrap_or("(detached)"),
            head.commit.as_deref().unwrap_or("(no commits)"),
        ))
        .line(
            [
                counted(branches, "branch", "branches"),
                counted(tags, "tag", "tags"),
                counted(remote_branches, "remote branch", "remote branches"),
                counted(remotes, "remote", "remotes"),
                counted(stashes, "stash", "stashes"),
                counted(submodules, "submodule", "submodules"),
            ]
            .join(", "),
        )
        .data(if remote { "url" } else { "git-dir" }, repo.git_dir)
        .data("bare", bare.to_string())
        .data("remote", remote.to_string());
    if let Some(branch) = head.branch {
        out = out.data("branch", branch);
    }
    if let Some(commit) = head.commit {
        out = out.data("head", commit);
    }
    Ok(out
        .data("branches", branches.to_string())
        .data("tags", tags.to_string())
        .data("remote-branches", remote_branches.to_string())
        .data("remotes", remotes.to_string())
        .data("stashes", stashes.to_string())
        .data("submodules", submodules.to_string()))
}

/// `1 branch`, `2 branches`.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A `git status` letter in words.
fn change(letter: &str) -> &'static str {
    match letter {
        "M" => "modified",
        "A" => "added",
        "D" => "deleted",
        "R" => "renamed",
        "C" => "copied",
        "T" => "type changed",
        "U" => "unmerged",
        _ => "changed",
    }
}

/// One path's state in words: `modified (not staged)`, `added (staged)`,
/// `untracked`, …
fn state(index: &str, worktree: &str) -> String {
    match (index, worktree) {
        ("?", _) => "untracked".to_owned(),
        ("!", _) => "ignored".to_owned(),
        _ => {
            let mut parts = Vec::new();
            if index != " " {
                parts.push(format!("{} (staged)", change(index)));
            }
            if worktree != " " {
                parts.push(format!("{} (not staged)", change(worktree)));
            }
            parts.join(", ")
        }
    }
}

/// One file of the work tree: its status, blob id, size, last commit.
pub fn file(path: &str) -> Result<Inspection, HandlerError> {
    let repo = git::repository()?;
    let Some(root) = repo.work_tree else {
        return Err(HandlerError::Unsupported(
            "a bare repository has no files to inspect".to_owned(),
        ));
    };
    let status = git::status(Some(path))?;
    let entry = status.iter().find(|s| s.path == path);
    let full = format!("{}/{path}", root.trim_end_matches('/'));
    let on_disk = std::fs::symlink_metadata(&full).ok();
    // A tracked file gone from the disk has a status (deleted); one with
    // neither is not there at all.
    if on_disk.is_none() && entry.is_none() {
        return Err(HandlerError::NotFound(format!(
            "no file {path} in {root}: it is neither on disk nor tracked by git"
        )));
    }
    let mut out = Inspection::new().field("file", path);
    out = match entry {
        None => out.field("status", "unmodified"),
        Some(s) => out
            .field("status", state(&s.index, &s.worktree))
            .data("index", s.index.as_str())
            .data("worktree", s.worktree.as_str()),
    };
    out = match git::blob_id(path)? {
        Some(id) => out.field("blob", id),
        None => out.line("blob (not on disk)"),
    };
    if let Some(meta) = on_disk {
        out = out
            .line(format!("size {} bytes", meta.len()))
            .data("size", meta.len().to_string());
    }
    if let Some(c) = git::last_commit(path)? {
        out = out
            .line(format!("last commit {} {}", c.id, c.summary))
            .data("last-commit", c.id)
            .data("last-commit-summary", c.summary);
    }
    Ok(out)
}
