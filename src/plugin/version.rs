//! Which versions of the handler contract this host serves, and which one
//! is current: the names, packages and WIT files of each. How a call
//! reaches a component of each version is the `contract` module's.

use std::fmt;

/// The newest contract version, as a literal (for `concat!`).
macro_rules! current_version {
    () => {
        "0.2.0"
    };
}

/// The newest contract version: what the SDK and `wit/` document, and
/// what a new plugin should target.
pub const CONTRACT_VERSION: &str = current_version!();

/// The newest contract's package name, as WIT spells it
/// (`cleveragents:resource@0.1.0`).
pub const CONTRACT_PACKAGE: &str = concat!("cleveragents:resource@", current_version!());

/// One version of the contract this host serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContractVersion {
    V0_1_0,
    V0_2_0,
}

impl ContractVersion {
    /// Every served version, oldest first.
    pub const ALL: [ContractVersion; 2] = [Self::V0_1_0, Self::V0_2_0];

    /// The newest version ([`CONTRACT_VERSION`]).
    pub const CURRENT: ContractVersion = Self::V0_2_0;

    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_1_0 => "0.1.0",
            Self::V0_2_0 => "0.2.0",
        }
    }

    /// The directory of this version under `wit/` (`v0.2.0`).
    pub fn dir_name(self) -> String {
        format!("v{}", self.as_str())
    }

    /// This version's WIT files (name, text) exactly as `wit/v<version>/`
    /// holds them, built into the binary so authors get the contract from
    /// `agents plugin wit` and `agents plugin new` rather than from this
    /// repository.
    pub fn wit_files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::V0_1_0 => &[(
                "resource.wit",
                include_str!("../../wit/v0.1.0/resource.wit"),
            )],
            Self::V0_2_0 => &[(
                "resource.wit",
                include_str!("../../wit/v0.2.0/resource.wit"),
            )],
        }
    }

    /// The version named `text` (`0.2.0`), if served.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// The interface a component of this version exports.
    pub fn handler_export(self) -> &'static str {
        match self {
            Self::V0_1_0 => "cleveragents:resource/handler@0.1.0",
            Self::V0_2_0 => "cleveragents:resource/handler@0.2.0",
        }
    }

    /// The newest version whose `handler` is among a component's `exports`.
    pub(crate) fn of_exports(exports: &[String]) -> Option<Self> {
        Self::ALL
            .into_iter()
            .rev()
            .find(|v| exports.iter().any(|e| e == v.handler_export()))
    }
}

impl fmt::Display for ContractVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `handler` exports every served version names, for messages.
pub fn served_exports() -> Vec<&'static str> {
    ContractVersion::ALL
        .iter()
        .map(|v| v.handler_export())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_version_is_the_newest_served_one() {
        assert_eq!(ContractVersion::CURRENT.as_str(), CONTRACT_VERSION);
        assert_eq!(ContractVersion::ALL.last(), Some(&ContractVersion::CURRENT));
    }

    #[test]
    fn each_version_s_embedded_wit_declares_that_version_s_package() {
        for v in ContractVersion::ALL {
            let package = format!("package cleveragents:%resource@{};", v.as_str());
            assert!(
                v.wit_files()
                    .iter()
                    .any(|(_, text)| text.contains(&package)),
                "{v}"
            );
            assert_eq!(ContractVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ContractVersion::parse("9.9.9"), None);
    }
}
