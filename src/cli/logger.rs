//! `-v` logging to stderr: the library logs through the `log` facade and
//! never prints; this is where those lines become visible.
//!
//! Every line is escaped for the terminal (a handler's text cannot drive
//! it), and what handlers say — their `log` lines and captured output,
//! target `plugin` — is capped per command: past [`PLUGIN_LINES`] lines or
//! [`PLUGIN_BYTES`] bytes the rest is dropped and counted, and one last
//! line says how much ([`finish`]).
//!
//! Up to `-vv` only the host's own lines are shown (this crate's modules
//! and its `plugin` and `sandbox` targets); the libraries below it —
//! Cranelift's timing passes alone are ~24,000 debug lines for one
//! compile — speak only at the most verbose level (`-vvv`).

use log::{LevelFilter, Log, Metadata, Record};
use resource_host::text::escape_line;
use std::sync::Mutex;

/// Lines a command prints on handlers' behalf, at most.
pub const PLUGIN_LINES: usize = 200;
/// Bytes a command prints on handlers' behalf, at most.
pub const PLUGIN_BYTES: usize = 64 * 1024;

#[derive(Debug, Default)]
struct Budget {
    lines: usize,
    bytes: usize,
    dropped_lines: usize,
    dropped_bytes: usize,
}

#[derive(Debug)]
struct StderrLogger {
    plugin: Mutex<Budget>,
}

/// Targets of the host's own lines: its modules and the names it logs
/// under.
fn is_own(target: &str) -> bool {
    let first = target.split("::").next().unwrap_or(target);
    matches!(first, "resource_host" | "agents" | "plugin" | "sandbox")
}

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        let max = log::max_level();
        if metadata.level() > max {
            return false;
        }
        // A library's warnings and errors always; its chatter at -vvv.
        is_own(metadata.target())
            || metadata.level() <= log::Level::Warn
            || max == LevelFilter::Trace
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = record.level().to_string().to_lowercase();
        let text = record.args().to_string();
        let line = format!(
            "agents: {level}: [{}] {}",
            record.target(),
            escape_line(&text)
        );
        if record.target() == "plugin" {
            let mut budget = self.plugin.lock().unwrap_or_else(|p| p.into_inner());
            if budget.lines >= PLUGIN_LINES || budget.bytes + line.len() > PLUGIN_BYTES {
                budget.dropped_lines += 1;
                budget.dropped_bytes += line.len();
                return;
            }
            budget.lines += 1;
            budget.bytes += line.len();
        }
        eprintln!("{line}");
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger {
    plugin: Mutex::new(Budget {
        lines: 0,
        bytes: 0,
        dropped_lines: 0,
        dropped_bytes: 0,
    }),
};

/// Install the logger: warnings always, more with each `-v`.
pub fn install(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::Warn,
        1 => LevelFilter::Info,
        2 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    };
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}

/// `-v` given after a type's flags (`resource add … -v`): log `steps`
/// levels more than warn, never less than already set.
pub fn raise(steps: u8) {
    if steps == 0 {
        return;
    }
    let level = [LevelFilter::Info, LevelFilter::Debug, LevelFilter::Trace]
        [usize::from(steps.clamp(1, 3)) - 1];
    log::set_max_level(log::max_level().max(level));
}

/// Say what was dropped of handlers' output, if anything.
pub fn finish() {
    let budget = LOGGER.plugin.lock().unwrap_or_else(|p| p.into_inner());
    if budget.dropped_lines > 0 {
        eprintln!(
            "agents: warn: [plugin] … {} more lines ({} bytes) from handlers dropped (at most \
             {PLUGIN_LINES} lines or {} KiB per command)",
            budget.dropped_lines,
            budget.dropped_bytes,
            PLUGIN_BYTES / 1024
        );
    }
}
