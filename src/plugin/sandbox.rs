//! The per-call sandbox: the one home of what a handler can see and use.
//!
//! Each call gets a fresh [`CallState`] (the `Store`'s data) whose WASI
//! context is built from nothing (`WasiCtxBuilder::new()`):
//!
//! * filesystem: only the granted location, checked again now (a
//!   directory preopened through its own descriptor at its own path; a
//!   file or symlink alone in a one-entry view, see `location`),
//!   read-only unless the grant says writable; opening anything but a
//!   regular file or a directory is refused (`fs_guard`);
//! * no environment variables, no arguments, stdin closed;
//! * network: wasmtime-wasi 48 already denies TCP, UDP and name lookups by
//!   default and checks every socket address against a deny-all rule; all
//!   of it is switched off again explicitly, so a future default cannot
//!   open it;
//! * stdout/stderr: captured into bounded buffers ([`Capture`]) and sent
//!   to the `log` crate (target `plugin`) after the call;
//! * memory: a [`ResourceLimiter`] capping the instance's total linear
//!   memory and recording that the cap was hit, so running out of memory is
//!   told apart from other traps;
//! * the host `log` import: bounded lines per call, labelled.
//!
//! Filesystem calls run on the calling thread
//! (`allow_blocking_current_thread`), which DESIGN measured 5–8× faster
//! than the default hand-off to a blocking thread.

use super::capture::Capture;
use super::git::{GitMemo, GitScope};
use super::limits::Limits;
use super::limits::human_bytes;
use super::location::{View, ViewRefusal};
use super::types::{Grant, Operation};
use crate::git_env::GitTools;
use std::path::Path;
use std::sync::Arc;
use wasmtime::ResourceLimiter;
use wasmtime_wasi::{FsPerms, ResourceTable, WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// Elements one table may grow to (function tables of Rust guests hold a
/// few hundred); also the pooled table slot size.
pub(crate) const MAX_TABLE_ELEMENTS: usize = 20_000;

/// Who is being called, for every log line and error.
#[derive(Debug, Clone)]
pub(crate) struct Label {
    pub module: String,
    pub class: String,
    pub operation: Operation,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.class.is_empty() {
            write!(f, "{} {}", self.module, self.operation)
        } else {
            write!(f, "{}:{} {}", self.module, self.class, self.operation)
        }
    }
}

/// The data of one call's `Store`.
pub(crate) struct CallState {
    wasi: WasiCtx,
    /// What was checked and preopened; kept open for the call.
    view: Option<View>,
    /// The call's git questions, about the repository of its location.
    git: GitScope,
    table: ResourceTable,
    pub(crate) memory: MemoryCap,
    label: Label,
    stdout: Capture,
    stderr: Capture,
    log_lines: usize,
    log_line_bytes: usize,
    logged: usize,
    log_dropped: usize,
}

impl CallState {
    /// A sandbox seeing only `grant`, or an explanation why it cannot be
    /// built (the location is gone, moved behind a symlink, not UTF-8).
    /// One-entry views are made under `views` (a private temp directory
    /// when `None`).
    pub fn new(
        grant: &Grant,
        limits: &Limits,
        label: Label,
        views: Option<&Path>,
        git_memo: Option<Arc<GitMemo>>,
        git: Arc<GitTools>,
    ) -> Result<Self, ViewRefusal> {
        let stdout = Capture::new(limits.output_bytes);
        let stderr = Capture::new(limits.output_bytes);
        let mut wasi = WasiCtxBuilder::new();
        // Before `preopened_dir`: each preopen captures this setting.
        wasi.allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }))
            .stdout(stdout.clone())
            .stderr(stderr.clone());
        let view = match &grant.location {
            Some(location) => {
                let view = super::location::view(location, views)?;
                let perms = if grant.writable {
                    FsPerms::ReadWrite
                } else {
                    FsPerms::ReadOnly
                };
                wasi.preopened_dir(&view.host, &view.guest, perms)
                    .map_err(|e| ViewRefusal::Preopen {
                        path: location.clone(),
                        reason: format!("{e:#}"),
                    })?;
                Some(view)
            }
            None => None,
        };
        let git = match (&view, &grant.remote) {
            (None, Some(url)) => GitScope::remote(url.clone(), git_memo, git),
            _ => GitScope::new(view.as_ref().and_then(View::git_dir), git_memo, git),
        };
        Ok(Self {
            wasi: wasi.build(),
            view,
            git,
            table: ResourceTable::new(),
            memory: MemoryCap::new(limits.memory_bytes),
            label,
            stdout,
            stderr,
            log_lines: limits.log_lines,
            log_line_bytes: limits.log_line_bytes,
            logged: 0,
            log_dropped: 0,
        })
    }

    /// The checked view of the call's location, if it has one.
    pub fn view(&self) -> Option<&View> {
        self.view.as_ref()
    }

    /// The call's git questions.
    pub fn git(&mut self) -> &mut GitScope {
        &mut self.git
    }

    /// The host `log` import: forward to the `log` crate, bounded.
    pub fn host_log(&mut self, level: log::Level, mut message: String) {
        if self.logged >= self.log_lines {
            self.log_dropped += 1;
            return;
        }
        self.logged += 1;
        if message.len() > self.log_line_bytes {
            let mut cut = self.log_line_bytes;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push_str(" [cut]");
        }
        log::log!(target: "plugin", level, "{}: {message}", self.label);
    }

    /// Send captured output and drop counts to the log; answer what the
    /// guest wrote to stderr (where it says why it failed). Output is
    /// logged at debug (`-vv`), but a failed call's at info, so `-v` shows
    /// the whole stderr of the call that failed, once.
    pub fn finish(&mut self, failed: bool) -> String {
        let label = &self.label;
        if self.log_dropped > 0 {
            log::warn!(
                target: "plugin",
                "{label}: {} log lines dropped (bound {} per call)",
                self.log_dropped,
                self.log_lines
            );
        }
        let level = if failed {
            log::Level::Info
        } else {
            log::Level::Debug
        };
        let mut stderr = String::new();
        for (stream, capture) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            let captured = capture.take();
            let text = String::from_utf8_lossy(&captured.kept);
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                log::log!(target: "plugin", level, "{label} {stream}: {line}");
            }
            if captured.dropped > 0 {
                log::warn!(
                    target: "plugin",
                    "{label} {stream}: {} more bytes dropped (bound {})",
                    captured.dropped,
                    human_bytes(captured.kept.len() as u64)
                );
            }
            if stream == "stderr" {
                stderr = text.into_owned();
            }
        }
        stderr
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// Caps the total linear memory of one instance and remembers whether a
/// growth was refused.
#[derive(Debug)]
pub(crate) struct MemoryCap {
    limit: u64,
    total: u64,
    pub(crate) hit: bool,
}

impl MemoryCap {
    pub fn new(limit: u64) -> Self {
        Self {
            limit,
            total: 0,
            hit: false,
        }
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let after = self.total - current as u64 + desired as u64;
        if after > self.limit {
            self.hit = true;
            return Ok(false);
        }
        self.total = after;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_cap_counts_every_memory_of_the_instance() {
        let mut cap = MemoryCap::new(100);
        assert!(cap.memory_growing(0, 60, None).unwrap());
        assert!(
            !cap.memory_growing(0, 60, None).unwrap(),
            "a second memory shares the cap"
        );
        assert!(cap.hit);
        assert!(cap.memory_growing(60, 100, None).unwrap());
    }

    #[test]
    fn a_sandbox_refuses_a_granted_directory_that_does_not_exist() {
        let label = Label {
            module: "m".into(),
            class: "C".into(),
            operation: Operation::Discover,
        };
        let grant = Grant::read_only("/nonexistent/for/sure");
        let err = CallState::new(
            &grant,
            &Limits::default(),
            label,
            None,
            None,
            Arc::default(),
        )
        .err()
        .unwrap();
        assert!(matches!(err, ViewRefusal::Gone { .. }), "{err:?}");
        let err = err.to_string();
        assert!(
            err.contains("/nonexistent/for/sure no longer exists"),
            "{err}"
        );
    }
}
