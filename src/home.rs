//! The home directory: where one registry keeps its database, its plugin
//! store and its compile cache. The library is handed the directory; only
//! the CLI decides it (`--home`, `$AGENTS_HOME`, the XDG data dir).
//!
//! A home is private (`private_dir`'s rule): a new one is created
//! 0700, and one owned by another user (not root) or writable by its group
//! or by everyone is refused before anything in it is opened — its owner,
//! or those writers, could swap the registry file and so choose which
//! directories a `sandbox destroy` deletes and which plugins run.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a home cannot be used.
#[derive(Debug, Error)]
pub enum HomeError {
    #[error("cannot create the home directory {path}: {source}")]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("refusing to use {path} as the home: {why}")]
    NotPrivate { path: PathBuf, why: String },
}

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

    /// Create the home if it is missing (0700, and so are the parents it
    /// needs), then refuse it unless it is private.
    pub fn prepare(&self) -> Result<(), HomeError> {
        let create = |source| HomeError::Create {
            path: self.root.clone(),
            source,
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.root)
            .map_err(create)?;
        let meta = std::fs::metadata(&self.root).map_err(create)?;
        let risk = "they could swap the registry it holds, and with it what the host deletes \
                    and runs";
        match crate::private_dir::exposed(&meta) {
            Some(exposed) => Err(HomeError::NotPrivate {
                path: self.root.clone(),
                why: exposed.explain(&self.root, risk),
            }),
            None => Ok(()),
        }
    }

    /// `registry.db`: the SQLite registry.
    pub fn database(&self) -> PathBuf {
        self.root.join("registry.db")
    }

    /// `plugins/`: added components, content-addressed by sha256.
    pub fn plugins(&self) -> PathBuf {
        self.root.join("plugins")
    }

    /// `keys/`: plugin signing keys and the pins of trusted publishers'
    /// keys (private).
    pub fn keys(&self) -> PathBuf {
        self.root.join("keys")
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
