//! What keeps `git` from running a program a repository's configuration
//! names: the one table of command-bearing configuration keys ([`RULES`])
//! and how a repository's effective configuration becomes the `-c`
//! arguments that override each of them ([`Neutral`]).
//!
//! **How.** A repository's own configuration (`.git/config`,
//! `config.worktree`, and whatever they `include` or `includeIf`) can
//! name programs git runs while it reads: filter drivers, diff drivers,
//! signature verifiers, pagers, hooks… Command-line configuration is read
//! last and wins, so the host overrides them:
//!
//! * keys with a fixed name (`core.fsmonitor`, `core.hooksPath`,
//!   `gpg.program`, …) on every git process, before anything is known
//!   about the repository ([`Neutral::fixed`]);
//! * keys with a name the repository chooses (`filter.<driver>.clean`,
//!   `diff.<driver>.textconv`, …) by listing the effective configuration
//!   first — `git config --list --null --name-only --show-origin`
//!   ([`LIST_CONFIG`]), run with the same git directory and work tree as
//!   the commands that follow, so includes and conditional includes
//!   resolve alike — and overriding each command-bearing key found
//!   ([`Neutral::from_listing`]).
//!
//! `-c` rather than `GIT_CONFIG_COUNT`: git before 2.31 ignores that
//! variable silently, and a protection that silently does nothing is
//! worse than a refusal. `-c` splits at the first `=`, so a
//! command-bearing key whose name holds one (a driver named `a=b`) cannot
//! be overridden: that repository is refused, as is one naming more than
//! [`MAX_OVERRIDES`] programs (the arguments are bounded).
//!
//! **When the configuration can change under us.** The listing and the
//! command are two processes. Registration reads repositories whose
//! author is not racing the host. A sandbox's agent is: so there every
//! configuration file the listing names must lie outside the sandbox
//! ([`Neutral::from_listing`]'s `forbidden`), which holds because the
//! host names the git directory itself (the agent's `.git` file is never
//! followed) and only an `include` could reach in.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// One command-bearing configuration key and its neutral value.
///
/// `key` is either a fixed name (always overridden) or a pattern where
/// `*` stands for the part a repository chooses: `section.*.name` (any
/// subsection) or `section.*` (any name). `set` is the key written for a
/// match (its `*` replaced by the matched part): usually `key` itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub key: &'static str,
    pub set: &'static str,
    pub value: &'static str,
    /// What git would run.
    pub runs: &'static str,
}

const fn rule(key: &'static str, value: &'static str, runs: &'static str) -> Rule {
    Rule {
        key,
        set: key,
        value,
        runs,
    }
}

/// Every configuration key the host overrides so that git runs no
/// program a repository names (the README's threat model lists these,
/// and what else holds: no transport, no editor, protected keys).
pub const RULES: &[Rule] = &[
    rule(
        "core.fsmonitor",
        "false",
        "a file-system monitor (a hook program, or git's daemon)",
    ),
    rule(
        "core.hooksPath",
        "/dev/null",
        "hooks (post-checkout, reference-transaction, …)",
    ),
    rule("core.pager", "cat", "a pager"),
    rule("pager.*", "false", "a pager for one command"),
    rule("core.askPass", "", "a password prompt"),
    rule("credential.helper", "", "credential helpers"),
    rule("credential.*.helper", "", "credential helpers for one URL"),
    rule("diff.external", "", "an external diff program"),
    rule("diff.*.textconv", "", "a diff driver's text conversion"),
    rule("diff.*.command", "", "a diff driver's program"),
    rule("merge.*.driver", "", "a merge driver"),
    rule(
        "filter.*.clean",
        "",
        "a clean filter (hashing work tree files)",
    ),
    rule(
        "filter.*.smudge",
        "",
        "a smudge filter (checking files out)",
    ),
    rule("filter.*.process", "", "a long-running filter process"),
    rule(
        "filter.*.required",
        "false",
        "(no program: a required filter without one would fail)",
    ),
    rule(
        "log.showSignature",
        "false",
        "signature verification (gpg.program) while listing commits",
    ),
    rule("gpg.program", "", "a signature verifier"),
    rule("gpg.openpgp.program", "", "a signature verifier"),
    rule("gpg.x509.program", "", "a signature verifier"),
    rule("gpg.ssh.program", "", "a signature verifier"),
    rule("gpg.*.program", "", "a signature verifier"),
    rule(
        "gpg.ssh.defaultKeyCommand",
        "",
        "a program naming the signing key",
    ),
    rule("commit.gpgSign", "false", "a signer (gpg.program)"),
    rule("tag.gpgSign", "false", "a signer (gpg.program)"),
    rule(
        "submodule.recurse",
        "false",
        "git inside submodules, whose configuration the host did not read",
    ),
    rule(
        "status.submoduleSummary",
        "false",
        "git inside submodules, whose configuration the host did not read",
    ),
    rule(
        "gc.auto",
        "0",
        "automatic gc (gc.recentObjectsHook, the pre-auto-gc hook)",
    ),
    rule("maintenance.auto", "false", "automatic maintenance"),
    rule(
        "protocol.allow",
        "never",
        "transports (ssh, ext::, helpers)",
    ),
    Rule {
        key: "hook.*.command",
        set: "hook.*.enabled",
        value: "false",
        runs: "a configured hook (git 2.54 and later)",
    },
    Rule {
        key: "hook.*.event",
        set: "hook.*.enabled",
        value: "false",
        runs: "a configured hook (git 2.54 and later)",
    },
];

const NO_TRANSPORT: &str = "never reached: GIT_ALLOW_PROTOCOL is set empty, which allows no transport whatever the configuration says";
const PROTECTED: &str = "git reads it only from system, global or command-line configuration, never a repository's; the host reads neither system nor global";
const NEVER_RUN: &str = "only a porcelain command the host never runs uses it (difftool, mergetool, help, instaweb, send-email, git gui)";
const NOT_A_PROGRAM: &str = "not a program";

/// The command-bearing (or redirecting) keys [`RULES`] does not override,
/// and why each cannot run anything: the rest of the one table (a unit
/// test holds every such key `git help --config` names to one of the
/// two).
pub const HELD: &[(&str, &str)] = &[
    (
        "core.editor",
        "GIT_EDITOR=: (git's own \"no editor\") outranks it",
    ),
    ("sequence.editor", "GIT_SEQUENCE_EDITOR=: outranks it"),
    ("core.sshCommand", NO_TRANSPORT),
    ("core.gitProxy", NO_TRANSPORT),
    ("core.alternateRefsCommand", NO_TRANSPORT),
    ("remote.*.uploadpack", NO_TRANSPORT),
    ("remote.*.receivepack", NO_TRANSPORT),
    ("remote.*.vcs", NO_TRANSPORT),
    ("remote.*.proxy", NO_TRANSPORT),
    ("http.proxy", NO_TRANSPORT),
    ("url.*.insteadOf", NO_TRANSPORT),
    ("protocol.*.allow", NO_TRANSPORT),
    ("uploadpack.packObjectsHook", PROTECTED),
    ("safe.directory", PROTECTED),
    ("trace2.*", PROTECTED),
    (
        "gc.recentObjectsHook",
        "runs only in gc, repack and prune, which the host never runs (and gc.auto=0)",
    ),
    ("difftool.*.cmd", NEVER_RUN),
    ("mergetool.*.cmd", NEVER_RUN),
    ("guitool.*.cmd", NEVER_RUN),
    ("browser.*.cmd", NEVER_RUN),
    ("man.*.cmd", NEVER_RUN),
    ("help.browser", NEVER_RUN),
    ("instaweb.browser", NEVER_RUN),
    ("web.browser", NEVER_RUN),
    ("sendemail.ccCmd", NEVER_RUN),
    ("sendemail.toCmd", NEVER_RUN),
    ("sendemail.headerCmd", NEVER_RUN),
    (
        "alias.*",
        "git never lets an alias hide a built-in command, and the host runs only built-ins with a fixed argv",
    ),
    (
        "include.path",
        "not a program: what it includes is listed, and overridden, like the rest",
    ),
    (
        "includeIf.*.path",
        "not a program: what it includes is listed, and overridden, like the rest",
    ),
    (
        "core.worktree",
        "not a program: the host names the git directory and work tree itself (sandboxes) or refuses a work tree that does not hold its repository (registration)",
    ),
    (
        "core.bare",
        "not a program: as core.worktree (an explicit work tree outranks it)",
    ),
    ("color.pager", NOT_A_PROGRAM),
    ("column.clean", NOT_A_PROGRAM),
];

/// The arguments (after `git`'s global options) that list a
/// repository's effective configuration for [`Neutral::from_listing`].
pub const LIST_CONFIG: &[&str] = &["config", "--list", "--null", "--name-only", "--show-origin"];

/// Command-bearing keys one repository may name before the host refuses
/// to run git in it.
pub const MAX_OVERRIDES: usize = 512;
/// Bytes of `-c` arguments, for the same reason.
const MAX_BYTES: usize = 64 * 1024;

/// Why git is not run in a repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NeutralError {
    #[error(
        "the repository's configuration names {count} programs (filters, diff drivers, …); the host overrides at most {MAX_OVERRIDES} and does not run git in it"
    )]
    TooMany { count: usize },
    #[error(
        "the repository's configuration key {} names a program and its name holds '=' (or a line break), which git's -c cannot override; the host does not run git in it (rename that section of the configuration)",
        crate::text::quote(key)
    )]
    Unoverridable { key: String },
    #[error(
        "git would read the configuration file {} inside {}, which the sandboxed agent can write; the host does not run git with configuration the agent controls (remove the include that names it from the original repository's configuration)",
        file.display(),
        inside.display()
    )]
    Writable { file: PathBuf, inside: PathBuf },
    #[error("cannot read git's configuration listing: {0}")]
    Listing(String),
}

/// The `-c` arguments that neutralise one repository's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neutral {
    args: Vec<OsString>,
}

impl Neutral {
    /// The keys with a fixed name: for a git process run before the
    /// repository's configuration is known (finding the repository,
    /// listing its configuration), and the base of every other.
    pub fn fixed() -> Self {
        let mut args = Vec::new();
        for rule in RULES.iter().filter(|r| !r.key.contains('*')) {
            args.push(OsString::from("-c"));
            args.push(OsString::from(format!("{}={}", rule.set, rule.value)));
        }
        Self { args }
    }

    /// The fixed keys plus an override of every command-bearing key that
    /// `listing` (the output of [`LIST_CONFIG`], run in `cwd`) names.
    /// With `forbidden`, a configuration file inside that directory (the
    /// sandbox's area: the agent writes there) is refused.
    pub fn from_listing(
        listing: &[u8],
        cwd: &Path,
        forbidden: Option<&Path>,
    ) -> Result<Self, NeutralError> {
        // Every record ends with a NUL: nothing after the last one.
        let body = match listing {
            [] => &[][..],
            [body @ .., 0] => body,
            _ => return Err(NeutralError::Listing("it does not end a record".into())),
        };
        let mut records = body.split(|b| *b == 0).filter(|_| !body.is_empty());
        let mut keys: Vec<Vec<u8>> = Vec::new();
        while let Some(origin) = records.next() {
            let Some(key) = records.next() else {
                return Err(NeutralError::Listing(format!(
                    "origin {} has no key",
                    crate::text::quote(&String::from_utf8_lossy(origin))
                )));
            };
            if let (Some(inside), Some(file)) = (forbidden, origin.strip_prefix(b"file:")) {
                refuse_inside(&cwd.join(OsStr::from_bytes(file)), inside)?;
            }
            // Our own `-c` keys come back as `command line:`.
            if origin.starts_with(b"command line:") {
                continue;
            }
            for rule in RULES.iter().filter(|r| r.key.contains('*')) {
                if let Some(set) = matched(rule, key) {
                    let mut arg = set;
                    if arg.iter().any(|b| matches!(b, b'=' | b'\n' | 0)) {
                        return Err(NeutralError::Unoverridable {
                            key: String::from_utf8_lossy(key).into_owned(),
                        });
                    }
                    arg.push(b'=');
                    arg.extend_from_slice(rule.value.as_bytes());
                    if !keys.contains(&arg) {
                        keys.push(arg);
                    }
                }
            }
        }
        let bytes: usize = keys.iter().map(Vec::len).sum();
        if keys.len() > MAX_OVERRIDES || bytes > MAX_BYTES {
            return Err(NeutralError::TooMany { count: keys.len() });
        }
        let mut neutral = Self::fixed();
        for arg in keys {
            neutral.args.push(OsString::from("-c"));
            neutral.args.push(OsString::from_vec(arg));
        }
        Ok(neutral)
    }

    /// The arguments to put right after `git` (before the command).
    pub fn args(&self) -> &[OsString] {
        &self.args
    }
}

/// The key `rule` sets for the listed `key`, when its pattern matches:
/// section and name compare without case (git's rule), the chosen part
/// (a subsection, or a name) is kept byte for byte.
fn matched(rule: &Rule, key: &[u8]) -> Option<Vec<u8>> {
    let pattern: Vec<&str> = rule.key.split('.').collect();
    let first = key.iter().position(|b| *b == b'.')?;
    let (section, rest) = (&key[..first], &key[first + 1..]);
    if !section.eq_ignore_ascii_case(pattern[0].as_bytes()) {
        return None;
    }
    let chosen = match pattern.as_slice() {
        // `section.*`: any name, no subsection.
        [_, "*"] => (!rest.contains(&b'.')).then_some(rest)?,
        // `section.*.name`: any subsection, that name.
        [_, "*", name] => {
            let last = rest.iter().rposition(|b| *b == b'.')?;
            if !rest[last + 1..].eq_ignore_ascii_case(name.as_bytes()) {
                return None;
            }
            &rest[..last]
        }
        _ => return None,
    };
    let (head, tail) = rule.set.split_once('*')?;
    let mut set = head.as_bytes().to_vec();
    set.extend_from_slice(chosen);
    set.extend_from_slice(tail.as_bytes());
    Some(set)
}

/// Refuse `file` when it lies inside `inside`: by its path as git names
/// it (a path through the agent's directory, whatever it resolves to
/// now) or by its real path.
fn refuse_inside(file: &Path, inside: &Path) -> Result<(), NeutralError> {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    if file.starts_with(inside) || real.starts_with(inside) {
        return Err(NeutralError::Writable {
            file: file.to_path_buf(),
            inside: inside.to_path_buf(),
        });
    }
    Ok(())
}
