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

/// The Dev Containers CLI version the tests drive (`.ci/run` installs it).
pub const DEVCONTAINER_CLI_VERSION: &str = "0.89.0";

/// The real Dev Containers CLI: where `.ci/run` installs it
/// (`<repo>/target/node-tools/node_modules/.bin/devcontainer`), else
/// `$DEVCONTAINER_CLI`. None (a visible skip of `test`; a failure under
/// CI) when there is neither.
pub fn devcontainer_cli(test: &str) -> Option<PathBuf> {
    let installed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/node-tools/node_modules/.bin/devcontainer");
    let found = [
        Some(installed),
        std::env::var_os("DEVCONTAINER_CLI").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_file());
    if found.is_none() {
        let how = format!(
            "npm install --prefix target/node-tools @devcontainers/cli@{DEVCONTAINER_CLI_VERSION} \
             (or run .ci/run)"
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "the Dev Containers CLI was not found (target/node-tools, $DEVCONTAINER_CLI): {how}"
        );
        super::skipped(
            test,
            &format!("the Dev Containers CLI is not installed: {how}"),
        );
    }
    found
}

/// Stand-in `docker` first on `env`'s `PATH`, beside the real Dev
/// Containers CLI (a link named `devcontainer`): the CLI runs, and every
/// engine call it makes is only logged. None when the CLI is missing
/// (see [`devcontainer_cli`]).
pub fn real_cli_on_stand_in_engine(env: &mut Env, test: &str) -> Option<PathBuf> {
    let cli = devcontainer_cli(test)?;
    let bin = stand_ins(env, &["docker"]);
    std::os::unix::fs::symlink(&cli, bin.join("devcontainer")).unwrap();
    Some(bin)
}

/// Debian's `docker-compose` (compose 1.29, which reads a project without
/// an engine), for the tests' cross-check of the host's reading. None (a
/// visible skip; a failure under CI) when it is not installed.
pub fn docker_compose(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("docker-compose"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "docker-compose was not found on PATH: apt-get install docker-compose (or run .ci/run)"
        );
        super::skipped(
            test,
            "docker-compose is not installed: apt-get install docker-compose",
        );
    }
    found
}
