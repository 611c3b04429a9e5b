//! The bounds of one handler call: memory, wall-clock time, captured
//! output, log lines, and the size of what a handler may answer. One home
//! for the numbers and their defaults, so the runtime, the docs and the
//! tests agree, and of how a limit reads in a message (`128 MiB`, `2s`).
//!
//! Answer bounds exist because an answer is lifted into host memory before
//! anyone looks at it; past a bound the call ends in `RefusedResult`,
//! never in a crash or a registry flooded with rows.

use std::time::Duration;

/// Limits applied to every call (a fresh `Store` each time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Total linear memory of the component instance, in bytes.
    pub memory_bytes: u64,
    /// Wall-clock time of one call, instantiation included.
    pub timeout: Duration,
    /// Bytes of stdout and of stderr kept per call (each); the rest is
    /// dropped and counted, never an error to the guest.
    pub output_bytes: usize,
    /// Lines a handler may send to the host `log` per call; the rest are
    /// dropped and counted.
    pub log_lines: usize,
    /// Bytes of one log line; longer lines are cut.
    pub log_line_bytes: usize,
    /// What an answer may hold.
    pub answer: AnswerBounds,
    /// Calls that may run at once on one runtime (the size of the engine's
    /// instance pool); one more fails to instantiate.
    pub concurrent_calls: u32,
}

impl Limits {
    /// The memory limits a call may be given, in MiB: below 16 MiB no
    /// component this host serves instantiates (the built-in handlers
    /// alone need over 1 MiB of initial memory, a Python one far more),
    /// and 4 GiB is all a 32-bit linear memory can address (the engine
    /// reserves no more).
    pub const MEMORY_MIB: std::ops::RangeInclusive<u64> = 16..=4096;

    /// The wall-clock limits a call may be given, in seconds: from one
    /// epoch tick (5 ms: what a deadline resolves) to a day.
    pub const TIMEOUT_SECS: std::ops::RangeInclusive<f64> = 0.005..=86_400.0;
}

impl Default for Limits {
    /// 128 MiB, 10 s, 64 KiB of each output stream, 1000 log lines of at
    /// most 4 KiB, [`AnswerBounds::default`], 32 concurrent calls.
    fn default() -> Self {
        Self {
            memory_bytes: 128 * 1024 * 1024,
            timeout: Duration::from_secs(10),
            output_bytes: 64 * 1024,
            log_lines: 1000,
            log_line_bytes: 4 * 1024,
            answer: AnswerBounds::default(),
            concurrent_calls: 32,
        }
    }
}

/// Children one `discover` answer may hold by default: a repository's
/// branches and tags are one answer, and mirrors with pull-request refs
/// or Gerrit's `refs/changes/*` have tens of thousands (`agents
/// --handler-max-children N` raises it).
pub const DEFAULT_MAX_CHILDREN: usize = 100_000;

/// Sizes an answer may not exceed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerBounds {
    /// Children one `discover` may return.
    pub max_children: usize,
    /// Properties in one property list (validate's answer, one child's).
    pub max_properties: usize,
    /// Bytes of one short string: a key, a value, a name, a location, a
    /// type name, an error message, a class description.
    pub max_string_bytes: usize,
    /// Bytes of a content hash (the `content_hash` column holds 128).
    pub max_hash_bytes: usize,
    /// Bytes of `inspect`'s text.
    pub max_text_bytes: usize,
    /// Classes one module may declare.
    pub max_classes: usize,
}

impl Default for AnswerBounds {
    /// [`DEFAULT_MAX_CHILDREN`] children, 1,000 properties, 64 KiB
    /// strings, 128-byte hashes, 1 MiB of inspect text, 1,000 classes.
    fn default() -> Self {
        Self {
            max_children: DEFAULT_MAX_CHILDREN,
            max_properties: 1_000,
            max_string_bytes: 64 * 1024,
            max_hash_bytes: 128,
            max_text_bytes: 1024 * 1024,
            max_classes: 1_000,
        }
    }
}

/// `2s`, `1.5s`, `250ms`.
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else if ms >= 1000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{ms}ms")
    }
}

/// `128 MiB`, `64 KiB`, `100 bytes`.
pub(crate) fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_figures() {
        let limits = Limits::default();
        assert_eq!(limits.memory_bytes, 128 << 20);
        assert_eq!(limits.timeout, Duration::from_secs(10));
        assert_eq!(limits.output_bytes, 64 << 10);
        assert_eq!(limits.answer.max_children, DEFAULT_MAX_CHILDREN);
    }

    #[test]
    fn durations_and_sizes_read_as_people_write_them() {
        assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(human_bytes(64 * 1024), "64 KiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
    }
}
