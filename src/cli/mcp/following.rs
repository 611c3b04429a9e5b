//! `agents mcp`'s notifications of what its tools did not tell as they
//! answered (`Server::run_tool`): threads that each hold a registry and
//! feed what they see to the [`Subscriptions`].
//!
//! The event log, always: a thread follows it
//! (`Registry::follow_events`: PostgreSQL's `LISTEN`, else a poll of the
//! last number every 200 ms) and, for each batch of events that lands,
//! tells
//!
//! * the subscribers of every resource another process changed — a CLI
//!   run, a teammate on the shared server, a Python runtime, another
//!   `agents mcp`. This server's own changes are told as its tools make
//!   them, so they are left out here (`EventFollower::written_here`):
//!   each change is told once;
//! * every session that a list changed ([`list_changes`]), whoever made
//!   the change, this server's tools included: the log is the only place
//!   a list's change is told from, so it too is told once — and once per
//!   batch, however many events the batch holds.
//!
//! The registered locations, with `--watch`: a thread watches them (as
//! `agents resource watch` does) and tells the subscribers of what each
//! refresh it makes changed.

use super::kinds::Refusal;
use super::pool::Pool;
use super::subscriptions::{Lists, Subscriptions};
use resource_host::registry::{
    EVENTS_MAX_POLL, Event, EventOp, EventQuery, RefreshReport, Registry, WatchEvent, WatchOptions,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;

/// How long one wait lasts before `stop` is looked at again.
const TURN: Duration = Duration::from_millis(200);

/// What one batch of events, or one refresh, tells: the resources changed
/// (ids), and the lists anyone changed.
type Told = (Vec<String>, Lists);

/// Follow the log, and with `watch` the registered locations, until the
/// flag this answers is set.
pub fn start(pool: &Arc<Pool>, subscriptions: &Arc<Subscriptions>, watch: bool) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let following = stop.clone();
    let follow = move |registry: &mut Registry, send: &UnboundedSender<Told>| {
        let mut follower = registry.follow_events(EventQuery::default(), EVENTS_MAX_POLL)?;
        while !following.load(Ordering::Relaxed) {
            let batch = follower.next_batch(registry, TURN)?;
            let elsewhere = |e: &&Event| !follower.written_here(e);
            let resources: Vec<String> = batch
                .iter()
                .filter(elsewhere)
                .flat_map(resources_of)
                .collect();
            let lists = batch
                .iter()
                .fold(Lists::default(), |l, e| l.and(list_changes(e.op)));
            if (!resources.is_empty() || lists.any()) && send.send((resources, lists)).is_err() {
                break;
            }
        }
        Ok::<_, Refusal>(())
    };
    feed(pool, subscriptions, "following the event log", follow);
    if watch {
        let watching = stop.clone();
        feed(pool, subscriptions, "watching", move |registry, send| {
            let mut on_event = |event: WatchEvent| {
                if let WatchEvent::Refreshed { report, .. } = event {
                    let _ = send.send((refreshed(&report), Lists::default()));
                }
            };
            registry.watch(&[], WatchOptions::default(), &watching, &mut on_event)?;
            Ok(())
        });
    }
    stop
}

/// Run `work` on a thread of its own with a registry of the pool; what
/// it sends is told to the subscriptions on the runtime. `doing` names
/// the work in the warning when it cannot go on.
fn feed(
    pool: &Arc<Pool>,
    subscriptions: &Arc<Subscriptions>,
    doing: &'static str,
    work: impl FnOnce(&mut Registry, &UnboundedSender<Told>) -> Result<(), Refusal> + Send + 'static,
) {
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<Told>();
    let (forwarding, subscriptions) = (pool.clone(), subscriptions.clone());
    tokio::spawn(async move {
        while let Some((resources, lists)) = receive.recv().await {
            subscriptions.changed(&forwarding, &resources).await;
            subscriptions.lists_changed(lists).await;
        }
    });
    let pool = pool.clone();
    std::thread::spawn(move || {
        if let Err(refusal) = pool.with_blocking(|registry| work(registry, &send)) {
            log::warn!("not {doing}: {}", refusal.message);
        }
    });
}

/// The ids a refresh wrote: those it brought up to date, then those it
/// marked stale (what the watcher's and the `refresh` tool's subscribers
/// are told of).
pub(super) fn refreshed(report: &RefreshReport) -> Vec<String> {
    let changed = report.changed.iter().map(|c| c.resource_id.to_string());
    changed
        .chain(report.stale.iter().map(|s| s.resource_id.to_string()))
        .collect()
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
