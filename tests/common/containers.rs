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
        install_executable(&script, &dir.join(name));
    }
    let system = std::env::var("PATH").unwrap_or_default();
    env.vars
        .push(("PATH".to_owned(), format!("{}:{system}", dir.display())));
    dir
}

/// Copy `script` to `path` as an executable, written by a child process
/// (`install`): while this process holds a file open for writing, a child
/// another test thread forks inherits that descriptor until it execs, and
/// running the file in that window fails with "Text file busy" (ETXTBSY).
/// A file no thread of ours ever opened for writing cannot be busy.
fn install_executable(script: &Path, path: &Path) {
    let status = std::process::Command::new("install")
        .args(["-m", "755"])
        .arg(script)
        .arg(path)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "install {} {}",
        script.display(),
        path.display()
    );
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
