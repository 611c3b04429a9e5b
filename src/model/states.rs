//! The registry's small vocabularies that more than one layer speaks:
//! whose execution-environment setting ([`SettingScope`]), how strongly
//! it applies ([`Priority`]), and where a sandbox or a container resource
//! is in its life ([`SandboxState`], [`ContainerState`]).
//!
//! They live here, with the other plain data, because the store keeps
//! them, `routing` and the registry decide with them and the CLI prints
//! them: none of those may be the others' source of a domain word. Each
//! has one text form (`as_str`, the database's and the views' spelling)
//! and `parse` accepts exactly those texts, nothing else.

use serde::Serialize;
use std::fmt;

/// Whose execution-environment setting: the project's, or one plan's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingScope {
    Project,
    Plan(String),
}

/// How messages name it: `project`, `plan fast`.
impl fmt::Display for SettingScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Project => f.write_str("project"),
            Self::Plan(name) => write!(f, "plan {name}"),
        }
    }
}

/// Whether a setting beats a detected devcontainer (`override`) or only
/// stands in when there is none (`fallback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Override,
    Fallback,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::Fallback => "fallback",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "override" => Some(Self::Override),
            "fallback" => Some(Self::Fallback),
            _ => None,
        }
    }
}

/// Where a sandbox is in its life (see `migrations/sqlite/0005_sandboxes.sql`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SandboxState {
    /// The row exists, the files may be half made (a crash during create).
    Creating,
    Active,
    /// `destroy` began removing the files (a crash during destroy).
    Destroying,
}

impl SandboxState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Creating => "creating",
            Self::Active => "active",
            Self::Destroying => "destroying",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "creating" => Some(Self::Creating),
            "active" => Some(Self::Active),
            "destroying" => Some(Self::Destroying),
            _ => None,
        }
    }
}

impl fmt::Display for SandboxState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A container resource's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContainerState {
    Detected,
    Building,
    Running,
    Stopped,
    Failed,
}

impl ContainerState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Detected => "detected",
            Self::Building => "building",
            Self::Running => "running",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "detected" => Self::Detected,
            "building" => Self::Building,
            "running" => Self::Running,
            "stopped" => Self::Stopped,
            "failed" => Self::Failed,
            _ => return None,
        })
    }
}

impl fmt::Display for ContainerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_parses_exactly_its_own_text() {
        for s in [
            SandboxState::Creating,
            SandboxState::Active,
            SandboxState::Destroying,
        ] {
            assert_eq!(SandboxState::parse(s.as_str()), Some(s));
        }
        for s in [
            ContainerState::Detected,
            ContainerState::Building,
            ContainerState::Running,
            ContainerState::Stopped,
            ContainerState::Failed,
        ] {
            assert_eq!(ContainerState::parse(s.as_str()), Some(s));
        }
        for p in [Priority::Override, Priority::Fallback] {
            assert_eq!(Priority::parse(p.as_str()), Some(p));
        }
        assert_eq!(SandboxState::parse("Active"), None);
        assert_eq!(ContainerState::parse("gone"), None);
        assert_eq!(Priority::parse(""), None);
    }
}
