//! How the host runs `git`: the one home of what makes a `git` process
//! hermetic (no user or system configuration, no prompt, no pager, no
//! transport, the C locale), where the `git` executable is found, and
//! what keeps `git` from running any program a repository's
//! configuration names ([`Neutral`], in `neutral.rs`). Both of the host's
//! git users — the `git` interface handlers ask through
//! (`plugin::git`) and the `git_worktree` sandbox strategy — run every
//! `git` process through these, so the rules are written once.
//!
//! * **`PATH`: handed in, absolute entries only.** The library reads no
//!   environment: the `PATH` to find `git` on comes from the embedder as
//!   a [`GitTools`] (`registry::Options::git`; the CLI hands in its own
//!   `PATH`, and the default is the system's standard directories,
//!   [`STANDARD_PATH`]). An empty or relative entry names a directory
//!   relative to wherever the process happens to be — inside a
//!   repository, it would find a `git` (or a `sh`, for git's own
//!   children) the repository ships. [`absolute_path`] keeps the absolute
//!   entries; the `git` executable is searched there ([`find_git`]) and
//!   `git` itself is handed that `PATH`.
//! * **No transport.** `GIT_ALLOW_PROTOCOL` set empty allows no
//!   protocol at all, whatever the configuration says: no `ssh`, no
//!   `ext::`, no remote helper, no credential helper or askpass can be
//!   reached through a fetch, and none is ever needed (the host reads).
//! * **No editor, no pager.** `GIT_EDITOR=:` and `GIT_SEQUENCE_EDITOR=:`
//!   (git's own "no editor") outrank `core.editor` and `sequence.editor`;
//!   `GIT_PAGER=cat` outranks `core.pager` (and callers pass
//!   `--no-pager`, and read git's output through a pipe).

mod neutral;

pub use neutral::{HELD, LIST_CONFIG, MAX_OVERRIDES, Neutral, NeutralError, RULES, Rule};

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where git is looked for when the embedder names no `PATH`: the
/// system's standard directories.
pub const STANDARD_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where the host finds `git`, and the `PATH` it hands every `git`
/// process: a `PATH` value's absolute entries, as the embedder handed it
/// (never read from the process here). `git` itself is looked for on
/// first use, once.
#[derive(Debug, Clone)]
pub struct GitTools {
    path: OsString,
    program: OnceLock<Option<PathBuf>>,
}

impl Default for GitTools {
    /// [`STANDARD_PATH`].
    fn default() -> Self {
        Self::on_path(OsStr::new(STANDARD_PATH))
    }
}

impl GitTools {
    /// `git` looked for in `path`'s absolute entries (a `PATH` value:
    /// what the CLI hands in is its own).
    pub fn on_path(path: &OsStr) -> Self {
        Self {
            path: absolute_path(path),
            program: OnceLock::new(),
        }
    }

    /// `program` as the `git` to run (it is not looked for), handed
    /// `path`'s absolute entries.
    pub fn with_program(program: impl Into<PathBuf>, path: &OsStr) -> Self {
        Self {
            path: absolute_path(path),
            program: OnceLock::from(Some(program.into())),
        }
    }

    /// The `PATH` every `git` process is handed (absolute entries only).
    pub fn search_path(&self) -> &OsStr {
        &self.path
    }

    /// The `git` to run and its environment, or why there is none (for
    /// an error message).
    pub fn find(&self) -> Result<GitProgram<'_>, String> {
        let program = self.program.get_or_init(|| find_git(&self.path));
        match program {
            Some(path) => Ok(GitProgram {
                path,
                search_path: &self.path,
            }),
            None => Err(format!(
                "no executable git was found in PATH's absolute entries ({}); install git or put \
                 its directory in PATH (empty and relative PATH entries are never searched)",
                self.path.to_string_lossy()
            )),
        }
    }
}

/// A `git` found by [`GitTools::find`]: the executable, and the hermetic
/// environment it runs in.
#[derive(Debug, Clone, Copy)]
pub struct GitProgram<'a> {
    pub path: &'a Path,
    search_path: &'a OsStr,
}

impl GitProgram<'_> {
    /// The variables that make a `git` process hermetic: `PATH` (its
    /// absolute entries only), no system or global configuration, no
    /// home, no prompt, no editor, no pager, no transport, the C locale.
    /// Callers clear the environment, then set these (plus what their own
    /// use needs: an identity, lock behaviour) and [`Neutral`]'s arguments.
    pub fn hermetic(&self) -> Vec<(OsString, OsString)> {
        hermetic(self.search_path)
    }
}

/// [`GitProgram::hermetic`] with `path` as `PATH`.
fn hermetic(path: &OsStr) -> Vec<(OsString, OsString)> {
    let mut vars = vec![("PATH".into(), path.to_owned())];
    vars.extend(
        [
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("GIT_ATTR_NOSYSTEM", "1"),
            ("HOME", "/nonexistent"),
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GIT_EDITOR", ":"),
            ("GIT_SEQUENCE_EDITOR", ":"),
            ("GIT_PAGER", "cat"),
            ("GIT_ALLOW_PROTOCOL", ""),
            ("GIT_NO_LAZY_FETCH", "1"),
            ("LC_ALL", "C"),
        ]
        .map(|(k, v)| (k.into(), v.into())),
    );
    vars
}

/// `path` (a `PATH` value) without its empty and relative entries.
pub fn absolute_path(path: &OsStr) -> OsString {
    let kept: Vec<&[u8]> = path
        .as_bytes()
        .split(|b| *b == b':')
        .filter(|entry| entry.first() == Some(&b'/'))
        .collect();
    OsString::from_vec(kept.join(&b':'))
}

/// The first executable regular file named `git` in `path`'s absolute
/// entries.
pub fn find_git(path: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&absolute_path(path))
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("git"))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Bytes of a `.git` file read to see which git directory it names.
const GITFILE_LIMIT: u64 = 4096;

/// The git directory a `.git` file names (`gitdir: <path>`, relative
/// to the file's directory), read with a bound and without blocking.
pub fn gitfile_target(file: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::File::options()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(file)
        .ok()?;
    if !opened.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    opened.take(GITFILE_LIMIT).read_to_string(&mut text).ok()?;
    let target = text
        .strip_prefix("gitdir: ")?
        .trim_end_matches(['\n', '\r']);
    (!target.is_empty()).then(|| file.parent().unwrap_or(Path::new("/")).join(target))
}

/// Run `git ARGS` in `dir` as a unit test's author (an identity, `main`
/// as the first branch, no user or system configuration); panic with
/// git's words if it fails; answer its stdout.
#[cfg(test)]
pub(crate) fn test_git(dir: &std::path::Path, args: &[&str]) -> String {
    let tools = GitTools::default();
    let git = tools.find().expect("git for the tests");
    let out = std::process::Command::new(git.path)
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(git.hermetic())
        .envs([
            // The test's author clones local repositories.
            ("GIT_ALLOW_PROTOCOL", "file"),
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@example.com"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@example.com"),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(test)]
mod tests;
