//! Who is told what: the clients subscribed to a resource
//! (`resources/subscribe` in the handshake-era protocol, a
//! `subscriptions/listen` stream in 2026-07-28) hear of its changes, and
//! every session hears that a list changed — `resources/list` (someone
//! registered, removed, renamed or imported resources) or `tools/list`
//! (`register_resource`'s schema follows the types). A handshake session
//! is told of a list's change always (the capability says it may be); a
//! listen stream only when its filter asked (`resourcesListChanged`,
//! `toolsListChanged`).
//!
//! The changes come from the tools (`Server::run_tool`), and from the
//! event log and the watcher (`--watch`), both fed by `following`; this
//! module only fans them out, each to whom it concerns, once.

use super::kinds::Refusal;
use super::pool::Pool;
use resource_host::model::{ResourceId, ResourceKey};
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Which of the lists a client can fetch changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lists {
    /// `resources/list`.
    pub resources: bool,
    /// `tools/list`.
    pub tools: bool,
}

impl Lists {
    pub fn any(self) -> bool {
        self.resources || self.tools
    }

    /// Both lists' changes together.
    pub fn and(self, other: Lists) -> Lists {
        Lists {
            resources: self.resources || other.resources,
            tools: self.tools || other.tools,
        }
    }

    /// The changes a listen stream asked to hear of.
    fn asked_by(self, sink: &SubscriptionSink) -> Lists {
        let filter = sink.accepted();
        Lists {
            resources: self.resources && filter.resources_list_changed == Some(true),
            tools: self.tools && filter.tools_list_changed == Some(true),
        }
    }
}

/// A `subscriptions/listen` stream: its token, the (URI, id)s it
/// accepted, and where its notifications go.
type Listener = (u64, Vec<(String, ResourceId)>, SubscriptionSink);

/// Changes kept for a listen that was acknowledged before it was added.
const RECENT: usize = 1024;

/// Listens acknowledged and not yet added, at most (older marks beyond it
/// are kept, newer dropped: a dropped mark only makes a listen told of a
/// little more than it asked for, never less).
const PENDING: usize = 256;

/// The `subscriptions/listen` streams and what they may have missed.
///
/// rmcp acknowledges a listen (and the client goes on, refreshing, say)
/// before it hands the stream to `Server::listen`, which
/// resolves the URIs before it can add the listener: a change told in that
/// window would be lost. So each change is numbered and the last few kept
/// (a list's change: the number of its last); the acceptance marks where a
/// listen starts, and adding the listener tells it every kept change since
/// its mark — under one lock with the changes themselves, so each is told
/// exactly once.
#[derive(Default)]
struct Listening {
    listeners: Vec<Listener>,
    /// (sequence, id) of the last [`RECENT`] changes.
    recent: VecDeque<(u64, ResourceId)>,
    /// The sequence of the last change.
    seq: u64,
    /// The sequence of the last change to `resources/list` (0: none).
    resources_listed: u64,
    /// The sequence of the last change to `tools/list` (0: none).
    tools_listed: u64,
    /// The sequence at each acceptance whose listener is not added yet.
    pending: Vec<u64>,
}

/// Who is told about which resource.
#[derive(Default)]
pub struct Subscriptions {
    /// `resources/subscribe` (the handshake-era protocol): URI, id, peer.
    legacy: Mutex<Vec<(String, ResourceId, Peer<RoleServer>)>>,
    /// The handshake-era sessions (from `notifications/initialized`),
    /// told of every list's change.
    sessions: Mutex<Vec<Peer<RoleServer>>>,
    /// `subscriptions/listen` (2026-07-28).
    listening: Mutex<Listening>,
    next: AtomicU64,
}

impl Subscriptions {
    pub fn add_legacy(&self, uri: String, id: ResourceId, peer: Peer<RoleServer>) {
        if let Ok(mut legacy) = self.legacy.lock() {
            legacy.retain(|(u, _, _)| *u != uri);
            legacy.push((uri, id, peer));
        }
    }

    pub fn remove_legacy(&self, uri: &str) {
        if let Ok(mut legacy) = self.legacy.lock() {
            legacy.retain(|(u, _, _)| u != uri);
        }
    }

    /// A handshake-era session began: tell it of the lists' changes.
    pub fn add_session(&self, peer: Peer<RoleServer>) {
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.push(peer);
        }
    }

    /// A listen is being accepted (and will be acknowledged): changes from
    /// now on are told to it, even those before its listener is added.
    pub fn accepting(&self) {
        if let Ok(mut listening) = self.listening.lock()
            && listening.pending.len() < PENDING
        {
            let seq = listening.seq;
            listening.pending.push(seq);
        }
    }

    /// Add a listener, and tell it what changed among `ids` (and the
    /// lists it asked for) since its listen was accepted.
    pub async fn add_listener(
        &self,
        ids: Vec<(String, ResourceId)>,
        sink: SubscriptionSink,
    ) -> u64 {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        let mut missed: Vec<String> = Vec::new();
        let mut lists = Lists::default();
        if let Ok(mut listening) = self.listening.lock() {
            // The earliest mark: never later than this listen's own (each
            // listener takes away the latest, so its own or a later one).
            let since = listening
                .pending
                .iter()
                .copied()
                .min()
                .unwrap_or(listening.seq);
            if let Some(latest) = (0..listening.pending.len()).max_by_key(|&i| listening.pending[i])
            {
                listening.pending.swap_remove(latest);
            }
            for (seq, changed) in &listening.recent {
                if *seq <= since {
                    continue;
                }
                for (uri, id) in &ids {
                    if id == changed && !missed.contains(uri) {
                        missed.push(uri.clone());
                    }
                }
            }
            lists = Lists {
                resources: listening.resources_listed > since,
                tools: listening.tools_listed > since,
            }
            .asked_by(&sink);
            listening.listeners.push((token, ids, sink.clone()));
        }
        for uri in missed {
            let _ = sink.notify_resource_updated(uri).await;
        }
        tell_listener(&sink, lists).await;
        token
    }

    pub fn remove_listener(&self, token: u64) {
        if let Ok(mut listening) = self.listening.lock() {
            listening.listeners.retain(|(t, _, _)| *t != token);
        }
    }

    /// Tell every session that `lists` changed: each handshake session,
    /// and each listen stream that asked for it. One notification per
    /// list, however many changes `lists` stands for.
    pub async fn lists_changed(&self, lists: Lists) {
        if !lists.any() {
            return;
        }
        let sessions = self.sessions.lock().map(|s| s.clone()).unwrap_or_default();
        for peer in sessions {
            if lists.resources {
                let _ = peer.notify_resource_list_changed().await;
            }
            if lists.tools {
                let _ = peer.notify_tool_list_changed().await;
            }
        }
        let listening: Vec<(SubscriptionSink, Lists)> = self
            .listening
            .lock()
            .map(|mut listening| {
                listening.seq += 1;
                let seq = listening.seq;
                if lists.resources {
                    listening.resources_listed = seq;
                }
                if lists.tools {
                    listening.tools_listed = seq;
                }
                listening
                    .listeners
                    .iter()
                    .map(|(_, _, sink)| (sink.clone(), lists.asked_by(sink)))
                    .collect()
            })
            .unwrap_or_default();
        for (sink, asked) in listening {
            tell_listener(&sink, asked).await;
        }
    }

    /// Tell the subscribers of the resources among `changed` (ids or
    /// names, as a tool reported them).
    pub async fn changed(&self, pool: &Arc<Pool>, changed: &[String]) {
        if changed.is_empty() {
            return;
        }
        let Ok(ids) = ids_of(pool, changed).await else {
            return;
        };
        let legacy: Vec<(String, Peer<RoleServer>)> = self
            .legacy
            .lock()
            .map(|l| {
                l.iter()
                    .filter(|(_, id, _)| ids.contains(id))
                    .map(|(u, _, p)| (u.clone(), p.clone()))
                    .collect()
            })
            .unwrap_or_default();
        for (uri, peer) in legacy {
            let _ = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await;
        }
        let listening: Vec<(String, SubscriptionSink)> = self
            .listening
            .lock()
            .map(|mut listening| {
                for id in &ids {
                    listening.seq += 1;
                    let seq = listening.seq;
                    listening.recent.push_back((seq, *id));
                }
                while listening.recent.len() > RECENT {
                    listening.recent.pop_front();
                }
                listening
                    .listeners
                    .iter()
                    .flat_map(|(_, subscribed, sink)| {
                        subscribed
                            .iter()
                            .filter(|(_, id)| ids.contains(id))
                            .map(|(u, _)| (u.clone(), sink.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        for (uri, sink) in listening {
            let _ = sink.notify_resource_updated(uri).await;
        }
    }
}

/// Tell one listen stream of the lists' changes it asked for.
async fn tell_listener(sink: &SubscriptionSink, lists: Lists) {
    if lists.resources {
        let _ = sink.notify_resource_list_changed().await;
    }
    if lists.tools {
        let _ = sink.notify_tool_list_changed().await;
    }
}

/// `changed` (ids or names) as ids; a name that no longer resolves (the
/// resource was removed) is looked up no further.
async fn ids_of(pool: &Arc<Pool>, changed: &[String]) -> Result<Vec<ResourceId>, Refusal> {
    let changed = changed.to_vec();
    pool.with(move |registry| {
        Ok(changed
            .iter()
            .filter_map(|text| match text.parse::<ResourceKey>().ok()? {
                ResourceKey::Id(id) => Some(id),
                key => registry.show_resource(&key).ok().map(|r| r.resource_id),
            })
            .collect())
    })
    .await
}
