//! How an execution-environment, container or trust operation is refused:
//! a setting naming no environment, a bad plan name, the router's own
//! refusals, a container lifecycle step refused or failed, and activation
//! of a devcontainer its person has not trusted. The rooms
//! `environments`, `containers` and `trust` produce these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum EnvironmentsError {
    #[error(
        "{environment} is not an execution environment: a setting names a container-instance \
         (or a subtype, such as a devcontainer-instance) or host"
    )]
    NotAnEnvironment { environment: String },
    #[error(
        "plan name {} is not valid: 1 to 128 letters, digits, '-', '_' or '.'",
        crate::text::quote(name)
    )]
    BadPlanName { name: String },
    #[error(transparent)]
    Route(#[from] crate::routing::RouteError),
    #[error("cannot {operation} {resource}: {reason}")]
    ContainerRefused {
        resource: String,
        operation: &'static str,
        reason: String,
    },
    /// Activation of a devcontainer its person has not trusted (or whose
    /// configuration changed since).
    #[error("cannot {operation} {resource}: {}", state.explain(resource))]
    NotTrusted {
        resource: String,
        operation: &'static str,
        state: Box<super::TrustState>,
    },
    #[error("cannot {operation} {resource}: {source}")]
    ContainerFailed {
        resource: String,
        operation: &'static str,
        #[source]
        source: Box<crate::devcontainer::DevcontainerError>,
    },
    /// A walk below a resource met more resources than it visits.
    #[error(
        "more than {limit} resources are below it: refusing to walk further (name a resource \
         nearer the devcontainers)"
    )]
    TooManyBelow { limit: usize },
    /// What was asked to be trusted was brought by an agent, and was not
    /// named itself.
    #[error(
        "cannot trust {resource}: {}; a person must name each of those to trust it \
         (agents resource trust NAME)",
        agent_brought.join("; ")
    )]
    BroughtByAgent {
        resource: String,
        agent_brought: Vec<String>,
    },
}
