//! `cleveragents.resource.handlers.git`: the built-in git handlers, a
//! WebAssembly component like any plugin, embedded in the `agents` binary.
//! They read git only through the host's read-only `git` interface, which
//! the host scopes to the repository containing the call's location.
//!
//! | class | type | discovers |
//! |---|---|---|
//! | `GitCheckoutHandler` | `git-checkout` | `git` (the repository) and `worktree` (its fs-directory) |
//! | `GitRepositoryHandler` | `git` | `remote/…`, `branch/…`, `tag/…`, `stash/…`, `submodule/…` |
//! | `GitBranchHandler` | `git-branch` | `commit/<id>` (its head) |
//! | `GitCommitHandler` | `git-commit` | `tree` (its root tree) |
//! | `GitTreeHandler` | `git-tree` | `<name>` subtrees and entries |
//! | `GitTagHandler`, `GitRemoteHandler`, `GitStashHandler`, `GitSubmoduleHandler`, `GitTreeEntryHandler` | their types | nothing; hash and describe |
//!
//! Every git object resource lies at its repository resource's location
//! (a ref has no place of its own on disk); names are readable and stable
//! (`…/git/branch/main`, `…/git/tag/v1.0`, `…/git/stash/<commit>`), made
//! with the SDK's `name_path`.

mod describe;
mod objects;

pub use objects::{
    GitBranchHandler, GitCommitHandler, GitRemoteHandler, GitStashHandler, GitSubmoduleHandler,
    GitTagHandler, GitTreeEntryHandler, GitTreeHandler,
};

use resource_handler_sdk::git::{self, GitError, RefKind};
use resource_handler_sdk::{
    Discovered, Handler, HandlerError, Inspection, Property, Props, ResourceView, name_part,
    name_path,
};

/// Short ids in names: enough to be unique in any real repository.
pub(crate) const SHORT_ID: usize = 12;

pub(crate) fn short(id: &str) -> &str {
    &id[..id.len().min(SHORT_ID)]
}

/// `sha256:`-style hash of text, using git's own ids: the text itself is
/// short and made of ids, so it is kept readable (and bounded) as is.
pub(crate) fn text_hash(parts: &[String]) -> String {
    // A stable, short digest without a hashing crate: FNV-1a 128.
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u128::from(b);
            h = h.wrapping_mul(0x0000000001000000000000000000013B);
        }
    }
    format!("fnv128:{h:032x}")
}

pub struct GitCheckoutHandler;

impl Handler for GitCheckoutHandler {
    const DESCRIPTION: &'static str = "A checked-out working tree: its repository and its files";

    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        let path = args.require("path")?;
        let repo = git::repository().map_err(|e| match e {
            GitError::NotARepository(_) => HandlerError::InvalidArgs(format!(
                "{path} is not a git working tree (no repository contains it); register it as \
                 fs-directory, or run `git init` there first"
            )),
            other => other.into(),
        })?;
        let Some(work_tree) = repo.work_tree else {
            return Err(HandlerError::InvalidArgs(format!(
                "{path} is a bare repository: it has no working tree to check out; register it \
                 as type git instead (agents resource add git NAME --path {path})"
            )));
        };
        if work_tree.trim_end_matches('/') != path.trim_end_matches('/') {
            return Err(HandlerError::InvalidArgs(format!(
                "{path} is inside the working tree {work_tree}, not its root; register the root \
                 as git-checkout, or this directory as fs-directory"
            )));
        }
        let head = git::head()?;
        let mut props = vec![Property::new("git-dir", repo.git_dir)];
        if let Some(wanted) = args.get("branch") {
            let branches: Vec<String> = git::references()?
                .into_iter()
                .filter(|r| r.kind == RefKind::Branch)
                .map(|r| r.short_name)
                .collect();
            if !branches.iter().any(|b| b == wanted) {
                return Err(HandlerError::InvalidArgs(format!(
                    "branch {wanted:?} does not exist in {path}; its branches: {}",
                    if branches.is_empty() {
                        "none yet".to_owned()
                    } else {
                        branches.join(", ")
                    }
                )));
            }
            if head.branch.as_deref() != Some(wanted) {
                return Err(HandlerError::InvalidArgs(format!(
                    "{path} has {} checked out, not branch {wanted:?}; check it out first \
                     (git switch {wanted}) or leave out --branch",
                    head.branch
                        .as_deref()
                        .map_or("a detached HEAD".to_owned(), |b| format!("branch {b:?}"))
                )));
            }
        }
        if let Some(branch) = head.branch {
            props.push(Property::new("branch", branch));
        }
        if let Some(commit) = head.commit {
            props.push(Property::new("head", commit));
        }
        Ok(props)
    }

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let location = r.location()?;
        let repo = git::repository()?;
        // The repository lies at its git directory when that is inside the
        // checkout (the usual `.git`); a linked worktree's lies elsewhere,
        // and is then reached through the checkout's own `.git` file.
        let inside = repo
            .git_dir
            .strip_prefix(location)
            .is_some_and(|rest| rest.starts_with('/'));
        let git_at = if inside {
            repo.git_dir.clone()
        } else {
            format!("{}/.git", location.trim_end_matches('/'))
        };
        let mut children = vec![
            Discovered::new("git")
                .named("git")
                .at(git_at)
                .with_property("git-dir", repo.git_dir.clone()),
            Discovered::new("fs-directory")
                .named("worktree")
                .at(location)
                .with_property("worktree-of", r.label())
                .with_property(objects::REPOSITORY, repo.git_dir)
                .with_property("relative-path", ""),
        ];
        children.extend(builtin_common::devcontainer::detect(r, location));
        Ok(children)
    }

    /// HEAD, and every changed path: a commit, a checkout, an edit or a
    /// new file changes it.
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        let head = git::head()?;
        let mut parts = vec![
            head.branch.unwrap_or_default(),
            head.commit.unwrap_or_default(),
        ];
        for s in git::status(None)? {
            parts.push(format!("{}{} {}", s.index, s.worktree, s.path));
        }
        // An edit to an already modified devcontainer.json leaves the
        // status as it was; its digest does not.
        parts.extend(builtin_common::devcontainer::config_digest(r.location()?));
        Ok(text_hash(&parts))
    }

    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        match file {
            Some(file) => describe::file(file),
            None => describe::checkout(r),
        }
    }
}

pub struct GitRepositoryHandler;

impl Handler for GitRepositoryHandler {
    const DESCRIPTION: &'static str =
        "A repository: its remotes, branches, tags, stashes and submodules";

    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        if args.get("path").is_none() {
            if args.get("url").is_none() {
                return Err(HandlerError::InvalidArgs(
                    "give --path (a local repository) or --url (a remote one)".to_owned(),
                ));
            }
            // A remote: the host asks it what it holds (ls-remote) now, so
            // an unreachable or refused URL is said at registration.
            let head = git::head().map_err(|e| {
                let (GitError::NotARepository(why)
                | GitError::NotFound(why)
                | GitError::Invalid(why)
                | GitError::Failed(why)) = e;
                // The host's reason names the URL when it may be shown.
                HandlerError::InvalidArgs(format!("cannot list the remote's refs: {why}"))
            })?;
            let mut props = vec![Property::new("remote", "true")];
            if let Some(branch) = head.branch {
                props.push(Property::new("head-branch", branch));
            }
            if let Some(commit) = head.commit {
                props.push(Property::new("head", commit));
            }
            return Ok(props);
        }
        let path = args.require("path")?;
        let repo = git::repository().map_err(|e| match e {
            GitError::NotARepository(_) => HandlerError::InvalidArgs(format!(
                "{path} is not in a git repository; run `git init` there first"
            )),
            other => other.into(),
        })?;
        let mut props = vec![
            Property::new("git-dir", repo.git_dir),
            Property::new("bare", repo.work_tree.is_none().to_string()),
        ];
        if let Some(commit) = git::head()?.commit {
            props.push(Property::new("head", commit));
        }
        Ok(props)
    }

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        // A remote repository has no location: its children (its branches
        // and tags, as the remote lists them) have none either.
        let location = r.location.as_deref();
        let at = |child: Discovered| match location {
            Some(l) => child.at(l),
            None => child,
        };
        let git_dir = r.property("git-dir").or_else(|| r.property("url"));
        let mut found = Vec::new();
        for remote in git::remotes()? {
            let mut child =
                at(Discovered::new("git-remote")
                    .named(format!("remote/{}", name_part(&remote.name))))
                .with_hash(text_hash(&[
                    remote.url.clone().unwrap_or_default(),
                    remote.push_url.clone().unwrap_or_default(),
                ]))
                .with_property("remote-name", remote.name);
            if let Some(url) = remote.url {
                child = child.with_property("url", url);
            }
            if let Some(url) = remote.push_url {
                child = child.with_property("push-url", url);
            }
            found.push(child);
        }
        for r in git::references()? {
            let child = match r.kind {
                RefKind::Branch => {
                    let mut child = at(Discovered::new("git-branch")
                        .named(format!("branch/{}", name_path(&r.short_name))))
                    .with_hash(r.target.clone())
                    .with_property("branch-name", r.short_name)
                    .with_property("head-sha", r.target);
                    if let Some(repo) = git_dir {
                        child = child.with_property(objects::REPOSITORY, repo);
                    }
                    if let Some(upstream) = r.upstream {
                        child = child.with_property("upstream", upstream);
                    }
                    child
                }
                RefKind::Tag => {
                    let annotated = r.peeled.is_some();
                    let target = r.peeled.clone().unwrap_or_else(|| r.target.clone());
                    let mut child = at(Discovered::new("git-tag")
                        .named(format!("tag/{}", name_path(&r.short_name))))
                    .with_hash(target)
                    .with_property("tag-name", r.short_name)
                    .with_property(
                        "target-sha",
                        r.peeled.clone().unwrap_or_else(|| r.target.clone()),
                    )
                    .with_property("annotated", annotated.to_string());
                    if annotated {
                        child = child.with_property("tag-object", r.target);
                    }
                    if let Some(repo) = git_dir {
                        child = child.with_property(objects::REPOSITORY, repo);
                    }
                    child
                }
                RefKind::RemoteBranch | RefKind::Other => continue,
            };
            found.push(child);
        }
        for stash in git::stashes()? {
            found.push(
                at(Discovered::new("git-stash").named(format!("stash/{}", short(&stash.commit))))
                    .with_hash(stash.commit.clone())
                    .with_property("commit-sha", stash.commit)
                    .with_property("index", stash.index.to_string())
                    .with_property("message", stash.message),
            );
        }
        for sub in git::submodules()? {
            let mut child = at(Discovered::new("git-submodule")
                .named(format!("submodule/{}", name_path(&sub.path))))
            .with_hash(text_hash(&[
                sub.url.clone().unwrap_or_default(),
                sub.commit.clone().unwrap_or_default(),
            ]))
            .with_property("path", sub.path)
            .with_property("submodule-name", sub.name);
            if let Some(url) = sub.url {
                child = child.with_property("url", url);
            }
            if let Some(commit) = sub.commit {
                child = child.with_property("commit-sha", commit);
            }
            found.push(child);
        }
        Ok(found)
    }

    /// Every ref and its target, the remotes and the stash: a new commit,
    /// branch, tag, remote or stash changes it.
    fn content_hash(_: &ResourceView) -> Result<String, HandlerError> {
        let mut parts: Vec<String> = git::references()?
            .into_iter()
            .map(|r| format!("{} {}", r.name, r.target))
            .collect();
        parts.extend(
            git::remotes()?
                .into_iter()
                .map(|r| format!("remote {} {:?} {:?}", r.name, r.url, r.push_url)),
        );
        parts.extend(
            git::stashes()?
                .into_iter()
                .map(|s| format!("stash {}", s.commit)),
        );
        Ok(text_hash(&parts))
    }

    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        match file {
            Some(file) => describe::file(file),
            None => describe::repository(r.location.is_none()),
        }
    }
}

resource_handler_sdk::export_plugin!(
    module: "cleveragents.resource.handlers.git",
    version: env!("CARGO_PKG_VERSION"),
    classes: [
        GitCheckoutHandler, GitRepositoryHandler, GitRemoteHandler, GitBranchHandler,
        GitTagHandler, GitCommitHandler, GitTreeHandler, GitTreeEntryHandler, GitStashHandler,
        GitSubmoduleHandler,
    ],
);
