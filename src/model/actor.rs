//! Who did something to the registry, and through which face: the one
//! home of a row's provenance (who registered a resource, who made a
//! link), shaped so the event log can record the same value as each
//! event's actor.
//!
//! The face is how the request came in: `cli` (a person at the command
//! line: the actor is the OS user), `mcp` (an agent behind `agents mcp`:
//! the client's `clientInfo` name and version), `python` (an embedder's
//! label), `library` (any other embedder), `watch` (`agents resource
//! watch` following a person's files). Only `mcp` is an **agent**: what it
//! registers or links never carries a person's consent
//! ([`Face::is_agent`]).

use serde::{Deserialize, Serialize};

/// Through which face a request came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Face {
    Cli,
    Mcp,
    Python,
    Library,
    Watch,
}

impl Face {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cli => "cli",
            Self::Mcp => "mcp",
            Self::Python => "python",
            Self::Library => "library",
            Self::Watch => "watch",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "cli" => Self::Cli,
            "mcp" => Self::Mcp,
            "python" => Self::Python,
            "library" => Self::Library,
            "watch" => Self::Watch,
            _ => return None,
        })
    }

    /// An agent's face: what comes through it is never a person's
    /// consent.
    pub fn is_agent(self) -> bool {
        self == Self::Mcp
    }
}

impl std::fmt::Display for Face {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who, through which face.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Actor {
    pub face: Face,
    /// The OS user, an MCP client's `name/version`, an embedder's label
    /// (at most [`Actor::MAX_NAME`] characters; may be empty).
    pub name: String,
}

impl Actor {
    /// The longest name kept (longer ones are cut).
    pub const MAX_NAME: usize = 200;

    pub fn new(face: Face, name: impl Into<String>) -> Self {
        let name: String = name.into();
        let name = name
            .chars()
            .filter(|c| !c.is_control())
            .take(Self::MAX_NAME)
            .collect();
        Self { face, name }
    }

    /// `cli:alice`, for people (escape it before a terminal: an MCP
    /// client chooses its name).
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            self.face.to_string()
        } else {
            format!("{}:{}", self.face, self.name)
        }
    }
}

impl Default for Actor {
    fn default() -> Self {
        Self {
            face: Face::Library,
            name: String::new(),
        }
    }
}
