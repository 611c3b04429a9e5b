//! Stored environment settings: their view, the plan-name rule, and how
//! a change of one is recorded. The operations that set, read and unset
//! them are `Registry`'s, in the concern's `mod.rs`.

use super::environment;
use crate::model::{ResourceKey, SettingScope};
use crate::registry::lookup::find_row;
use crate::registry::{EnvironmentsError, RegistryError};
use crate::routing::{Environment, Priority};
use crate::store::{Reader, SettingRow};
use serde::Serialize;

/// A stored setting as the registry hands it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingView {
    /// `project` or `plan`.
    pub scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    pub environment: Environment,
    pub priority: Priority,
    pub updated_at: String,
}

/// Refuse a plan name outside `[A-Za-z0-9._-]{1,128}`.
pub(in crate::registry) fn check_scope(scope: &SettingScope) -> Result<(), RegistryError> {
    if let SettingScope::Plan(name) = scope {
        let ok = !name.is_empty()
            && name.len() <= 128
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok {
            return Err(RegistryError::Environments(
                EnvironmentsError::BadPlanName { name: name.clone() },
            ));
        }
    }
    Ok(())
}

/// The view of a stored setting, its environment read from the store.
pub(super) fn setting_view(r: &Reader<'_>, row: &SettingRow) -> Result<SettingView, RegistryError> {
    let environment = match row.resource {
        None => Environment::Host,
        Some(id) => environment(&find_row(r, &ResourceKey::Id(id))?),
    };
    let (scope, plan) = match &row.scope {
        SettingScope::Project => ("project", None),
        SettingScope::Plan(name) => ("plan", Some(name.clone())),
    };
    Ok(SettingView {
        scope,
        plan,
        environment,
        priority: row.priority,
        updated_at: row.updated_at.clone(),
    })
}

/// Record the change of the setting of `scope` from `before` to `after`
/// (nothing when they are the same).
pub(super) fn record_setting(
    rec: &crate::registry::recording::Recorder,
    w: &crate::store::Writer<'_>,
    scope: &SettingScope,
    before: Option<&SettingRow>,
    after: Option<&SettingRow>,
) -> Result<(), RegistryError> {
    let key = scope_key(scope);
    let fields = [(key.as_str(), fact(before), fact(after))];
    let Some(changes) = crate::registry::recording::diff(&fields) else {
        return Ok(());
    };
    let op = crate::registry::recording::EventOp::SettingsChanged;
    let resource = after.or(before).and_then(|r| r.resource);
    Ok(rec.named(w, op, &key, resource, Some(changes))?)
}

/// A setting as its event records it (`null`: none).
fn fact(row: Option<&SettingRow>) -> serde_json::Value {
    serde_json::json!(row.map(|r| serde_json::json!({
        "resource": r.resource.map(|id| id.to_string()),
        "priority": r.priority.as_str(),
    })))
}

/// How events name a setting: `environment` (the project's) or
/// `environment.plan.NAME`.
fn scope_key(scope: &SettingScope) -> String {
    match scope {
        SettingScope::Project => "environment".to_owned(),
        SettingScope::Plan(name) => format!("environment.plan.{name}"),
    }
}
