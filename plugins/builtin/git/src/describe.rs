//! What `agents resource inspect` shows for a checkout, a repository and a
//! file in a checkout: what a person wants to see first.

use resource_handler_sdk::git::{self, RefKind};
use resource_handler_sdk::{HandlerError, ResourceView};

/// Branch, HEAD, upstream distance, and how many paths are changed.
pub fn checkout(r: &ResourceView) -> Result<String, HandlerError> {
    let head = git::head()?;
    let mut text = format!("checkout {}\n", r.location()?);
    match &head.branch {
        Some(branch) => text.push_str(&format!("branch {branch}\n")),
        None => text.push_str("detached HEAD\n"),
    }
    match &head.commit {
        Some(id) => {
            let c = git::read_commit(id)?;
            text.push_str(&format!("HEAD {} {}\n", c.id, c.summary));
        }
        None => text.push_str("HEAD (no commits yet)\n"),
    }
    if let Some(branch) = &head.branch {
        let upstream = git::references()?
            .into_iter()
            .find(|r| r.kind == RefKind::Branch && &r.short_name == branch)
            .and_then(|r| r.upstream);
        match (upstream, git::divergence(branch)?) {
            (Some(up), Some(d)) => text.push_str(&format!(
                "upstream {up}: ahead {}, behind {}\n",
                d.ahead, d.behind
            )),
            _ => text.push_str("upstream (none)\n"),
        }
    }
    let status = git::status(None)?;
    let untracked = status.iter().filter(|s| s.index == "?").count();
    let modified = status.len() - untracked;
    text.push_str(&format!("modified {modified}, untracked {untracked}\n"));
    Ok(text)
}

/// Where HEAD is and how many refs of each kind.
pub fn repository() -> Result<String, HandlerError> {
    let repo = git::repository()?;
    let head = git::head()?;
    let refs = git::references()?;
    let count = |k: RefKind| refs.iter().filter(|r| r.kind == k).count();
    Ok(format!(
        "repository {}{}\nHEAD {} {}\n{} branches, {} tags, {} remote branches, {} remotes, {} \
         stashes, {} submodules\n",
        repo.git_dir,
        if repo.work_tree.is_none() {
            " (bare)"
        } else {
            ""
        },
        head.branch.as_deref().unwrap_or("(detached)"),
        head.commit.as_deref().unwrap_or("(no commits)"),
        count(RefKind::Branch),
        count(RefKind::Tag),
        count(RefKind::RemoteBranch),
        git::remotes()?.len(),
        git::stashes()?.len(),
        git::submodules()?.len()
    ))
}

/// One file of the work tree: its status, blob id, size, last commit.
pub fn file(path: &str) -> Result<String, HandlerError> {
    let repo = git::repository()?;
    let Some(root) = repo.work_tree else {
        return Err(HandlerError::Unsupported(
            "a bare repository has no files to inspect".to_owned(),
        ));
    };
    let status = git::status(Some(path))?;
    let state = match status.iter().find(|s| s.path == path) {
        None => "unmodified".to_owned(),
        Some(s) if s.index == "?" => "untracked".to_owned(),
        Some(s) if s.index == "!" => "ignored".to_owned(),
        Some(s) => format!("index {:?}, work tree {:?}", s.index, s.worktree),
    };
    let mut text = format!("file {path}\nstatus {state}\n");
    match git::blob_id(path)? {
        Some(id) => text.push_str(&format!("blob {id}\n")),
        None => text.push_str("blob (not on disk)\n"),
    }
    let full = format!("{}/{path}", root.trim_end_matches('/'));
    if let Ok(meta) = std::fs::symlink_metadata(&full) {
        text.push_str(&format!("size {} bytes\n", meta.len()));
    }
    if let Some(c) = git::last_commit(path)? {
        text.push_str(&format!("last commit {} {}\n", c.id, c.summary));
    }
    Ok(text)
}
