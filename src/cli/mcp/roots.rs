//! The roots the server acts in: its own (`--root DIR`, repeatable; none
//! given: the directory it was launched in) intersected with the roots
//! its client declares, when the client declares any.
//!
//! **Why the launch directory by default.** A client starts the server
//! in the project it works on; an agent's reach should be that project,
//! not the user's whole filesystem. `/` or `$HOME` must be said
//! explicitly (`--root /`).
//!
//! **The client's roots.** A client that advertises the `roots`
//! capability (protocol versions before 2026-07-28, which removed
//! server-to-client requests and deprecates roots) is asked `roots/list`
//! after it initialised, again on `notifications/roots/list_changed`,
//! and — should a tool call come first — by that call. A tool call waits
//! for the answer (at most [`WAIT`]); until one arrives, or when the
//! client failed to answer, **nothing** is inside: a client that said it
//! has roots is held to them. Only `file://` URIs of this machine
//! (`file:///…`, `file://localhost/…`) count; a root that does not exist
//! or is not a directory adds nothing, nor does one outside every
//! `--root` (see [`Roots::intersect`]).
//!
//! Every registry the server hands a call is given the current roots
//! ([`Scope::current`]), so the library's checks are the server's.

use resource_host::roots::Roots;
use rmcp::RoleServer;
use rmcp::service::Peer;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a tool call waits for the client's `roots/list` answer.
pub const WAIT: Duration = Duration::from_secs(10);

/// The server's roots and what the client's answers made of them.
#[derive(Debug)]
pub struct Scope {
    server: Roots,
    state: Mutex<State>,
    /// Told when an answer lands.
    answered: tokio::sync::Notify,
}

#[derive(Debug, Clone)]
struct State {
    /// The roots every call gets now.
    effective: Roots,
    /// Asks sent; the answer to the latest one wins.
    asked: u64,
    /// The ask the effective roots answer (`asked` when current).
    answered: u64,
}

impl Scope {
    pub fn new(server: Roots) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                effective: server.clone(),
                asked: 0,
                answered: 0,
            }),
            server,
            answered: tokio::sync::Notify::new(),
        })
    }

    /// The roots now (without waiting for an answer on its way).
    pub fn now(&self) -> Roots {
        self.lock().effective.clone()
    }

    /// The roots a call acts in: once the client (if it declares roots)
    /// has answered, waiting for that answer at most [`WAIT`].
    pub async fn current(self: &Arc<Self>, peer: &Peer<RoleServer>) -> Roots {
        if !declares_roots(peer) {
            return self.server.clone();
        }
        self.ask(peer.clone(), true);
        let waiting = async {
            loop {
                let notified = self.answered.notified();
                {
                    let state = self.lock();
                    if state.answered == state.asked {
                        return state.effective.clone();
                    }
                }
                notified.await;
            }
        };
        tokio::time::timeout(WAIT, waiting)
            .await
            .unwrap_or_else(|_| {
                log::warn!("the client has not answered roots/list; acting in no roots");
                Roots::none()
            })
    }

    /// Ask the client for its roots (when it declares them); the answer
    /// replaces the effective roots unless a later ask was sent meanwhile.
    /// With `once`, only if the client was not asked already (the check
    /// and the count under one lock: a first call racing the handshake's
    /// own ask does not ask twice).
    // Roots are deprecated by SEP-2577 (2026-07-28), and still what
    // clients of the handshake-era versions declare.
    #[allow(deprecated)]
    pub fn ask(self: &Arc<Self>, peer: Peer<RoleServer>, once: bool) {
        if !declares_roots(&peer) {
            return;
        }
        let ask = {
            let mut state = self.lock();
            if once && state.asked > 0 {
                return;
            }
            state.asked += 1;
            state.asked
        };
        let scope = self.clone();
        tokio::spawn(async move {
            let answer = peer.list_roots().await;
            let client = match answer {
                Ok(list) => client_roots(list.roots.iter().map(|r| r.uri.as_str())),
                Err(e) => {
                    log::warn!("roots/list failed ({e}); acting in no roots");
                    Roots::none()
                }
            };
            let effective = scope.server.intersect(&client);
            log::info!("roots: {effective} (the client's: {client})");
            {
                let mut state = scope.lock();
                if ask >= state.answered {
                    state.answered = ask;
                    state.effective = effective;
                }
            }
            scope.answered.notify_waiters();
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether the client declared the `roots` capability in a protocol
/// version that still lets the server ask for them.
fn declares_roots(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info().is_some_and(|info| {
        info.capabilities.roots.is_some()
            && info.protocol_version.to_string().as_str() < "2026-07-28"
    })
}

/// The client's `file://` roots that exist as directories here.
fn client_roots<'a>(uris: impl Iterator<Item = &'a str>) -> Roots {
    let dirs: Vec<PathBuf> = uris
        .filter_map(|uri| {
            let path = file_uri_path(uri);
            if path.is_none() {
                log::warn!("client root {uri:?} is not a file:// URI of this machine; ignored");
            }
            path
        })
        .filter(|path| {
            let root = Roots::new([path]).inspect_err(|e| log::warn!("client {e}; ignored"));
            root.is_ok()
        })
        .collect();
    Roots::new(dirs).unwrap_or_default()
}

/// The path of a `file://` URI naming this machine (`file:///p`,
/// `file://localhost/p`), percent-decoded; `None` for anything else.
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') || path.contains(['?', '#']) {
        return None;
    }
    let out = percent_decoded(path)?;
    if out.contains(&0) {
        return None;
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// `text` with each `%XX` as its byte (a resource's URI, a client's
/// `file://` root); `None` when a `%` is not followed by two hex digits.
pub fn percent_decoded(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_file_uris_of_this_machine_name_a_path() {
        assert_eq!(file_uri_path("file:///work/a"), Some("/work/a".into()));
        assert_eq!(
            file_uri_path("file://localhost/work/a%20b"),
            Some("/work/a b".into())
        );
        assert_eq!(file_uri_path("file://other/work"), None);
        assert_eq!(file_uri_path("https://x/work"), None);
        assert_eq!(file_uri_path("file:///work/%00"), None);
        assert_eq!(file_uri_path("file:///work/%zz"), None);
    }
}
