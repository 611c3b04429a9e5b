//! Captured guest stdout/stderr: a bounded in-memory sink.
//!
//! Unlike wasmtime-wasi's `MemoryOutputPipe`, which fails the guest's
//! write once full, this sink never errors: it keeps the first `capacity`
//! bytes, drops the rest and counts them. A handler that floods its output
//! therefore finishes normally, and the host's memory for it stays bounded.

use bytes::Bytes;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

/// The write permit offered to the guest each time it asks (WASI streams
/// conventionally offer ~64 KiB); what is written past `capacity` is
/// dropped, so the permit never has to shrink.
const PERMIT: usize = 64 * 1024;

/// A bounded, shareable capture of one output stream.
#[derive(Debug, Clone)]
pub(crate) struct Capture(Arc<Mutex<Captured>>);

/// What one stream produced during a call.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Captured {
    pub kept: Vec<u8>,
    pub dropped: u64,
    capacity: usize,
}

impl Capture {
    pub fn new(capacity: usize) -> Self {
        Self(Arc::new(Mutex::new(Captured {
            kept: Vec::new(),
            dropped: 0,
            capacity,
        })))
    }

    /// Keep what fits, count the rest.
    pub fn push(&self, bytes: &[u8]) {
        let mut c = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let room = c.capacity.saturating_sub(c.kept.len());
        let keep = room.min(bytes.len());
        c.kept.extend_from_slice(&bytes[..keep]);
        c.dropped += (bytes.len() - keep) as u64;
    }

    /// Take what was captured so far.
    pub fn take(&self) -> Captured {
        let mut c = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let capacity = c.capacity;
        std::mem::replace(
            &mut *c,
            Captured {
                capacity,
                ..Captured::default()
            },
        )
    }
}

impl IsTerminal for Capture {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Capture {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for Capture {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(PERMIT)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for Capture {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for Capture {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_past_the_capacity_is_dropped_and_counted() {
        let capture = Capture::new(4);
        capture.push(b"abc");
        capture.push(b"defgh");
        let got = capture.take();
        assert_eq!(got.kept, b"abcd");
        assert_eq!(got.dropped, 4);
    }

    #[test]
    fn a_full_capture_still_accepts_writes_without_error() {
        let mut capture = Capture::new(0);
        assert_eq!(capture.check_write().unwrap(), PERMIT);
        assert!(OutputStream::write(&mut capture, Bytes::from_static(b"xyz")).is_ok());
        assert_eq!(capture.take().dropped, 3);
    }
}
