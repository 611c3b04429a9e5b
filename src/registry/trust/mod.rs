//! Trust: the one home of a person's decision that a devcontainer's
//! configuration may be activated, and of the check every activation
//! makes before anything of it runs.
//!
//! A repository is someone else's until its owner agrees: its
//! `devcontainer.json` can run commands on the host (`initializeCommand`,
//! through the Dev Containers CLI), start a container with the host's
//! root filesystem bound into it, `--privileged`, in the host's
//! namespaces. So `start`, `rebuild` and the router's activation
//! (`enter_environment`) are refused — before any tool is run or even
//! probed — unless the person the registry was opened for
//! ([`Options::person`](super::Options)) trusted *this* configuration:
//! a `devcontainer_trust` row of theirs, on this machine, whose digest is
//! the configuration's digest now (`devcontainer::Checked`: the
//! configuration and every file it builds from). Edit any of them and the
//! decision no longer applies; the refusal ([`RegistryError::Environments(EnvironmentsError::NotTrusted)`])
//! says which file changed and the command that decides again.
//!
//! **Consent cannot be given by accident.** Nothing trusts implicitly: no
//! option, no default, no environment variable, no activation. The only
//! way to record trust is [`Registry::trust`], which takes a [`Consent`];
//! a consent is made only from a [`TrustSummary`] — what
//! [`Registry::trust_summary`] showed (it cannot be built elsewhere) —
//! and covers exactly the digests that summary showed: if a file changed
//! between showing and consenting, nothing is recorded. An embedder hands
//! its agent `enter_environment`; deciding stays a separate, deliberate
//! call of the person's (the CLI asks `[y/N]` on a terminal, or takes
//! `--yes`).
//!
//! **Whose trust.** A decision is one person's (uid and user name, as the
//! embedder hands them in: the CLI gives the OS user's) on one machine;
//! on a registry shared by a team another teammate's decision is theirs,
//! not yours. Decisions go with their resource when it is removed and are
//! never exported or imported.

pub(super) mod provenance;

use super::{Registry, RegistryError};
use crate::devcontainer::{ABSENT, Checked, CoveredFile, Summary, ToolsOnPath};
use crate::model::{Resource, ResourceId, ResourceKey};
use crate::registry::lookup::{find_row, load_one};
use crate::registry::type_set::TypeSet;
use crate::registry::{EnvironmentsError, TrustState};
use crate::store::{Reader, ResourceRow, TrustRow};
use provenance::Origin;
use serde::Serialize;
use std::collections::BTreeMap;

/// Who decides: a person, as the embedder knows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Person {
    pub user: String,
    pub uid: u32,
}

impl Person {
    pub fn label(&self) -> String {
        format!("{} (uid {})", self.user, self.uid)
    }
}

/// What activating each devcontainer at or below a resource will do, as
/// shown to a person before they decide. Only [`Registry::trust_summary`]
/// makes one.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct TrustSummary {
    /// The resource asked about.
    pub resource: String,
    pub devcontainers: Vec<DevcontainerSummary>,
    /// Devcontainers below it that an agent brought (registered, linked
    /// or imported through MCP): not part of this consent; each is
    /// trusted only when a person names it.
    pub brought_by_agents: Vec<AgentBrought>,
}

/// A devcontainer an agent brought below the resource asked about.
#[derive(Debug, Clone, Serialize)]
pub struct AgentBrought {
    pub resource_id: ResourceId,
    pub name: String,
    /// How it came there (`linked below local/api by mcp:client`).
    pub why: String,
}

/// One devcontainer's part of a [`TrustSummary`].
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct DevcontainerSummary {
    pub resource_id: ResourceId,
    pub name: String,
    /// Where it stands now, for the person asking.
    pub trust: TrustState,
    pub summary: Summary,
}

/// A person's yes to exactly what a [`TrustSummary`] showed.
#[derive(Debug)]
pub struct Consent {
    summary: TrustSummary,
}

impl Consent {
    /// The person read `summary` and agreed to it.
    pub fn to(summary: TrustSummary) -> Self {
        Self { summary }
    }
}

/// A recorded decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrustRecord {
    pub resource_id: ResourceId,
    pub name: String,
    pub by: String,
    pub at: String,
    pub digest: String,
}

/// The largest summary kept with a decision (the column's bound).
const MAX_SUMMARY: usize = 1 << 20;

impl Registry {
    /// Where `resource` (whose configuration is `checked` now) stands for
    /// this registry's person.
    pub(super) fn trust_state(
        &self,
        resource: &Resource,
        checked: &Checked,
    ) -> Result<TrustState, RegistryError> {
        let Some(person) = &self.person else {
            return Ok(TrustState::NoPerson);
        };
        let (id, machine) = (resource.resource_id, self.machine_key());
        let Some(row) = self.store.read(|r| r.trust(id, &machine, person.uid))? else {
            return Ok(TrustState::Untrusted);
        };
        let by = format!("{} (uid {})", row.user_name, row.uid);
        if row.digest == checked.digest {
            return Ok(TrustState::Trusted {
                by,
                at: row.trusted_at,
            });
        }
        let was: Vec<CoveredFile> = serde_json::from_str(&row.files).unwrap_or_default();
        let mut changed = changes(&was, &checked.files);
        if changed.is_empty() {
            changed.push("what the digest covers".into());
        }
        Ok(TrustState::Changed {
            by,
            at: row.trusted_at,
            changed,
        })
    }

    /// Refuse `operation` on `resource` unless its configuration
    /// (`checked`) is trusted by this registry's person.
    pub(super) fn require_trust(
        &self,
        resource: &Resource,
        checked: &Checked,
        operation: &'static str,
    ) -> Result<(), RegistryError> {
        let state = self.trust_state(resource, checked)?;
        if state.is_trusted() {
            return Ok(());
        }
        Err(EnvironmentsError::NotTrusted {
            resource: resource.label(),
            operation,
            state: Box::new(state),
        }
        .into())
    }

    /// The machine part of a decision's key (`""` on a SQLite home).
    fn machine_key(&self) -> String {
        self.machine
            .as_ref()
            .map(|m| m.id.clone())
            .unwrap_or_default()
    }
}

/// The devcontainers at or below a resource, split by who brought them.
struct Found {
    root: ResourceRow,
    /// A person's (or the root itself, named).
    person: Vec<ResourceRow>,
    /// Brought by an agent: each with why.
    agent: Vec<(ResourceRow, String)>,
}

/// The resource `key` and the devcontainers at or below it, by id: the
/// root itself when it is one (named, so a person's choice whoever
/// brought it), and below it split by provenance (`provenance`).
fn devcontainers_at(
    r: &Reader<'_>,
    types: &TypeSet,
    key: &ResourceKey,
) -> Result<Found, RegistryError> {
    let root = find_row(r, key)?;
    let below = provenance::below(r, root.id)?;
    let dc = crate::registry::devcontainer_type();
    let mut found = Found {
        root: root.clone(),
        person: Vec::new(),
        agent: Vec::new(),
    };
    for (id, origin) in below {
        let Some(row) = r.resource_by_id(id)? else {
            continue;
        };
        if !types.resolve(&row.type_name)?.is_a(&dc) {
            continue;
        }
        match origin {
            Origin::Agent(why) if id != root.id => found.agent.push((row, why)),
            _ => found.person.push(row),
        }
    }
    Ok(found)
}

/// Trusting `resource` refused, for `reason`.
fn refused(resource: String, reason: impl Into<String>) -> RegistryError {
    EnvironmentsError::ContainerRefused {
        resource,
        operation: "trust",
        reason: reason.into(),
    }
    .into()
}

/// Which files differ between what was trusted and what is there now.
fn changes(was: &[CoveredFile], now: &[CoveredFile]) -> Vec<String> {
    fn key(f: &CoveredFile) -> (&str, &str) {
        (f.path.as_str(), f.role.as_str())
    }
    let before: BTreeMap<(&str, &str), &CoveredFile> = was.iter().map(|f| (key(f), f)).collect();
    let after: BTreeMap<(&str, &str), &CoveredFile> = now.iter().map(|f| (key(f), f)).collect();
    let mut out = Vec::new();
    for ((path, _), f) in &after {
        match before.get(&(*path, f.role.as_str())) {
            Some(old) if old.sha256 == f.sha256 => {}
            Some(old) if old.sha256 == ABSENT => {
                out.push(format!("{path} ({}) appeared", f.role));
            }
            Some(_) if f.sha256 == ABSENT => out.push(format!("{path} ({}) is gone", f.role)),
            Some(_) => out.push(format!("{path} ({}) changed", f.role)),
            None if f.sha256 == ABSENT => {}
            None => out.push(format!("{path} ({}) is new", f.role)),
        }
    }
    for ((path, role), f) in &before {
        if !after.contains_key(&(*path, *role)) && f.sha256 != ABSENT {
            out.push(format!("{path} ({}) is gone", f.role));
        }
    }
    out
}

impl Registry {
    /// What activating each devcontainer at or below `key` will do, and
    /// where each stands for this registry's person. Nothing is written
    /// and no tool is run. A configuration refused even when trusted (a
    /// Dockerfile outside the repository, …) is refused here too.
    pub fn trust_summary(&self, key: &ResourceKey) -> Result<TrustSummary, RegistryError> {
        self.check_key_in_roots(key, "a trust summary")?;
        let tools = ToolsOnPath::find(
            self.container_tools
                .search_path
                .as_deref()
                .unwrap_or_default(),
        );
        let cache = &self.types;
        let found = self.store.read(|r| {
            let types = cache.get(r)?;
            let found = devcontainers_at(r, &types, key)?;
            let out = found
                .person
                .into_iter()
                .map(|row| load_one(r, &types, row))
                .collect::<Result<Vec<_>, _>>()?;
            let agent: Vec<AgentBrought> = found
                .agent
                .into_iter()
                .map(|(row, why)| AgentBrought {
                    resource_id: row.id,
                    name: row.label(),
                    why,
                })
                .collect();
            Ok::<_, RegistryError>((found.root.label(), out, agent))
        })?;
        let (label, resources, brought_by_agents) = found;
        if resources.is_empty() && !brought_by_agents.is_empty() {
            let agent_brought = brought_by_agents
                .iter()
                .map(|a| format!("{} was {}", a.name, a.why))
                .collect();
            let resource = label;
            return Err(EnvironmentsError::BroughtByAgent {
                resource,
                agent_brought,
            }
            .into());
        }
        if resources.is_empty() {
            return Err(refused(
                label,
                "there is no devcontainer-instance at or below it",
            ));
        }
        let devcontainers = resources
            .into_iter()
            .map(|resource| {
                let (_, checked) = self.checked_config(&resource, "trust")?;
                Ok(DevcontainerSummary {
                    resource_id: resource.resource_id,
                    name: resource.label(),
                    trust: self.trust_state(&resource, &checked)?,
                    summary: Summary::of(&checked, &tools),
                })
            })
            .collect::<Result<_, RegistryError>>()?;
        Ok(TrustSummary {
            resource: label,
            devcontainers,
            brought_by_agents,
        })
    }

    /// Record the person's consent: each devcontainer of the summary is
    /// trusted at the digest shown. Refused, with nothing written, when
    /// the registry has no person or a configuration changed since it
    /// was shown.
    pub fn trust(&mut self, consent: Consent) -> Result<Vec<TrustRecord>, RegistryError> {
        let person = self.person.clone().ok_or_else(|| {
            refused(
                consent.summary.resource.clone(),
                TrustState::NoPerson.explain(""),
            )
        })?;
        let now = self.now();
        let machine = self.machine_key();
        let rows = consent.summary.devcontainers.iter().map(|dc| {
            let resource = self.resource(&ResourceKey::Id(dc.resource_id))?;
            let (_, checked) = self.checked_config(&resource, "trust")?;
            if checked.digest != dc.summary.digest {
                let changed = changes(&dc.summary.files, &checked.files).join(", ");
                return Err(refused(
                    dc.name.clone(),
                    format!(
                        "its configuration changed since it was shown ({changed}); nothing was \
                         recorded — read it again and decide"
                    ),
                ));
            }
            let mut summary = serde_json::to_string(&dc.summary).unwrap_or_default();
            if summary.len() > MAX_SUMMARY {
                summary =
                    serde_json::json!({"omitted": "the summary was larger than 1 MiB"}).to_string();
            }
            Ok(TrustRow {
                resource: dc.resource_id,
                machine_id: machine.clone(),
                uid: person.uid,
                user_name: person.user.clone(),
                digest: checked.digest.clone(),
                files: serde_json::to_string(&checked.files).unwrap_or_default(),
                summary,
                trusted_at: now.clone(),
            })
        });
        let rows = rows.collect::<Result<Vec<_>, RegistryError>>()?;
        let rec = self.recorder();
        self.store.write(|w| {
            for (row, dc) in rows.iter().zip(&consent.summary.devcontainers) {
                w.put_trust(row)?;
                let changes = serde_json::json!({
                    "person": row.user_name, "digest": row.digest, "machine": row.machine_id,
                });
                let op = crate::registry::recording::EventOp::TrustGranted;
                rec.named(w, op, &dc.name, Some(dc.resource_id), Some(changes))?;
            }
            Ok::<_, RegistryError>(())
        })?;
        Ok(consent
            .summary
            .devcontainers
            .iter()
            .zip(&rows)
            .map(|(dc, row)| TrustRecord {
                resource_id: dc.resource_id,
                name: dc.name.clone(),
                by: person.label(),
                at: row.trusted_at.clone(),
                digest: row.digest.clone(),
            })
            .collect())
    }

    /// Take the person's trust back from each devcontainer at or below
    /// `key`; answers the names it was taken from.
    pub fn untrust(&mut self, key: &ResourceKey) -> Result<Vec<String>, RegistryError> {
        let Some(person) = self.person.clone() else {
            return Ok(Vec::new());
        };
        let machine = self.machine_key();
        let cache = &self.types;
        let rec = self.recorder();
        self.store.write(|w| {
            let types = cache.get(w)?;
            let mut taken = Vec::new();
            let found = devcontainers_at(w, &types, key)?;
            let all = found
                .person
                .into_iter()
                .chain(found.agent.into_iter().map(|(row, _)| row));
            for row in all {
                if w.delete_trust(row.id, &machine, person.uid)? {
                    let changes = serde_json::json!({"person": person.user, "machine": machine});
                    let op = crate::registry::recording::EventOp::TrustRevoked;
                    rec.named(w, op, &row.label(), Some(row.id), Some(changes))?;
                    taken.push(row.label());
                }
            }
            Ok(taken)
        })
    }
}
