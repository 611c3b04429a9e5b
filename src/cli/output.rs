//! Printing: tables and trees for people, `-o json` / `-o yaml` for
//! programs (the library's serializable views, field names unchanged).
//! Colour only on a terminal and never when `NO_COLOR` is set. Every cell
//! and value shown to people is escaped (`text::escape_line`): a handler
//! chose some of them. JSON and YAML stay exact data.

use resource_host::text::escape_line;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;

/// Lines a discovery or refresh report lists for people (all in `-o json`).
pub const LISTED: usize = 40;

/// A view and, when its resource has one, its container's state beside
/// it: what `resource show` and `env resolve --activate` print and the
/// MCP tools `show_resource` and `resolve_environment` answer.
#[derive(Serialize, schemars::JsonSchema)]
pub struct WithContainer<V> {
    #[serde(flatten)]
    pub view: V,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<resource_host::registry::ContainerView>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Yaml,
}

/// Print `value` for programs, or `human` for people. JSON is indented on
/// a terminal and compact otherwise (the same document; a program reading
/// 100,000 resources should not pay for whitespace). Written straight to
/// a buffered stdout, never built as one string first.
pub fn emit<T: Serialize + ?Sized>(
    format: Format,
    value: &T,
    human: impl FnOnce() -> String,
) -> Result<(), super::Failure> {
    let stdout = std::io::stdout();
    let pretty = stdout.is_terminal();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = match format {
        Format::Json if pretty => serde_json::to_writer_pretty(&mut out, value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n")),
        Format::Json => serde_json::to_writer(&mut out, value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n")),
        Format::Yaml => serde_yaml::to_writer(&mut out, value).map_err(std::io::Error::other),
        Format::Table => out.write_all(human().as_bytes()),
    };
    match written.and_then(|()| out.flush()) {
        // A closed pipe (`agents … | head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn colour(stream_is_tty: bool) -> bool {
    stream_is_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `agents: error:`, red on a terminal.
pub fn error_prefix() -> String {
    if colour(std::io::stderr().is_terminal()) {
        "agents: \x1b[1;31merror:\x1b[0m".to_owned()
    } else {
        "agents: error:".to_owned()
    }
}

/// Bold on a terminal (table headers, tree roots).
pub fn bold(text: &str) -> String {
    if colour(std::io::stdout().is_terminal()) {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// A plain text table: a header row and aligned columns.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| escape_line(c).into_owned()).collect())
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                let pad = w - cell.chars().count();
                text.push_str(cell);
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        text.trim_end().to_owned() + "\n"
    };
    let header = line(headers.iter().map(|h| h.to_string()).collect());
    let mut text = bold(header.trim_end()) + "\n";
    for row in rows {
        text.push_str(&line(row));
    }
    text
}

/// `key: value` lines, keys aligned.
pub fn fields(pairs: &[(&str, String)]) -> String {
    let width = pairs.iter().map(|(k, _)| k.len() + 1).max().unwrap_or(0);
    pairs
        .iter()
        .map(|(k, v)| format!("{:width$}  {}\n", format!("{k}:"), escape_line(v)))
        .collect()
}

/// Text for an optional value in a table.
pub fn or_dash(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// Names joined with ", ", or "-" for none.
pub fn list<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    let joined = items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if joined.is_empty() {
        "-".to_owned()
    } else {
        joined
    }
}

/// A progress line on stderr for long work, only when stderr is a
/// terminal: rewritten in place at most ten times a second, erased when
/// done.
#[derive(Debug)]
pub struct Progress {
    what: &'static str,
    on: bool,
    shown: bool,
    last: std::time::Instant,
}

impl Progress {
    pub fn new(what: &'static str) -> Self {
        Self {
            what,
            on: std::io::stderr().is_terminal(),
            shown: false,
            last: std::time::Instant::now(),
        }
    }

    /// Show how far a discovery came (and go on: the CLI is stopped by
    /// its signal, which ends the process before anything commits).
    pub fn show(&mut self, p: resource_host::registry::DiscoveryProgress) -> ControlFlow<()> {
        self.line(format_args!("{} found, {} visited", p.found, p.visited));
        ControlFlow::Continue(())
    }

    /// Show how far a refresh came.
    pub fn show_refresh(&mut self, p: resource_host::registry::RefreshProgress) -> ControlFlow<()> {
        self.line(format_args!("{} checked, {} changed", p.checked, p.changed));
        ControlFlow::Continue(())
    }

    fn line(&mut self, counts: std::fmt::Arguments<'_>) {
        if !self.on || self.last.elapsed() < std::time::Duration::from_millis(100) {
            return;
        }
        self.last = std::time::Instant::now();
        self.shown = true;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}: {counts}", self.what);
        let _ = err.flush();
    }

    /// Erase the line, if one was shown.
    pub fn done(&mut self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
            self.shown = false;
        }
    }
}

/// A line on stderr that counts the seconds of one long blocking step
/// (compiling a component has no progress to report), only when stderr
/// is a terminal; erased when dropped.
#[derive(Debug)]
pub struct Ticker {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    /// Start counting after a short grace (a fast step shows nothing).
    pub fn start(what: String) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self {
                stop: None,
                thread: None,
            };
        }
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let mut shown = false;
            let tick = std::time::Duration::from_millis(250);
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(tick) {
                let mut err = std::io::stderr().lock();
                let _ = write!(
                    err,
                    "\r\x1b[2K{what}: {:.0} s",
                    started.elapsed().as_secs_f64().floor()
                );
                let _ = err.flush();
                shown = true;
            }
            if shown {
                let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
            }
        });
        Self {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
