//! `-v` logging to stderr: the library logs through the `log` facade and
//! never prints; this is where those lines become visible.

use log::{LevelFilter, Log, Metadata, Record};

#[derive(Debug)]
struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let level = record.level().to_string().to_lowercase();
            eprintln!("agents: {level}: [{}] {}", record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

static LOGGER: StderrLogger = StderrLogger;

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
