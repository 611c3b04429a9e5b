//! The home directory: where one registry keeps its database, its plugin
//! store and its compile cache. The library is handed the directory; only
//! the CLI decides it (`--home`, `$AGENTS_HOME`, the XDG data dir).

use std::path::{Path, PathBuf};

/// The layout under a home directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `registry.db`: the SQLite registry.
    pub fn database(&self) -> PathBuf {
        self.root.join("registry.db")
    }

    /// `plugins/`: added components, content-addressed by sha256.
    pub fn plugins(&self) -> PathBuf {
        self.root.join("plugins")
    }

    /// `cache/components/`: precompiled components.
    pub fn compile_cache(&self) -> PathBuf {
        self.root.join("cache").join("components")
    }

    /// `sandboxes/`: one private area per sandbox (`<id>/`) and its lock
    /// file (`<id>.lock`).
    pub fn sandboxes(&self) -> PathBuf {
        self.root.join("sandboxes")
    }

    /// `cache/views/`: the one-entry views handler calls on files get
    /// (private, short-lived).
    pub fn views(&self) -> PathBuf {
        self.root.join("cache").join("views")
    }
}
