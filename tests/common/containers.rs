//! Stand-in container tools for the devcontainer suites: copies of
//! `src/devcontainer/tests/stand_in.sh` named `docker`, `devcontainer`, …
//! put first on the `PATH` of every `agents` run (these machines have a
//! docker client and no daemon). Each logs its argv to `log` beside it.

use super::Env;
use std::path::{Path, PathBuf};

/// A directory of stand-ins named `names`, first on `env`'s `PATH`
/// (then the system's: git, sh).
pub fn stand_ins(env: &mut Env, names: &[&str]) -> PathBuf {
    let dir = env.mkdir("bin");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/devcontainer/tests/stand_in.sh");
    for name in names {
        let path = dir.join(name);
        std::fs::copy(&script, &path).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let system = std::env::var("PATH").unwrap_or_default();
    env.vars
        .push(("PATH".to_owned(), format!("{}:{system}", dir.display())));
    dir
}

/// Every call the stand-ins in `bin` logged, one per line, the argv
/// joined by spaces.
pub fn tool_log(bin: &Path) -> String {
    std::fs::read_to_string(bin.join("log"))
        .unwrap_or_default()
        .replace('\u{1f}', " ")
}
