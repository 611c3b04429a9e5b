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
