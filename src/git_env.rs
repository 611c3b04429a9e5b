//! The environment the host runs `git` in: the one home of what makes a
//! `git` process ignore the user's and the system's configuration, never
//! prompt, and speak C. Callers clear the environment, then set these
//! (plus what their own use needs: an identity, lock behaviour).

use std::ffi::OsString;

/// `PATH` (so `git` itself is found as the caller finds it), then the
/// variables that make it hermetic.
pub fn hermetic() -> Vec<(OsString, OsString)> {
    let mut vars: Vec<(OsString, OsString)> = std::env::var_os("PATH")
        .map(|path| ("PATH".into(), path))
        .into_iter()
        .collect();
    vars.extend(
        [
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("HOME", "/nonexistent"),
            ("GIT_TERMINAL_PROMPT", "0"),
            ("LC_ALL", "C"),
        ]
        .map(|(k, v)| (k.into(), v.into())),
    );
    vars
}

/// Run `git ARGS` in `dir` as a unit test's author (an identity, `main`
/// as the first branch, no user or system configuration); panic with
/// git's words if it fails; answer its stdout.
#[cfg(test)]
pub(crate) fn test_git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(hermetic())
        .envs([
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
