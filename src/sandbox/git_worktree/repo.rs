//! Where the host tells git a sandbox's repository is: the one home of
//! the host's own records of a `git_worktree` sandbox — the original's
//! git directory and common directory (asked of the original, which the
//! agent cannot write), and the sandbox's git directory
//! `<common>/worktrees/<name>` (the one whose `gitdir` file, written by
//! `git worktree add`, names `<workdir>/.git`) — and of running git with
//! them.
//!
//! Every git process names its git directory and work tree
//! (`--git-dir`, `--work-tree`): the agent's `<workdir>/.git` is never
//! followed, so a `.git` file pointed at a git directory the agent made
//! (its filters, its `core.worktree`) reaches nothing. Each side's
//! configuration is listed once and neutralised ([`Neutral`]); a
//! configuration file inside the sandbox's area is refused, so nothing
//! the agent writes can become configuration between that listing and
//! the command. The `.git` file is still checked ([`Git::check_gitfile`]):
//! the agent's own git goes where the host says, repaired if the agent
//! rewrote it, refused with the reason if it made a directory there.

use std::cell::OnceCell;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::git_env::{GitProgram, LIST_CONFIG, Neutral, gitfile_target};
use crate::sandbox::{SandboxError, SandboxPlace};

/// Which repository a command is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// The original checkout: its refs, its worktrees.
    Original,
    /// The sandbox's working copy, through its own git directory.
    Sandbox,
}

/// One operation's git: the program, the host's records, and each side's
/// neutralised configuration (listed on first use).
pub(super) struct Git<'a> {
    program: GitProgram<'a>,
    /// How long one git process may run (then its process group is
    /// killed): a FIFO named `.gitattributes` in the working copy would
    /// otherwise block an operation, and its lock, for ever.
    deadline: Duration,
    area: PathBuf,
    original: PathBuf,
    original_git_dir: PathBuf,
    common: PathBuf,
    /// The sandbox's work tree and git directory, once it has them.
    sandbox: Option<(PathBuf, PathBuf)>,
    neutral: [OnceCell<Neutral>; 2],
}

/// What `git rev-parse` says of the original: its work tree's root (when
/// asked), git directory and common directory.
pub(super) struct Located {
    pub top: Option<PathBuf>,
    pub git_dir: PathBuf,
    pub common: PathBuf,
}

impl<'a> Git<'a> {
    /// Ask the original where its repository is (`with_top`: and its
    /// work tree's root).
    pub fn locate(
        program: GitProgram<'_>,
        deadline: Duration,
        original: &Path,
        with_top: bool,
    ) -> Result<Located, SandboxError> {
        let mut args = vec!["rev-parse", "--path-format=absolute"];
        if with_top {
            args.push("--show-toplevel");
        }
        args.extend(["--git-dir", "--git-common-dir"]);
        let mut cmd = command(program, &Neutral::fixed());
        cmd.arg("-C").arg(original).args(&args);
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let out = output(cmd, program.path, original, &args, deadline)?;
        let text = String::from_utf8_lossy(&out);
        let mut lines = text.lines().map(PathBuf::from);
        let top = if with_top { lines.next() } else { None };
        match (lines.next(), lines.next()) {
            (Some(git_dir), Some(common)) => Ok(Located {
                top,
                git_dir,
                common,
            }),
            _ => Err(SandboxError::Git {
                args: "rev-parse".into(),
                dir: original.to_path_buf(),
                stderr: format!("unexpected answer {}", crate::text::quote(&text)),
            }),
        }
    }

    /// The original's side only (before the sandbox's worktree exists).
    pub fn original(
        program: GitProgram<'a>,
        deadline: Duration,
        place: &SandboxPlace,
        located: Located,
    ) -> Self {
        Self {
            program,
            deadline,
            area: real(&place.area),
            original: place.original.clone(),
            original_git_dir: located.git_dir,
            common: located.common,
            sandbox: None,
            neutral: Default::default(),
        }
    }

    /// Both sides of an existing sandbox, its git directory found from
    /// the host's records; refused when there is none (or more than one).
    pub fn open(
        program: GitProgram<'a>,
        deadline: Duration,
        place: &SandboxPlace,
    ) -> Result<Self, SandboxError> {
        let located = Self::locate(program, deadline, &place.original, false)?;
        let mut git = Self::original(program, deadline, place, located);
        let admin = match git.admins(&place.workdir)?.as_slice() {
            [one] => one.clone(),
            found => {
                return Err(SandboxError::Unsuitable(format!(
                    "{} git worktrees of {} name the sandbox's working copy {} (expected one: the one `git worktree add` made); destroy the sandbox",
                    found.len(),
                    place.original.display(),
                    place.workdir.display()
                )));
            }
        };
        git.sandbox = Some((place.workdir.clone(), admin));
        Ok(git)
    }

    /// The git directories under `<common>/worktrees/` whose `gitdir`
    /// file (git's record of where the worktree is) names
    /// `<workdir>/.git`.
    pub fn admins(&self, workdir: &Path) -> Result<Vec<PathBuf>, SandboxError> {
        let name = workdir.file_name().unwrap_or_default();
        let expected = workdir
            .parent()
            .map(real)
            .unwrap_or_default()
            .join(name)
            .join(".git");
        let worktrees = self.common.join("worktrees");
        let entries = match std::fs::read_dir(&worktrees) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(SandboxError::Io {
                    what: "cannot list the worktrees of",
                    path: worktrees,
                    source,
                });
            }
        };
        let mut found = Vec::new();
        for entry in entries.flatten() {
            let admin = entry.path();
            let Some(named) = read_small(&admin.join("gitdir")) else {
                continue;
            };
            let named = Path::new(OsStr::from_bytes(named.trim_ascii_end()));
            if named == expected || named == workdir.join(".git") {
                found.push(real(&admin));
            }
        }
        found.sort();
        Ok(found)
    }

    /// Set the sandbox's side (after `git worktree add` made it).
    pub fn with_sandbox(&mut self, workdir: &Path, admin: PathBuf) {
        self.sandbox = Some((workdir.to_path_buf(), admin));
    }

    /// The sandbox's git directory.
    /// The original repository's object store.
    pub fn objects(&self) -> PathBuf {
        self.common.join("objects")
    }

    /// The sandbox's work tree (empty before it has one).
    pub fn work_tree(&self) -> &Path {
        self.sandbox.as_ref().map_or(Path::new(""), |(w, _)| w)
    }

    pub fn admin(&self) -> &Path {
        self.sandbox.as_ref().map_or(Path::new(""), |(_, a)| a)
    }

    /// The original's git directory (its own HEAD), and its work tree.
    fn side(&self, side: Side) -> (&Path, &Path) {
        match (side, &self.sandbox) {
            (Side::Sandbox, Some((work, admin))) => (admin, work),
            _ => (&self.original_git_dir, &self.original),
        }
    }

    /// `side`'s configuration, listed once and neutralised.
    fn neutral(&self, side: Side) -> Result<&Neutral, SandboxError> {
        let cell = &self.neutral[side as usize];
        if let Some(done) = cell.get() {
            return Ok(done);
        }
        let listed = self.spawn(side, &Neutral::fixed(), LIST_CONFIG, &[], None)?;
        let (_, work) = self.side(side);
        let neutral = Neutral::from_listing(&listed, work, Some(&self.area))
            .map_err(|e| SandboxError::Unsuitable(e.to_string()))?;
        Ok(cell.get_or_init(|| neutral))
    }

    /// `git ARGS` on `side`, its stdout as text.
    pub fn run(&self, side: Side, args: &[&str]) -> Result<String, SandboxError> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        self.run_with(side, &args, &[], None)
    }

    /// `git ARGS` on `side` with extra environment and stdin read from a
    /// file.
    pub fn run_with(
        &self,
        side: Side,
        args: &[&OsStr],
        env: &[(&str, &OsStr)],
        stdin: Option<&Path>,
    ) -> Result<String, SandboxError> {
        let neutral = self.neutral(side)?;
        let out = self.spawn(side, neutral, args, env, stdin)?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn spawn<A: AsRef<OsStr>>(
        &self,
        side: Side,
        neutral: &Neutral,
        args: &[A],
        env: &[(&str, &OsStr)],
        stdin: Option<&Path>,
    ) -> Result<Vec<u8>, SandboxError> {
        let (git_dir, work) = self.side(side);
        let mut cmd = command(self.program, neutral);
        let mut dir_arg = OsString::from("--git-dir=");
        dir_arg.push(git_dir);
        let mut tree_arg = OsString::from("--work-tree=");
        tree_arg.push(work);
        cmd.arg(dir_arg).arg(tree_arg).args(args).current_dir(work);
        for (key, value) in env {
            cmd.env(key, value);
        }
        if let Some(file) = stdin {
            let file = std::fs::File::open(file).map_err(|source| SandboxError::Io {
                what: "cannot read",
                path: file.to_path_buf(),
                source,
            })?;
            cmd.stdin(file);
        }
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let result = output(cmd, self.program.path, work, &args, self.deadline);
        // A git killed at its deadline may leave the sandbox's index lock
        // behind; it was this git's (one held by anyone else would have
        // refused it at once, not kept it waiting), so the next operation
        // must not trip over it.
        if let Err(SandboxError::Git { stderr, .. }) = &result
            && stderr.starts_with(TIMED_OUT)
            && side == Side::Sandbox
            && !env.iter().any(|(k, _)| *k == "GIT_INDEX_FILE")
        {
            let _ = std::fs::remove_file(self.admin().join("index.lock"));
        }
        result
    }

    /// The sandbox's `.git` file must name its git directory, as `git
    /// worktree add` wrote it. Rewritten by the agent (or removed), it is
    /// written again — a new file renamed over whatever is there, so a
    /// symlink is replaced, never followed; a directory there is refused.
    pub fn check_gitfile(&self) -> Result<(), SandboxError> {
        let Some((work, admin)) = &self.sandbox else {
            return Ok(());
        };
        let gitfile = work.join(".git");
        if gitfile_target(&gitfile).is_some_and(|named| real(&named) == *admin) {
            return Ok(());
        }
        if std::fs::symlink_metadata(&gitfile).is_ok_and(|m| m.is_dir()) {
            return Err(SandboxError::Unsuitable(format!(
                "{} is a directory, not the .git file the host wrote (naming {}); move it away and run the command again (the host writes the file back), or destroy the sandbox",
                gitfile.display(),
                admin.display()
            )));
        }
        write_gitfile(work, admin)
    }
}

/// `git` with the hermetic environment and `neutral`'s overrides.
fn command(program: GitProgram<'_>, neutral: &Neutral) -> Command {
    let mut cmd = Command::new(program.path);
    cmd.env_clear()
        .args(neutral.args())
        .args([
            "-c",
            "color.ui=false",
            // A worktree's records stay absolute (git 2.48 and later could
            // write them relative).
            "-c",
            "worktree.useRelativePaths=false",
            "--no-pager",
        ])
        .stdin(Stdio::null());
    cmd.envs(program.hermetic());
    // The identity of the commits a sandbox makes.
    for (key, value) in [
        ("GIT_AUTHOR_NAME", "agents"),
        ("GIT_AUTHOR_EMAIL", "agents@localhost"),
        ("GIT_COMMITTER_NAME", "agents"),
        ("GIT_COMMITTER_EMAIL", "agents@localhost"),
    ] {
        cmd.env(key, value);
    }
    cmd
}

/// Run `cmd` (in its own process group) to its end or to `deadline`,
/// when the group is killed; its stdout, or the failure with its stderr.
fn output(
    mut cmd: Command,
    program: &Path,
    dir: &Path,
    args: &[&OsStr],
    deadline: Duration,
) -> Result<Vec<u8>, SandboxError> {
    use std::os::unix::process::CommandExt;
    let shown = || {
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    };
    cmd.process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().map_err(|source| SandboxError::Io {
        what: "cannot run git",
        path: program.to_path_buf(),
        source,
    })?;
    let group = child.id();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let expired = finished.recv_timeout(deadline).is_err();
        if expired {
            kill_group(group);
        }
        expired
    });
    let out = child.wait_with_output();
    let _ = done.send(());
    let killed = watchdog.join().unwrap_or(false);
    let out = out.map_err(|source| SandboxError::Io {
        what: "cannot wait for git",
        path: program.to_path_buf(),
        source,
    })?;
    if killed {
        return Err(SandboxError::Git {
            args: shown(),
            dir: dir.to_path_buf(),
            stderr: format!(
                "{TIMED_OUT} {} s and was killed (a working copy can make git wait \
                 for ever: a FIFO named .gitattributes or .gitignore, say); remove what blocks \
                 it and run the command again",
                deadline.as_secs()
            ),
        });
    }
    if !out.status.success() {
        return Err(SandboxError::Git {
            args: shown(),
            dir: dir.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// How a refusal of a git killed at its deadline begins.
const TIMED_OUT: &str = "it did not finish within";

/// SIGKILL to git's process group (its id is git's pid: it leads it).
fn kill_group(group: u32) {
    use rustix::process::{Pid, Signal, kill_process_group};
    if let Some(pid) = i32::try_from(group).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
}

/// Write `<work>/.git` naming `admin`: a new file beside it, renamed
/// over it, both through the working copy's descriptor.
fn write_gitfile(work: &Path, admin: &Path) -> Result<(), SandboxError> {
    use std::io::Write;
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| SandboxError::Io { what, path, source }
    };
    let dir = cap_std::fs::Dir::open_ambient_dir(work, cap_std::ambient_authority())
        .map_err(io("cannot open the working copy", work))?;
    let temp = format!(".git.agents-{}.tmp", std::process::id());
    let _ = dir.remove_file(&temp);
    let mut text = b"gitdir: ".to_vec();
    text.extend_from_slice(admin.as_os_str().as_bytes());
    text.push(b'\n');
    let written = dir
        .open_with(
            &temp,
            cap_std::fs::OpenOptions::new().write(true).create_new(true),
        )
        .and_then(|mut file| file.write_all(&text))
        .and_then(|()| dir.rename(&temp, &dir, ".git"));
    if written.is_err() {
        let _ = dir.remove_file(&temp);
    }
    written.map_err(io("cannot write the .git file back in", work))
}

/// A small regular file's bytes (git's own records), or `None`.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// `path` resolved (as itself when it cannot be).
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
