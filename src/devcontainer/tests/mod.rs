//! The devcontainer lifecycle against stand-in `docker`, `podman` and
//! `devcontainer` executables (`stand_in.sh`) on a `PATH` holding only
//! them: each logs its argv and answers like the real tool. One test uses
//! the real docker when its daemon answers.

mod checks;
mod configs;
mod detection;
mod direct;
mod failures;
mod real_docker;
mod summary;
mod via_cli;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::*;

/// The stand-in script, copied into each bench.
const STAND_IN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/devcontainer/tests/stand_in.sh"
);

/// A temp dir with stand-ins in `bin/` and a workspace `ws/`.
struct Bench {
    dir: tempfile::TempDir,
}

impl Bench {
    /// Stand-ins named `tools` (`docker`, `podman`, `devcontainer`).
    ///
    /// Each is written by a child process (`install`): while this process
    /// holds a file open for writing, a child another test thread forks
    /// inherits that descriptor until it execs, and running the file in
    /// that window fails with "Text file busy" (ETXTBSY). A file no
    /// thread of ours ever opened for writing cannot be busy.
    fn new(tools: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::create_dir_all(dir.path().join("ws/.devcontainer")).unwrap();
        for tool in tools {
            let path = dir.path().join("bin").join(tool);
            let status = std::process::Command::new("install")
                .args(["-m", "755", STAND_IN])
                .arg(&path)
                .status()
                .unwrap();
            assert!(status.success(), "install {STAND_IN} {}", path.display());
        }
        Self { dir }
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn search_path(&self) -> OsString {
        self.bin().into_os_string()
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// Writes a state or marker file of the stand-ins.
    fn mark(&self, name: &str, text: &str) {
        std::fs::write(self.bin().join(name), text).unwrap();
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.bin().join(name)).unwrap_or_default()
    }

    /// Every call so far: the tool's name, then its arguments.
    fn calls(&self) -> Vec<Vec<String>> {
        self.read("log")
            .lines()
            .map(|line| {
                line.trim_end_matches('\u{1f}')
                    .split('\u{1f}')
                    .map(|a| a.replace('\u{1e}', "\n"))
                    .collect()
            })
            .collect()
    }

    /// The calls of `tool` whose first argument is `sub`.
    fn calls_of(&self, tool: &str, sub: &str) -> Vec<Vec<String>> {
        self.calls()
            .into_iter()
            .filter(|c| c[0] == tool && c.get(1).map(String::as_str) == Some(sub))
            .collect()
    }

    fn forget_calls(&self) {
        std::fs::write(self.bin().join("log"), "").unwrap();
    }

    /// The existing containers, as the stand-in keeps them.
    fn containers(&self) -> Vec<String> {
        self.read("containers").lines().map(str::to_owned).collect()
    }

    fn runtime(&self) -> Runtime {
        detect(&self.search_path()).runtime().unwrap()
    }

    /// Writes the workspace's `.devcontainer/devcontainer.json` and
    /// returns the request for it.
    fn config(&self, text: &str) -> UpRequest {
        let config = self.workspace().join(".devcontainer/devcontainer.json");
        std::fs::write(&config, text).unwrap();
        UpRequest {
            workspace: self.workspace(),
            config,
            repository: self.workspace(),
            id_label: "agents.resource=01J0TEST".into(),
            private_dir: None,
        }
    }

    fn file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.workspace().join(rel);
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// The configuration of `req`, checked.
fn checked(req: &UpRequest) -> Checked {
    Checked::load(req).unwrap()
}

/// The out-of-date hash of `req`'s configuration.
fn config_hash(req: &UpRequest) -> String {
    checked(req).config_hash
}

fn args(call: &[String]) -> Vec<&str> {
    call[1..].iter().map(String::as_str).collect()
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}
