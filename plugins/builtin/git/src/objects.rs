//! The git object classes: a branch discovers its head commit, a commit
//! its root tree, a tree its subtrees and entries; tags, remotes, stashes,
//! submodules and tree entries are leaves that hash and describe
//! themselves. Each reads what it is from its own properties (recorded by
//! the parent that discovered it) and asks the host's `git` for the rest.

use crate::{short, text_hash};
use resource_handler_sdk::git::{self, EntryKind};
use resource_handler_sdk::{
    Discovered, Handler, HandlerError, Inspection, ResourceView, name_part,
};

/// `text` for people, and the resource's own properties (what discovery
/// recorded of it) as the fields.
fn described(text: String, r: &ResourceView) -> Inspection {
    let mut out = Inspection::from(text);
    out.fields = r.properties.clone();
    out
}

/// The property naming the repository an object was read from (its git
/// directory), recorded on branches, tags, commits, trees and tree
/// entries: with `relative-path`, it places a tree or entry in its
/// repository, which the `file`, `directory` and `symlink` identities
/// match on.
pub const REPOSITORY: &str = "repository";

/// `child`, in the same repository as `r` (when `r` records one).
fn in_repository_of(child: Discovered, r: &ResourceView) -> Discovered {
    match r.property(REPOSITORY) {
        Some(repo) => child.with_property(REPOSITORY, repo),
        None => child,
    }
}

fn prop<'r>(r: &'r ResourceView, key: &str) -> Result<&'r str, HandlerError> {
    r.property(key)
        .ok_or_else(|| HandlerError::InvalidArgs(format!("{} has no `{key}` property", r.label())))
}

/// A commit as a child, with the properties its identity and its
/// description need.
fn commit_child(id: &str, location: &str) -> Result<Discovered, HandlerError> {
    let c = git::read_commit(id)?;
    Ok(Discovered::new("git-commit")
        .named(format!("commit/{}", short(&c.id)))
        .at(location)
        .with_hash(c.id.clone())
        .with_property("commit-sha", c.id)
        .with_property("tree-sha", c.tree)
        .with_property("parents", c.parents.join(" "))
        .with_property("author", format!("{} <{}>", c.author_name, c.author_email))
        .with_property("author-time", c.author_time.to_string())
        .with_property("summary", c.summary))
}

pub struct GitBranchHandler;

impl Handler for GitBranchHandler {
    const DESCRIPTION: &'static str = "A branch: its head commit";

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        Ok(vec![in_repository_of(
            commit_child(prop(r, "head-sha")?, r.location()?)?,
            r,
        )])
    }

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "head-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let name = prop(r, "branch-name")?;
        let c = git::read_commit(prop(r, "head-sha")?)?;
        let mut text = format!("branch {name}\nhead {} {}\n", c.id, c.summary);
        let mut distance = None;
        if let Some(upstream) = r.property("upstream") {
            text.push_str(&format!("upstream {upstream}"));
            if let Some(d) = git::divergence(name)? {
                text.push_str(&format!(" (ahead {}, behind {})", d.ahead, d.behind));
                distance = Some(d);
            }
            text.push('\n');
        }
        let mut out = described(text, r).data("summary", c.summary);
        if let Some(d) = distance {
            out = out
                .data("ahead", d.ahead.to_string())
                .data("behind", d.behind.to_string());
        }
        Ok(out)
    }
}

pub struct GitTagHandler;

impl Handler for GitTagHandler {
    const DESCRIPTION: &'static str = "A tag (annotated or light)";

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "target-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let kind = match r.property("annotated") {
            Some("true") => "annotated",
            _ => "light",
        };
        let text = format!(
            "tag {} ({kind})\ntarget {}\n",
            prop(r, "tag-name")?,
            prop(r, "target-sha")?
        );
        Ok(described(text, r))
    }
}

pub struct GitCommitHandler;

impl Handler for GitCommitHandler {
    const DESCRIPTION: &'static str = "A commit: its root tree";

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        Ok(vec![in_repository_of(
            Discovered::new("git-tree")
                .named("tree")
                .at(r.location()?)
                .with_hash(prop(r, "tree-sha")?)
                .with_property("tree-sha", prop(r, "tree-sha")?)
                .with_property("relative-path", ""),
            r,
        )])
    }

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "commit-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let c = git::read_commit(prop(r, "commit-sha")?)?;
        let text = format!(
            "commit {}\ntree {}\nparents {}\nauthor {} <{}> at {}\n\n    {}\n",
            c.id,
            c.tree,
            if c.parents.is_empty() {
                "none".to_owned()
            } else {
                c.parents.join(" ")
            },
            c.author_name,
            c.author_email,
            c.author_time,
            c.summary
        );
        Ok(described(text, r))
    }
}

pub struct GitTreeHandler;

impl Handler for GitTreeHandler {
    const DESCRIPTION: &'static str = "A tree: its subtrees and entries";

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let location = r.location()?;
        let base = r.property("relative-path").unwrap_or_default();
        let join = |name: &str| {
            if base.is_empty() {
                name.to_owned()
            } else {
                format!("{base}/{name}")
            }
        };
        let mut found = Vec::new();
        for e in git::read_tree(prop(r, "tree-sha")?)? {
            let child = match e.kind {
                EntryKind::Tree => {
                    Discovered::new("git-tree").with_property("tree-sha", e.id.clone())
                }
                EntryKind::Blob | EntryKind::Commit => Discovered::new("git-tree-entry")
                    .with_property("blob-sha", e.id.clone())
                    .with_property("mode", format!("{:o}", e.mode))
                    .with_property("entry-kind", entry_kind(e.mode)),
            };
            found.push(in_repository_of(
                child
                    .named(name_part(&e.name))
                    .at(location)
                    .with_hash(e.id.clone())
                    .with_property("relative-path", join(&e.name)),
                r,
            ));
        }
        Ok(found)
    }

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "tree-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let path = r.property("relative-path").unwrap_or_default();
        let mut text = format!(
            "tree {} ({})\n",
            prop(r, "tree-sha")?,
            if path.is_empty() { "/" } else { path }
        );
        let entries = git::read_tree(prop(r, "tree-sha")?)?;
        for e in &entries {
            text.push_str(&format!("{:06o} {} {}\n", e.mode, e.id, e.name));
        }
        Ok(described(text, r).data("entries", entries.len().to_string()))
    }
}

pub struct GitTreeEntryHandler;

impl Handler for GitTreeEntryHandler {
    const DESCRIPTION: &'static str = "A file (blob), symlink or submodule entry of a tree";

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "blob-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let mode = prop(r, "mode")?;
        let kind = entry_kind(u32::from_str_radix(mode, 8).unwrap_or(0));
        let text = format!(
            "{kind} {}\nmode {mode}\nobject {}\n",
            prop(r, "relative-path")?,
            prop(r, "blob-sha")?
        );
        Ok(described(text, r).data("kind", kind))
    }
}

pub struct GitRemoteHandler;

impl Handler for GitRemoteHandler {
    const DESCRIPTION: &'static str = "A remote of a repository";

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(text_hash(&[
            r.property("url").unwrap_or_default().to_owned(),
            r.property("push-url").unwrap_or_default().to_owned(),
        ]))
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let mut text = format!(
            "remote {}\nurl {}\n",
            prop(r, "remote-name")?,
            r.property("url").unwrap_or("(none)")
        );
        if let Some(push) = r.property("push-url") {
            text.push_str(&format!("push url {push}\n"));
        }
        Ok(described(text, r))
    }
}

pub struct GitStashHandler;

impl Handler for GitStashHandler {
    const DESCRIPTION: &'static str = "A stash entry";

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(prop(r, "commit-sha")?.to_owned())
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let text = format!(
            "stash@{{{}}} {}\n{}\n",
            prop(r, "index")?,
            prop(r, "commit-sha")?,
            r.property("message").unwrap_or_default()
        );
        Ok(described(text, r))
    }
}

pub struct GitSubmoduleHandler;

impl Handler for GitSubmoduleHandler {
    const DESCRIPTION: &'static str = "A submodule of a repository";

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        Ok(text_hash(&[
            r.property("url").unwrap_or_default().to_owned(),
            r.property("commit-sha").unwrap_or_default().to_owned(),
        ]))
    }

    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        let text = format!(
            "submodule {} at {}\nurl {}\ncommit {}\n",
            prop(r, "submodule-name")?,
            prop(r, "path")?,
            r.property("url").unwrap_or("(none)"),
            r.property("commit-sha").unwrap_or("(not recorded)")
        );
        Ok(described(text, r))
    }
}

/// What a tree entry of `mode` is, in the words the filesystem side uses
/// (`entry-kind` on `fs-file` and `fs-symlink`).
fn entry_kind(mode: u32) -> &'static str {
    match mode {
        0o120000 => "symlink",
        0o160000 => "submodule",
        _ => "file",
    }
}
