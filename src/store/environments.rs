//! `environment_settings` and `container_states` rows: where tools run,
//! and where each container resource is in its lifecycle (the rules are
//! `routing`'s and `registry::environments`').

use super::columns::Columns;
use super::db::args;
use super::{Reader, StoreError, Writer};
use crate::model::{ContainerState, Priority, ResourceId, SettingScope};

/// The columns a setting's scope is stored in.
fn scope_columns(scope: &SettingScope) -> (&'static str, &str) {
    match scope {
        SettingScope::Project => ("project", ""),
        SettingScope::Plan(name) => ("plan", name),
    }
}

/// One stored setting; `resource: None` is the host. It is also a
/// registry document's setting item (`registry::transfer::document`):
/// `scope` (`project` or `plan`), `plan` (the plan's name, else null),
/// `resource_id`, `priority`, `updated_at`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingRow {
    #[serde(flatten, with = "scope_keys")]
    pub scope: SettingScope,
    #[serde(rename = "resource_id")]
    pub resource: Option<ResourceId>,
    pub priority: Priority,
    pub updated_at: String,
}

/// A scope as a document's two keys, `scope` and `plan`; a plan name
/// without `scope: plan`, or the other way round, is refused.
mod scope_keys {
    use crate::model::SettingScope;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Project,
        Plan,
    }

    #[derive(Serialize, Deserialize)]
    struct Keys {
        scope: Kind,
        plan: Option<String>,
    }

    pub fn serialize<S: Serializer>(scope: &SettingScope, s: S) -> Result<S::Ok, S::Error> {
        let (scope, plan) = match scope {
            SettingScope::Project => (Kind::Project, None),
            SettingScope::Plan(name) => (Kind::Plan, Some(name.clone())),
        };
        Keys { scope, plan }.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SettingScope, D::Error> {
        let Keys { scope, plan } = Keys::deserialize(d)?;
        match (scope, plan) {
            (Kind::Project, None) => Ok(SettingScope::Project),
            (Kind::Plan, Some(name)) => Ok(SettingScope::Plan(name)),
            (Kind::Project, Some(_)) => Err(D::Error::custom("a project setting has no plan")),
            (Kind::Plan, None) => Err(D::Error::custom("a plan setting names its plan")),
        }
    }
}

/// One container's recorded state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerStateRow {
    pub resource: ResourceId,
    pub state: ContainerState,
    pub container_id: Option<String>,
    /// Which tool made it (`devcontainer`, `docker`, `podman`).
    pub tool: Option<String>,
    pub config_hash: Option<String>,
    pub last_error: Option<String>,
    pub updated_at: String,
}

fn decode_setting(c: &Columns<'_>) -> Result<SettingRow, StoreError> {
    let scope: String = c.get(0)?;
    let plan: String = c.get(1)?;
    Ok(SettingRow {
        scope: if scope == "project" {
            SettingScope::Project
        } else {
            SettingScope::Plan(plan)
        },
        resource: c.parsed_opt(2, ResourceId::parse)?,
        priority: c.parsed(3, |t| {
            Priority::parse(t).ok_or_else(|| format!("unknown priority {t:?}"))
        })?,
        updated_at: c.get(4)?,
    })
}

fn decode_state(c: &Columns<'_>) -> Result<ContainerStateRow, StoreError> {
    Ok(ContainerStateRow {
        resource: c.parsed(0, ResourceId::parse)?,
        state: c.parsed(1, |t| {
            ContainerState::parse(t).ok_or_else(|| format!("unknown container state {t:?}"))
        })?,
        container_id: c.get(2)?,
        tool: c.get(3)?,
        config_hash: c.get(4)?,
        last_error: c.get(5)?,
        updated_at: c.get(6)?,
    })
}

impl Reader<'_> {
    pub fn setting(&self, scope: &SettingScope) -> Result<Option<SettingRow>, StoreError> {
        let (scope_col, plan) = scope_columns(scope);
        self.tx.row(
            "SELECT scope, plan, resource_id, priority, updated_at
               FROM environment_settings WHERE scope = ?1 AND plan = ?2",
            args![scope_col, plan],
            "environment_settings",
            1,
            decode_setting,
        )
    }

    /// Every setting: the project's first, then the plans by name.
    pub fn settings(&self) -> Result<Vec<SettingRow>, StoreError> {
        self.tx.rows(
            "SELECT scope, plan, resource_id, priority, updated_at
               FROM environment_settings ORDER BY scope DESC, plan",
            args![],
            "environment_settings",
            1,
            decode_setting,
        )
    }

    /// Every container the registry knows the engine holds (a state row
    /// with a container id: running, stopped, or failed after one was
    /// made).
    pub fn containers(&self) -> Result<Vec<ContainerStateRow>, StoreError> {
        self.tx.rows(
            "SELECT resource_id, state, container_id, tool, config_hash, last_error, updated_at
               FROM container_states WHERE container_id IS NOT NULL ORDER BY resource_id",
            args![],
            "container_states",
            0,
            decode_state,
        )
    }

    pub fn container_state(
        &self,
        resource: ResourceId,
    ) -> Result<Option<ContainerStateRow>, StoreError> {
        self.tx.row(
            "SELECT resource_id, state, container_id, tool, config_hash, last_error, updated_at
               FROM container_states WHERE resource_id = ?1",
            args![resource.to_string()],
            "container_states",
            0,
            decode_state,
        )
    }
}

impl Writer<'_> {
    pub fn put_setting(&self, row: &SettingRow) -> Result<(), StoreError> {
        let (scope, plan) = scope_columns(&row.scope);
        self.tx.execute(
            "INSERT INTO environment_settings (scope, plan, resource_id, priority, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (scope, plan) DO UPDATE SET resource_id = excluded.resource_id,
                 priority = excluded.priority, updated_at = excluded.updated_at",
            args![
                scope,
                plan,
                row.resource.map(|r| r.to_string()),
                row.priority.as_str(),
                &row.updated_at
            ],
        )?;
        Ok(())
    }

    /// Remove a setting; answers whether there was one.
    pub fn delete_setting(&self, scope: &SettingScope) -> Result<bool, StoreError> {
        let (scope, plan) = scope_columns(scope);
        let n = self.tx.execute(
            "DELETE FROM environment_settings WHERE scope = ?1 AND plan = ?2",
            args![scope, plan],
        )?;
        Ok(n > 0)
    }

    pub fn put_container_state(&self, row: &ContainerStateRow) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO container_states
                 (resource_id, state, container_id, tool, config_hash, last_error, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (resource_id) DO UPDATE SET state = excluded.state,
                 container_id = excluded.container_id, tool = excluded.tool,
                 config_hash = excluded.config_hash, last_error = excluded.last_error,
                 updated_at = excluded.updated_at",
            args![
                row.resource.to_string(),
                row.state.as_str(),
                &row.container_id,
                &row.tool,
                &row.config_hash,
                &row.last_error,
                &row.updated_at
            ],
        )?;
        Ok(())
    }
}
