//! Provenance decides, not the DAG: the one home of whether a resource
//! below another was brought there by a person or by an agent.
//!
//! A link says only where something hangs; who made it, and who
//! registered what it leads to, is what a person's consent can rest on.
//! Below a resource a person names, a resource is **a person's** when
//! there is a way down to it with no link an agent made (through a face
//! that serves one: `mcp`), and when it was registered by a person — or,
//! if discovery found it, when what it was discovered below was
//! registered by a person (the files on disk put it there). Anything
//! else was **brought by an agent**: registered through MCP, linked in
//! through MCP, or imported through MCP (an agent's import records the
//! agent on every row and link, whatever the document says). Rows stored
//! before provenance was recorded (schema 10) count as a person's: there
//! is no telling, and they were there before this rule.
//!
//! Every walk here is iterative, visits each resource once and stops at
//! [`MAX_VISITED`] resources (refusing past it), so a chain an agent made
//! deep or wide costs bounded work.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::model::{Actor, ResourceId};
use crate::registry::RegistryError;
use crate::store::{Reader, ResourceRow};

/// The most resources one walk visits.
pub const MAX_VISITED: usize = 100_000;

/// Who brought a resource below the one a person named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Person,
    /// An agent; why, for people (`linked below local/api by mcp:client`).
    Agent(String),
}

/// The resources below `root` (itself included), each with its origin.
pub(crate) fn below(
    r: &Reader<'_>,
    root: ResourceId,
) -> Result<BTreeMap<ResourceId, Origin>, RegistryError> {
    // First the ways down with no agent link; then what only agent links
    // reach.
    let mut clean: BTreeSet<ResourceId> = BTreeSet::from([root]);
    let mut agent_linked: BTreeMap<ResourceId, String> = BTreeMap::new();
    let mut queue = VecDeque::from([root]);
    while let Some(node) = queue.pop_front() {
        for end in r.link_ends(node, true)? {
            match end.linked_by.as_ref().filter(|a| a.face.is_agent()) {
                None => {
                    if clean.insert(end.other) {
                        agent_linked.remove(&end.other);
                        bounded(clean.len() + agent_linked.len())?;
                        queue.push_back(end.other);
                    }
                }
                Some(agent) => {
                    if !clean.contains(&end.other) && !agent_linked.contains_key(&end.other) {
                        let parent = label(r, node)?;
                        agent_linked.insert(
                            end.other,
                            format!("linked below {parent} by {}", shown(agent)),
                        );
                        bounded(clean.len() + agent_linked.len())?;
                    }
                }
            }
        }
    }
    // What an agent linked in brings its whole subtree.
    let mut queue: VecDeque<ResourceId> = agent_linked.keys().copied().collect();
    while let Some(node) = queue.pop_front() {
        let why = agent_linked[&node].clone();
        for end in r.link_ends(node, true)? {
            if !clean.contains(&end.other) && !agent_linked.contains_key(&end.other) {
                agent_linked.insert(end.other, why.clone());
                bounded(clean.len() + agent_linked.len())?;
                queue.push_back(end.other);
            }
        }
    }
    let mut out: BTreeMap<ResourceId, Origin> = agent_linked
        .into_iter()
        .map(|(id, why)| (id, Origin::Agent(why)))
        .collect();
    for id in clean {
        out.insert(id, origin(r, id)?);
    }
    Ok(out)
}

/// Who brought `id` itself: its registration, or — discovered — the
/// registration it was discovered below (module doc).
pub(crate) fn origin(r: &Reader<'_>, id: ResourceId) -> Result<Origin, RegistryError> {
    let Some(row) = r.resource_by_id(id)? else {
        return Ok(Origin::Person);
    };
    if !row.auto_discovered {
        return Ok(registered(&row));
    }
    // Up the links discovery made, to what was registered.
    let mut seen = BTreeSet::from([id]);
    let mut queue = VecDeque::from([id]);
    let mut verdict: Option<Origin> = None;
    while let Some(node) = queue.pop_front() {
        for end in r.link_ends(node, false)? {
            if let Some(agent) = end.linked_by.as_ref().filter(|a| a.face.is_agent()) {
                verdict.get_or_insert(Origin::Agent(format!("linked in by {}", shown(agent))));
                continue;
            }
            if !end.auto_discovered || !seen.insert(end.other) {
                continue;
            }
            bounded(seen.len())?;
            let Some(parent) = r.resource_by_id(end.other)? else {
                continue;
            };
            if parent.auto_discovered {
                queue.push_back(end.other);
            } else {
                match registered(&parent) {
                    Origin::Person => return Ok(Origin::Person),
                    agent => {
                        verdict.get_or_insert(match agent {
                            Origin::Agent(why) => Origin::Agent(format!(
                                "discovered below {}, which was {why}",
                                parent.label()
                            )),
                            Origin::Person => unreachable!(),
                        });
                    }
                }
            }
        }
    }
    Ok(verdict.unwrap_or_else(|| registered(&row)))
}

/// Who registered `row`, by its own record.
fn registered(row: &ResourceRow) -> Origin {
    match row.registered_by.as_ref().filter(|a| a.face.is_agent()) {
        Some(agent) => Origin::Agent(format!("registered by {}", shown(agent))),
        None => Origin::Person,
    }
}

fn label(r: &Reader<'_>, id: ResourceId) -> Result<String, RegistryError> {
    Ok(r.resource_by_id(id)?
        .map_or_else(|| id.to_string(), |row| row.label()))
}

/// An actor for a message (its name is the client's choice: escaped).
fn shown(actor: &Actor) -> String {
    crate::text::escape_line(&actor.label()).into_owned()
}

fn bounded(visited: usize) -> Result<(), RegistryError> {
    if visited > MAX_VISITED {
        return Err(RegistryError::Environments(
            crate::registry::EnvironmentsError::TooManyBelow { limit: MAX_VISITED },
        ));
    }
    Ok(())
}
