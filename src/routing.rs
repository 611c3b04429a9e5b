//! Execution-environment routing: where a tool acting on a resource runs.
//! The reference's "Execution Environment Routing (6-Level Precedence)",
//! as a pure function over what the registry hands it — no I/O here.
//!
//! | level | source | applies when |
//! |---|---|---|
//! | 1 | the plan's setting, priority `override` | set |
//! | 2 | the project's setting, priority `override` | set |
//! | 3 | the nearest-ancestor devcontainer (auto-detected) | one is found |
//! | 4 | the plan's setting, priority `fallback` | set, and no devcontainer |
//! | 5 | the project's setting, priority `fallback` | set, and nothing closer |
//! | 6 | the host | always (the default) |
//!
//! A tool's preference then has its say: `specific: NAME` routes to that
//! resource whatever the chain says (refused if it is not an execution
//! environment); `required: container` is an error when the chain lands on
//! the host (naming the level that decided and what to configure);
//! `preferred: container` is a hint only.

use crate::model::ResourceId;
use serde::Serialize;
use std::fmt;

/// A setting's priority is plain data (the store keeps it too); routing
/// decides with it.
pub use crate::model::Priority;

/// Where a tool runs: the host, or a registered execution environment (a
/// `container-instance` or one of its subtypes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Environment {
    Host,
    Resource {
        resource_id: ResourceId,
        /// The name if it has one, else the id.
        name: String,
        resource_type_name: String,
    },
}

impl Environment {
    pub fn is_host(&self) -> bool {
        matches!(self, Self::Host)
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Host => f.write_str("the host"),
            Self::Resource {
                name,
                resource_type_name,
                ..
            } => write!(f, "{name} ({resource_type_name})"),
        }
    }
}

/// A stored setting (plan or project).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting {
    pub environment: Environment,
    pub priority: Priority,
}

/// What a tool asks of its environment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolPreference {
    #[default]
    None,
    /// `environment.required: container`.
    RequiredContainer,
    /// `environment.preferred: container` (a hint only).
    PreferredContainer,
    /// `environment.specific: NAME`, looked up by the registry: the
    /// resource, and whether it is an execution environment.
    Specific {
        environment: Environment,
        is_environment: bool,
    },
}

/// The nearest devcontainer found above the resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub environment: Environment,
    /// The ancestor (or the resource itself) it belongs to.
    pub via: String,
    /// How many links up that ancestor is (0: the resource itself).
    pub distance: u32,
}

/// Everything the router looks at.
#[derive(Debug, Clone, Default)]
pub struct RouteInputs {
    /// The plan's name and its setting, if it has one.
    pub plan: Option<(String, Setting)>,
    pub project: Option<Setting>,
    pub devcontainer: Option<Detected>,
    /// Devcontainers nearer than `devcontainer` that level 3 passed over
    /// (found deep inside a resource, and not trusted), each with why.
    pub passed_over: Vec<String>,
    /// The nearest resource holds several devcontainers and none is its
    /// default (`.devcontainer/devcontainer.json`): level 3 cannot choose
    /// (`devcontainer` is then none).
    pub ambiguous: Option<Ambiguous>,
    pub tool: ToolPreference,
}

/// Several devcontainers at one resource, none of them the default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ambiguous {
    /// The resource holding them.
    pub via: String,
    /// Their names.
    pub devcontainers: Vec<String>,
}

/// Which rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The tool named its environment (`specific`), beating the chain.
    ToolSpecific,
    PlanOverride,
    ProjectOverride,
    Devcontainer,
    PlanFallback,
    ProjectFallback,
    Host,
}

impl Level {
    /// The reference's priority number (1 highest … 6 default); 0 for a
    /// tool's `specific`, which is outside the chain.
    pub fn number(self) -> u8 {
        match self {
            Self::ToolSpecific => 0,
            Self::PlanOverride => 1,
            Self::ProjectOverride => 2,
            Self::Devcontainer => 3,
            Self::PlanFallback => 4,
            Self::ProjectFallback => 5,
            Self::Host => 6,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Self::ToolSpecific => "the tool's specific environment",
            Self::PlanOverride => "level 1: the plan's execution environment (override)",
            Self::ProjectOverride => "level 2: the project's execution environment (override)",
            Self::Devcontainer => "level 3: the nearest-ancestor devcontainer",
            Self::PlanFallback => "level 4: the plan's execution environment (fallback)",
            Self::ProjectFallback => "level 5: the project's execution environment (fallback)",
            Self::Host => "level 6: the host (the default)",
        }
    }
}

/// The router's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Route {
    pub environment: Environment,
    pub level: Level,
    /// The reference's priority number (0 for a tool's `specific`).
    pub priority: u8,
    /// Why, in a sentence.
    pub reason: String,
    /// What a `preferred: container` hint came to, if it was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// When the environment is a devcontainer: whether it may be
    /// activated (the registry fills this in; routing does not ask).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<RouteTrust>,
}

/// Whether the devcontainer a route chose may be activated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RouteTrust {
    /// Its person trusted this very configuration.
    pub trusted: bool,
    /// Why not, and what to do (absent when trusted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// Why no environment could be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    #[error(
        "the tool requires a container, but routing landed on the host ({}: {reason}); \
         configure one: agents plan use --execution-environment R --execution-env-priority \
         override, agents project context set --execution-environment R …, or add a \
         .devcontainer/ to the resource's checkout",
        level.describe()
    )]
    ContainerRequired { level: Level, reason: String },
    #[error(
        "the tool asks for {environment}, which is not an execution environment (a \
         container-instance or one of its subtypes)"
    )]
    NotAnEnvironment { environment: String },
    #[error(
        "{via} holds {} devcontainers ({}) and none is its default \
         (.devcontainer/devcontainer.json), so level 3 cannot choose; name one for the tool \
         (--tool-env specific:NAME) or set one (agents project context set \
         --execution-environment NAME --execution-env-priority override)",
        devcontainers.len(),
        devcontainers.join(", ")
    )]
    AmbiguousDevcontainer {
        via: String,
        devcontainers: Vec<String>,
    },
}

/// Route one tool call. Pure: the registry gathered the inputs.
pub fn route(inputs: &RouteInputs) -> Result<Route, RouteError> {
    let mut chain = chain(inputs);
    if !inputs.passed_over.is_empty() {
        chain.2.push_str(&format!(
            "; passed over (found deep inside a resource and not trusted): {}",
            inputs.passed_over.join("; ")
        ));
    }
    // Level 3 would decide, but cannot choose: unless the tool names its
    // environment or an override decided above it.
    if let Some(a) = &inputs.ambiguous
        && !matches!(inputs.tool, ToolPreference::Specific { .. })
        && !matches!(chain.1, Level::PlanOverride | Level::ProjectOverride)
    {
        return Err(RouteError::AmbiguousDevcontainer {
            via: a.via.clone(),
            devcontainers: a.devcontainers.clone(),
        });
    }
    let (environment, level, reason) = match &inputs.tool {
        ToolPreference::Specific {
            environment,
            is_environment,
        } => {
            if !*is_environment && !environment.is_host() {
                return Err(RouteError::NotAnEnvironment {
                    environment: environment.to_string(),
                });
            }
            let reason = format!(
                "the tool names {environment} (specific), regardless of {}",
                chain.1.describe()
            );
            (environment.clone(), Level::ToolSpecific, reason)
        }
        _ => chain,
    };
    if inputs.tool == ToolPreference::RequiredContainer && environment.is_host() {
        return Err(RouteError::ContainerRequired { level, reason });
    }
    let hint = (inputs.tool == ToolPreference::PreferredContainer).then(|| {
        if environment.is_host() {
            "the tool prefers a container, but none is configured or detected: it runs on the \
             host (a preference is a hint only)"
                .to_owned()
        } else {
            "the tool prefers a container, and it gets one".to_owned()
        }
    });
    Ok(Route {
        priority: level.number(),
        environment,
        level,
        reason,
        hint,
        trust: None,
    })
}

/// The six levels, in order.
fn chain(inputs: &RouteInputs) -> (Environment, Level, String) {
    let plan = inputs.plan.as_ref();
    let with = |p: Priority| plan.filter(|(_, s)| s.priority == p);
    let project = |p: Priority| inputs.project.as_ref().filter(|s| s.priority == p);
    if let Some((name, s)) = with(Priority::Override) {
        return (
            s.environment.clone(),
            Level::PlanOverride,
            format!("plan {name} sets {} with priority override", s.environment),
        );
    }
    if let Some(s) = project(Priority::Override) {
        return (
            s.environment.clone(),
            Level::ProjectOverride,
            format!("the project sets {} with priority override", s.environment),
        );
    }
    if let Some(d) = &inputs.devcontainer {
        let is_itself =
            matches!(&d.environment, Environment::Resource { name, .. } if *name == d.via);
        let whose = if d.distance == 0 && is_itself {
            "the resource is a devcontainer".to_owned()
        } else if d.distance == 0 {
            format!(
                "the resource itself holds a devcontainer ({})",
                d.environment
            )
        } else {
            format!(
                "{} holds the nearest devcontainer ({} link{} up)",
                d.via,
                d.distance,
                if d.distance == 1 { "" } else { "s" }
            )
        };
        return (d.environment.clone(), Level::Devcontainer, whose);
    }
    if let Some((name, s)) = with(Priority::Fallback) {
        return (
            s.environment.clone(),
            Level::PlanFallback,
            format!(
                "no devcontainer was detected, and plan {name} sets {} as its fallback",
                s.environment
            ),
        );
    }
    if let Some(s) = project(Priority::Fallback) {
        return (
            s.environment.clone(),
            Level::ProjectFallback,
            format!(
                "no devcontainer was detected and the plan sets nothing, and the project sets {} \
                 as its fallback",
                s.environment
            ),
        );
    }
    (
        Environment::Host,
        Level::Host,
        "nothing is configured and no devcontainer was detected".to_owned(),
    )
}

#[cfg(test)]
mod tests;
