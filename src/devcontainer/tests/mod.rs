//! The devcontainer configuration read from files a test writes.

mod configs;

use std::path::PathBuf;

use super::*;

/// A temp dir with a workspace `ws/`.
struct Bench {
    dir: tempfile::TempDir,
}

impl Bench {
    fn new(_tools: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ws/.devcontainer")).unwrap();
        Self { dir }
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// Writes the workspace's `.devcontainer/devcontainer.json` and
    /// returns the request for it.
    fn config(&self, text: &str) -> UpRequest {
        let config = self.workspace().join(".devcontainer/devcontainer.json");
        std::fs::write(&config, text).unwrap();
        UpRequest {
            workspace: self.workspace(),
            config,
            id_label: "agents.resource=01J0TEST".into(),
        }
    }

    fn file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.workspace().join(rel);
        std::fs::write(&path, text).unwrap();
        path
    }
}
