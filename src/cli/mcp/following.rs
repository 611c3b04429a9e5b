//! `agents mcp`'s subscriptions fed from the event log: a thread follows
//! the log (`Registry::follow_events`: PostgreSQL's `LISTEN`, else a poll
//! of the last number every 200 ms) and tells the subscribers of every
//! resource another process changed — a CLI run, a teammate on the shared
//! server, a Python runtime, another `agents mcp`. This server's own
//! changes are told as its tools make them (`Server::call_tool`), so the
//! follower leaves them out (`EventFollower::others_only`): each change is
//! told once.

use super::pool::Pool;
use super::resources::Subscriptions;
use resource_host::registry::{EVENTS_MAX_POLL, Event, EventQuery};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long one wait lasts before `stop` is looked at again.
const TURN: Duration = Duration::from_millis(200);

/// Follow the log until `stop` is set.
pub fn follow(pool: Arc<Pool>, subscriptions: Arc<Subscriptions>, stop: Arc<AtomicBool>) {
    let runtime = tokio::runtime::Handle::current();
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<Vec<String>>();
    let forwarding = pool.clone();
    runtime.spawn(async move {
        while let Some(changed) = receive.recv().await {
            subscriptions.changed(&forwarding, &changed).await;
        }
    });
    std::thread::spawn(move || {
        let followed = pool.with_blocking(|registry| {
            let mut follower = registry
                .follow_events(EventQuery::default(), EVENTS_MAX_POLL)?
                .others_only();
            while !stop.load(Ordering::Relaxed) {
                let batch = follower.next_batch(registry, TURN)?;
                let ids: Vec<String> = batch.iter().flat_map(resources_of).collect();
                if !ids.is_empty() && send.send(ids).is_err() {
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
/// two ends, a sandbox's resource.
fn resources_of(event: &Event) -> Vec<String> {
    let own = matches!(event.kind.as_str(), "resource" | "link")
        .then(|| event.id.clone())
        .flatten();
    let other = matches!(event.kind.as_str(), "link" | "sandbox")
        .then(|| event.related_id.clone())
        .flatten();
    own.into_iter().chain(other).collect()
}
