//! `agents mcp`'s notifications fed from the event log: a thread follows
//! the log (`Registry::follow_events`: PostgreSQL's `LISTEN`, else a poll
//! of the last number every 200 ms) and, for each batch of events that
//! lands, tells
//!
//! * the subscribers of every resource another process changed — a CLI
//!   run, a teammate on the shared server, a Python runtime, another
//!   `agents mcp`. This server's own changes are told as its tools make
//!   them (`Server::run_tool`), so they are left out here
//!   (`EventFollower::written_here`): each change is told once;
//! * every session that a list changed ([`list_changes`]), whoever made
//!   the change, this server's tools included: the log is the only place
//!   a list's change is told from, so it too is told once — and once per
//!   batch, however many events the batch holds.

use super::pool::Pool;
use super::subscriptions::{Lists, Subscriptions};
use resource_host::registry::{EVENTS_MAX_POLL, Event, EventOp, EventQuery};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long one wait lasts before `stop` is looked at again.
const TURN: Duration = Duration::from_millis(200);

/// What one batch of events tells.
#[derive(Debug, Default)]
struct Told {
    /// The resources other processes changed (ids).
    resources: Vec<String>,
    /// The lists anyone changed.
    lists: Lists,
}

/// Follow the log until `stop` is set.
pub fn follow(pool: Arc<Pool>, subscriptions: Arc<Subscriptions>, stop: Arc<AtomicBool>) {
    let runtime = tokio::runtime::Handle::current();
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<Told>();
    let forwarding = pool.clone();
    runtime.spawn(async move {
        while let Some(told) = receive.recv().await {
            subscriptions.changed(&forwarding, &told.resources).await;
            subscriptions.lists_changed(told.lists).await;
        }
    });
    std::thread::spawn(move || {
        let followed = pool.with_blocking(|registry| {
            let mut follower = registry.follow_events(EventQuery::default(), EVENTS_MAX_POLL)?;
            while !stop.load(Ordering::Relaxed) {
                let batch = follower.next_batch(registry, TURN)?;
                let told = Told {
                    resources: batch
                        .iter()
                        .filter(|e| !follower.written_here(e))
                        .flat_map(resources_of)
                        .collect(),
                    lists: batch
                        .iter()
                        .fold(Lists::default(), |lists, e| lists.and(list_changes(e.op))),
                };
                let empty = told.resources.is_empty() && !told.lists.any();
                if !empty && send.send(told).is_err() {
                    break;
                }
            }
            Ok(())
        });
        if let Err(refusal) = followed {
            log::warn!("not following the event log: {}", refusal.message);
        }
    });
}

/// The ids of the resources an event changed: a resource's own, a link's
/// two ends, a sandbox's resource (also what `list_resources`' `since`
/// counts as changed).
pub(super) fn resources_of(event: &Event) -> Vec<String> {
    let own = matches!(event.kind.as_str(), "resource" | "link")
        .then(|| event.id.clone())
        .flatten();
    let other = matches!(event.kind.as_str(), "link" | "sandbox")
        .then(|| event.related_id.clone())
        .flatten();
    own.into_iter().chain(other).collect()
}

/// The lists an operation changes. `resources/list` is the resources
/// someone registered (`Registry::registered_page`): a registration, a
/// removal, a rename, an import change it; a discovery adds children,
/// which are not listed, and a refresh changes what a resource holds, not
/// its place in the list (its subscribers hear of it). `tools/list`
/// follows the types, because `register_resource`'s input schema is one
/// branch per type a person can add: a type's or a plugin's change (a
/// plugin brings its types), or an import.
fn list_changes(op: EventOp) -> Lists {
    use EventOp::*;
    Lists {
        resources: matches!(
            op,
            ResourceRegistered | ResourceRemoved | ResourceRenamed | RegistryImported
        ),
        tools: matches!(
            op,
            TypeAdded
                | TypeReplaced
                | TypeRemoved
                | PluginAdded
                | PluginReplaced
                | PluginRemoved
                | RegistryImported
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ops_that_change_a_list_say_so() {
        let resources: Vec<&str> = EventOp::ALL
            .iter()
            .filter(|op| list_changes(**op).resources)
            .map(|op| op.as_str())
            .collect();
        assert_eq!(
            resources,
            [
                "resource.registered",
                "resource.renamed",
                "resource.removed",
                "registry.imported"
            ]
        );
        let tools = EventOp::ALL
            .iter()
            .filter(|op| list_changes(**op).tools)
            .count();
        assert_eq!(tools, 7);
        assert!(!list_changes(EventOp::ResourceRefreshed).any());
        assert!(!list_changes(EventOp::ResourceDiscovered).any());
    }
}
