//! What a refused tool call tells a program: a `kind` to match on
//! (`not_found`, `cycle`, `not_trusted`, …, in the result's `_meta`)
//! beside the refusal's own words, which are the CLI's (`agents: error: …`
//! without the prefix).

use super::super::Failure;
use resource_host::registry::RegistryError;
use resource_host::text::error_chain as chain;

/// The `_meta` key of a refusal's kind (a prefix of our own, as MCP asks
/// of `_meta` keys that are not the protocol's).
pub const KIND_KEY: &str = "agents/kind";

/// A refused or failed tool call.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub kind: &'static str,
    pub message: String,
}

impl Refusal {
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// Arguments the tool's schema allows but that say nothing usable.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new("invalid_arguments", message)
    }

    /// The server itself failed (a task panicked).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("internal", message)
    }

    /// The tool result: `isError`, the message as text, and the kind in
    /// `_meta` under [`KIND_KEY`] — not as `structuredContent`, which a
    /// client checks against the tool's output schema (the TypeScript
    /// SDK does whenever it is present, and a refusal is not the view the
    /// schema describes); both official clients skip that check for an
    /// error without structured content. docs/mcp.md says why.
    pub fn to_result(&self) -> rmcp::model::CallToolResult {
        let mut meta = serde_json::Map::new();
        meta.insert(KIND_KEY.to_owned(), serde_json::json!(self.kind));
        rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            self.message.clone(),
        )])
        .with_meta(Some(meta.into()))
    }
}

impl From<RegistryError> for Refusal {
    fn from(err: RegistryError) -> Self {
        Self::new(err.kind().as_str(), chain(&err))
    }
}

impl From<Failure> for Refusal {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Clap(err) => Self::invalid(err.to_string()),
            Failure::Usage(message) => Self::invalid(message),
            Failure::Refused(err) => match err.downcast_ref::<RegistryError>() {
                Some(registry) => Self::new(registry.kind().as_str(), chain(&*err)),
                None => Self::new("failed", chain(&*err)),
            },
        }
    }
}
