//! The event log's tool: what changed, and by whom (`agents events`).

use super::{Count, parsed};
use crate::cli::mcp::following::resources_of;
use crate::cli::mcp::kinds::Refusal;
use resource_host::registry::{Event, EventQuery, Since};
use schemars::JsonSchema;
use serde::Serialize;

tools! {
    /// List the recorded changes to the registry, oldest first: each with its number (seq), time, operation, subject (its name at the time), what changed, who and through which face. Keep the last seq you saw and pass it as since to ask only what changed after it.
    list_events: ListEvents(Read) -> Events {
        /// Only the events after this number (the seq of the last one seen).
        since: Option<u64>,
        /// Only the events about this resource (name or id; a removed one by its old name).
        resource: Option<String>,
        /// With resource: its descendants' events too.
        below: Option<bool>,
        /// At most this many (default 1000, at most 10000): the oldest after since.
        limit: Option<Count>,
    } |registry, args, _| {
        let below = args.below.unwrap_or(false);
        if below && args.resource.is_none() {
            return Err(Refusal::invalid("below: needs resource"));
        }
        let since = args.since.map(seq).transpose()?;
        let query = EventQuery {
            since: since.map(Since::Seq),
            resource: args.resource.map(|r| parsed("resource", &r)).transpose()?,
            below,
            limit: args.limit.map(|n| n.0),
            ..EventQuery::default()
        };
        let events = registry.events(&query)?;
        let text = match (events.first(), events.last()) {
            (Some(first), Some(last)) => {
                format!("{} events ({}..{})", events.len(), first.seq, last.seq)
            }
            _ => "no events".to_owned(),
        };
        Done::new(&Events { events }, text)
    }
}

/// A `since` argument as the event number it is (refused past the
/// largest one the log can hold).
fn seq(since: u64) -> Result<i64, Refusal> {
    i64::try_from(since).map_err(|_| Refusal::invalid("since: too large"))
}

/// `list_events`' answer: the list, wrapped as MCP wants an object.
#[derive(Serialize, JsonSchema)]
pub struct Events {
    events: Vec<Event>,
}

/// The most events `list_resources`' `since` reads (ten pages of the
/// log's largest); more changed since, and the agent is told to list
/// without it.
const MOST_SINCE: usize = 100_000;

/// The ids of the resources changed after event `since` (what the
/// follower tells subscribers of), for `list_resources`' `since`.
pub(super) fn changed_since(
    registry: &Registry,
    since: u64,
) -> Result<std::collections::HashSet<String>, Refusal> {
    let mut last = seq(since)?;
    let mut ids = std::collections::HashSet::new();
    let mut read = 0;
    loop {
        let page = registry.events(&EventQuery {
            since: Some(Since::Seq(last)),
            limit: Some(resource_host::registry::EVENTS_MAX_LIMIT),
            ..EventQuery::default()
        })?;
        ids.extend(page.iter().flat_map(resources_of));
        read += page.len();
        match page.last() {
            Some(e) if page.len() as u32 == resource_host::registry::EVENTS_MAX_LIMIT => {
                last = e.seq;
                if read >= MOST_SINCE {
                    return Err(Refusal::invalid(format!(
                        "since: more than {MOST_SINCE} changes after event {since}; list without \
                         since (or page through list_events)"
                    )));
                }
            }
            _ => return Ok(ids),
        }
    }
}
