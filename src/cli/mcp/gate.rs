//! What reaches `rmcp` before a session has begun. The protocol says a
//! server ignores a notification it does not expect, and before
//! `initialize` (or, on 2026-07-28, the first request carrying its
//! version) nothing is expected but requests; `rmcp` instead ends the
//! session on any other message there (`ExpectedInitializeRequest`), so
//! a client that says `notifications/initialized` too early, or anything
//! writing a stray notification or response on the pipe, would stop the
//! server. [`Gate`] wraps the transport and drops those messages until a
//! request that begins the session has passed; after that it passes
//! everything, and `rmcp` handles notifications as usual.

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use rmcp::service::TxJsonRpcMessage;
use rmcp::transport::Transport;

/// A transport that ignores what comes before the session begins.
pub struct Gate<T> {
    inner: T,
    open: bool,
}

impl<T> Gate<T> {
    pub fn new(inner: T) -> Self {
        Self { inner, open: false }
    }
}

/// Whether `request` begins the session: `initialize`, or (2026-07-28) a
/// request other than `ping` and `server/discover` that carries its
/// protocol version in full, as `rmcp` requires of one.
fn begins_session(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.protocol_version().is_some()
                && meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
        }
    }
}

impl<T> Transport<RoleServer> for Gate<T>
where
    T: Transport<RoleServer>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let message = self.inner.receive().await?;
            if self.open {
                return Some(message);
            }
            match &message {
                ClientJsonRpcMessage::Request(request) => {
                    self.open = begins_session(&request.request);
                    return Some(message);
                }
                _ => log::debug!("ignored a message sent before the session began"),
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
