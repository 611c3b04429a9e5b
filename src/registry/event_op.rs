//! What an event says happened: the one list of operations the log
//! records (the `op` of `agents events -o json`), each with the kind of
//! subject it names. Stable: a program matches on these words.

use serde::{Deserialize, Serialize};

macro_rules! ops {
    ($($variant:ident = $text:literal),* $(,)?) => {
        /// An operation the log records.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        pub enum EventOp {
            $(#[serde(rename = $text)] $variant,)*
        }

        impl EventOp {
            /// Every operation, in the order the docs list them.
            pub const ALL: &'static [EventOp] = &[$(EventOp::$variant),*];

            /// `resource.registered`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(EventOp::$variant => $text,)*
                }
            }
        }
    };
}

ops! {
    TypeAdded = "type.added",
    TypeReplaced = "type.replaced",
    TypeRemoved = "type.removed",
    PluginAdded = "plugin.added",
    PluginReplaced = "plugin.replaced",
    PluginRemoved = "plugin.removed",
    ResourceRegistered = "resource.registered",
    ResourceDiscovered = "resource.discovered",
    ResourceRefreshed = "resource.refreshed",
    ResourceRenamed = "resource.renamed",
    ResourceRemoved = "resource.removed",
    LinkLinked = "link.linked",
    LinkUnlinked = "link.unlinked",
    SandboxCreated = "sandbox.created",
    SandboxCheckpointed = "sandbox.checkpointed",
    SandboxRolledBack = "sandbox.rolled_back",
    SandboxApplied = "sandbox.applied",
    SandboxDestroyed = "sandbox.destroyed",
    TrustGranted = "trust.granted",
    TrustRevoked = "trust.revoked",
    SettingsChanged = "settings.changed",
    RegistryImported = "registry.imported",
}

impl EventOp {
    /// The operation named `text` (`None`: not one).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|op| op.as_str() == text)
    }

    /// The kind of subject it names: the word before the dot (`resource`,
    /// `link`, `type`, `plugin`, `sandbox`, `trust`, `settings`,
    /// `registry`).
    pub fn kind(self) -> &'static str {
        let text = self.as_str();
        &text[..text.find('.').unwrap_or(text.len())]
    }
}

impl std::fmt::Display for EventOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of subject events name.
pub const KINDS: &[&str] = &[
    "type", "plugin", "resource", "link", "sandbox", "trust", "settings", "registry",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_reads_back_and_names_a_known_kind() {
        for op in EventOp::ALL {
            assert_eq!(EventOp::parse(op.as_str()), Some(*op));
            assert!(KINDS.contains(&op.kind()), "{op}");
            let json = serde_json::to_string(op).unwrap();
            assert_eq!(json, format!("\"{op}\""));
        }
        assert_eq!(EventOp::parse("resource.exploded"), None);
    }
}
