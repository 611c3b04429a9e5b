//! `cleveragents.resource.handlers.fs`: the built-in filesystem handlers,
//! a WebAssembly component like any plugin, embedded in the `agents`
//! binary and run in the same sandbox with the same limits.
//!
//! | class | type | what it does |
//! |---|---|---|
//! | `FsDirectoryHandler` | `fs-directory` | validates a directory; discovers its entries one level deep (`*/` → `fs-directory`, `*` → `fs-file`, symlinks → `fs-symlink`, files with more than one link → `fs-hardlink`; `.git` skipped); hashes its own entries |
//! | `FsMountHandler` | `fs-mount` | validates a mount point; discovers its root directory |
//! | `FsFileHandler`, `FsHardlinkHandler` | `fs-file`, `fs-hardlink` | hash and describe one file |
//! | `FsSymlinkHandler` | `fs-symlink` | hash and describe one link (never followed) |
//!
//! Everything is read through WASI inside the sandbox, which sees only the
//! resource's location (a file alone, in a one-entry view). Symlinks are
//! never followed: they are classified and their target recorded.

mod facts;

use builtin_common::devcontainer;

use facts::{Facts, Kind};
use resource_handler_sdk::{
    Discovered, Handler, HandlerError, Inspection, Property, Props, ResourceView, host, name_part,
};
use std::path::Path;

/// The property a checkout gives its work tree (so the directory does
/// not detect the checkout's devcontainer a second time).
const WORKTREE_OF: &str = "worktree-of";

/// The name the host gives a directory discovered as a mount's root.
const MOUNT_ROOT: &str = "root";

fn io(path: &str, e: std::io::Error) -> HandlerError {
    match e.kind() {
        std::io::ErrorKind::NotFound => HandlerError::NotFound(format!("{path}: {e}")),
        _ => HandlerError::Io(format!("{path}: {e}")),
    }
}

/// The most children one `discover` answer may hold: the host's default
/// bound (`AnswerBounds::max_children`, in the limits table of
/// plugins/README.md). A directory with more entries is refused before
/// they are gathered: they would not fit in the answer anyway, and
/// gathering them first ran out of the call's memory, which told
/// nothing of this limit.
const MAX_CHILDREN: usize = 100_000;

/// The refusal of a directory with more than [`MAX_CHILDREN`] entries.
fn too_many_entries(dir: &str) -> HandlerError {
    HandlerError::Failed(format!(
        "{dir} holds more than {MAX_CHILDREN} entries, the most children one discovery may \
         answer (the host's limit, whatever the memory); register its subdirectories instead, \
         or give it a type whose auto_discovery is disabled"
    ))
}

/// A directory's entries, one level, sorted by name, `.git` left out;
/// entries that are neither directory, file nor symlink are skipped.
/// Files are digested only `with_digest`. The listing and every entry's
/// `lstat` come in one host call; WASI lists a directory too big for it.
/// With `at_most`, a directory holding more entries is refused as
/// [`too_many_entries`] before any is stat'ed or digested.
fn entries(
    dir: &str,
    with_digest: bool,
    at_most: Option<usize>,
) -> Result<Vec<Facts>, HandlerError> {
    let Ok(listing) = host::read_dir(dir) else {
        if let Some(max) = at_most {
            let mut count = 0usize;
            for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
                if entry.map_err(|e| io(dir, e))?.file_name() != ".git" {
                    count += 1;
                }
                if count > max {
                    return Err(too_many_entries(dir));
                }
            }
        }
        return entries_through_wasi(dir, with_digest);
    };
    if let Some(max) = at_most
        && listing.iter().filter(|e| e.name != ".git").count() > max
    {
        return Err(too_many_entries(dir));
    }
    let mut out = Vec::with_capacity(listing.len());
    for entry in listing {
        if entry.name == ".git" {
            continue;
        }
        let path = format!("{}/{}", dir.trim_end_matches('/'), entry.name);
        match Facts::from_stat(path.clone(), entry.name, &entry.stat, with_digest) {
            Ok(facts) if facts.kind != Kind::Other => out.push(facts),
            Ok(_) => {}
            Err(e) => return Err(io(&path, e)),
        }
    }
    Ok(out)
}

/// [`entries`] one WASI call (and one `lstat`) per entry.
fn entries_through_wasi(dir: &str, with_digest: bool) -> Result<Vec<Facts>, HandlerError> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ".git" {
            continue;
        }
        let path = format!("{}/{name}", dir.trim_end_matches('/'));
        let facts = if with_digest {
            Facts::of(&path)
        } else {
            Facts::stat(&path)
        };
        match facts {
            Ok(facts) if facts.kind != Kind::Other => out.push(facts),
            Ok(_) => {}
            Err(e) => return Err(io(&path, e)),
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

use facts::sha256_text as sha256;

/// The path `file` names inside `location` (relative, no `..`).
fn inside(location: &str, file: &str) -> Result<String, HandlerError> {
    if Path::new(file)
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(HandlerError::InvalidArgs(format!(
            "{file:?} is not a relative path inside the resource"
        )));
    }
    Ok(format!("{}/{file}", location.trim_end_matches('/')))
}

/// Where a directory lies in a repository's work tree: a checkout gives
/// its work tree `repository` (the git directory) and `relative-path`
/// `""`, and each directory hands them down with its entries' paths. A
/// directory registered on its own has none. With `entry-kind`, they are
/// what the `file`, `directory` and `symlink` identities match an entry
/// on disk with the git tree entry at the same path (git names paths
/// with `/`, and so does this).
struct RepositoryPosition<'r> {
    repository: &'r str,
    relative_path: &'r str,
}

impl<'r> RepositoryPosition<'r> {
    fn of(r: &'r ResourceView) -> Option<Self> {
        Some(Self {
            repository: r.property("repository")?,
            relative_path: r.property("relative-path")?,
        })
    }

    /// `child` (the entry `facts`), placed one level below this one.
    fn place(&self, child: Discovered, facts: &Facts) -> Discovered {
        let path = if self.relative_path.is_empty() {
            facts.name.clone()
        } else {
            format!("{}/{}", self.relative_path, facts.name)
        };
        let kind = match facts.kind {
            Kind::Directory => "directory",
            Kind::Symlink => "symlink",
            Kind::File | Kind::Hardlink | Kind::Other => "file",
        };
        child
            .with_property("repository", self.repository)
            .with_property("relative-path", path)
            .with_property("entry-kind", kind)
    }
}

pub struct FsDirectoryHandler;

impl Handler for FsDirectoryHandler {
    const DESCRIPTION: &'static str =
        "A directory: its entries one level deep (directories, files, symlinks, hard links)";

    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        let path = args.require("path")?;
        let facts = Facts::of(path).map_err(|e| io(path, e))?;
        if facts.kind != Kind::Directory {
            return Err(HandlerError::InvalidArgs(format!(
                "{path} is not a directory (it is {}); register a directory, or a type for \
                 what it is",
                facts.kind.article()
            )));
        }
        Ok(facts.properties())
    }

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let location = r.location()?;
        let position = RepositoryPosition::of(r);
        let mut children: Vec<Discovered> = entries(location, true, Some(MAX_CHILDREN))?
            .into_iter()
            .map(|facts| {
                let mut child = Discovered::new(facts.kind.type_name())
                    .named(name_part(&facts.name))
                    .at(facts.path.clone());
                if let Some(hash) = facts.hash() {
                    child = child.with_hash(hash);
                }
                if let Some(position) = &position {
                    child = position.place(child, &facts);
                }
                facts
                    .properties()
                    .into_iter()
                    .fold(child, |c, p| c.with_property(p.key, p.value))
            })
            .collect();
        // A devcontainer here, unless this is a checkout's work tree (the
        // checkout has it then).
        if r.property(WORKTREE_OF).is_none() {
            children.extend(devcontainer::detect(r, location));
        }
        Ok(children)
    }

    /// A hash over the directory's own entries — name, kind, size and
    /// modification time of each, one level: an entry added, removed,
    /// renamed or modified changes it; a change deeper down changes the
    /// hash of the subdirectory it is in (each directory is a resource).
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        let location = r.location()?;
        let mut text = String::new();
        // The devcontainer configuration lies one level down; its edits
        // must change this hash (the devcontainer child's properties
        // come from it).
        if let Some(digest) = devcontainer::config_digest(location) {
            text.push_str(&format!("devcontainer\0{digest}\n"));
        }
        for facts in entries(location, false, None)? {
            text.push_str(&format!(
                "{}\0{}\0{}\0{}\n",
                facts.name,
                facts.kind.type_name(),
                facts.size,
                facts.modified_nanos
            ));
        }
        Ok(sha256(text.as_bytes()))
    }

    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        let location = r.location()?;
        if let Some(file) = file {
            let path = inside(location, file)?;
            return Ok(Facts::of(&path).map_err(|e| io(&path, e))?.describe());
        }
        let list = entries(location, false, None)?;
        let count = |k: Kind| list.iter().filter(|f| f.kind == k).count();
        let bytes: u64 = list
            .iter()
            .filter(|f| matches!(f.kind, Kind::File | Kind::Hardlink))
            .map(|f| f.size)
            .sum();
        let (dirs, files) = (count(Kind::Directory), count(Kind::File));
        let (hardlinks, symlinks) = (count(Kind::Hardlink), count(Kind::Symlink));
        let mut out = Inspection::new()
            .line(format!("directory {location}"))
            .line(format!(
                "{} entries: {dirs} directories, {files} files, {hardlinks} hard links, \
                 {symlinks} symlinks ({bytes} bytes in files)",
                list.len(),
            ))
            .data("path", location)
            .data("type", "fs-directory")
            .data("entries", list.len().to_string())
            .data("directories", dirs.to_string())
            .data("files", files.to_string())
            .data("hardlinks", hardlinks.to_string())
            .data("symlinks", symlinks.to_string())
            .data("bytes-in-files", bytes.to_string());
        for facts in list.iter().take(50) {
            out = out.line(format!("  {}", facts.line()));
        }
        if list.len() > 50 {
            out = out.line(format!("  … {} more", list.len() - 50));
        }
        Ok(out)
    }
}

pub struct FsMountHandler;

impl Handler for FsMountHandler {
    const DESCRIPTION: &'static str = "A mount point: its root directory";

    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        let path = args.require("path")?;
        let props = FsDirectoryHandler::validate(args)?;
        if !host::location_is_mount_point() {
            return Err(HandlerError::InvalidArgs(format!(
                "{path} is not a mount point (it is on the same device as the directory above \
                 it); register it as fs-directory"
            )));
        }
        Ok(props)
    }

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let location = r.location()?;
        Ok(vec![
            Discovered::new("fs-directory")
                .named(MOUNT_ROOT)
                .at(location),
        ])
    }

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        FsDirectoryHandler::content_hash(r)
    }

    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        let inner = FsDirectoryHandler::inspect(r, file)?;
        let mut out = Inspection::new()
            .line(format!("mount point {}", r.location()?))
            .data("mount-point", "true");
        out.text.push_str(&inner.text);
        out.fields.extend(inner.fields);
        Ok(out)
    }
}

/// Hash and describe the one entry at the resource's location.
fn entry_hash(r: &ResourceView) -> Result<String, HandlerError> {
    let location = r.location()?;
    let facts = Facts::of(location).map_err(|e| io(location, e))?;
    match facts.kind {
        Kind::Symlink => Ok(sha256(facts.target.unwrap_or_default().as_bytes())),
        Kind::File | Kind::Hardlink => {
            facts::digest(location, facts.size).map_err(|e| io(location, e))
        }
        other => Err(HandlerError::Failed(format!(
            "{location} is {} now",
            other.article()
        ))),
    }
}

fn entry_inspect(r: &ResourceView) -> Result<Inspection, HandlerError> {
    let location = r.location()?;
    Ok(Facts::of(location).map_err(|e| io(location, e))?.describe())
}

pub struct FsFileHandler;

impl Handler for FsFileHandler {
    const DESCRIPTION: &'static str = "A regular file";
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        entry_hash(r)
    }
    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        entry_inspect(r)
    }
}

pub struct FsHardlinkHandler;

impl Handler for FsHardlinkHandler {
    const DESCRIPTION: &'static str = "A file with more than one link";
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        entry_hash(r)
    }
    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        entry_inspect(r)
    }
}

pub struct FsSymlinkHandler;

impl Handler for FsSymlinkHandler {
    const DESCRIPTION: &'static str = "A symbolic link (never followed)";
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        entry_hash(r)
    }
    fn inspect(r: &ResourceView, _file: Option<&str>) -> Result<Inspection, HandlerError> {
        entry_inspect(r)
    }
}

resource_handler_sdk::export_plugin!(
    module: "cleveragents.resource.handlers.fs",
    version: env!("CARGO_PKG_VERSION"),
    classes: [
        FsDirectoryHandler, FsMountHandler, FsFileHandler, FsSymlinkHandler, FsHardlinkHandler,
    ],
);
