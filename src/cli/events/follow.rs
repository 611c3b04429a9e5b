//! `agents events --follow`: each new event, as it lands, from any
//! process on the same registry (`registry::EventFollower`). One line per
//! event (a line of JSON with `-o json`, a YAML document with `-o
//! yaml`), flushed at once so a pipe's reader sees it. Ends on Ctrl-C, on
//! a closed stdout (`| head`, noticed while waiting too), or after
//! `--limit` events.

use super::{by, changes, subject};
use crate::cli::output::Format;
use crate::cli::{Context, Outcome};
use resource_host::registry::{EVENTS_MAX_POLL, Event, EventQuery};
use resource_host::text::escape_line;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long one wait lasts before Ctrl-C and stdout are looked at again
/// (a notification or a poll ends it sooner).
const TURN: Duration = Duration::from_millis(200);

pub fn run(ctx: &Context, query: EventQuery) -> Outcome {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
    // `--limit` ends the follow after that many; each batch is bounded by
    // the library's default.
    let mut left = query.limit.map(u64::from);
    let registry = ctx.open()?;
    let mut follower = registry.follow_events(
        EventQuery {
            limit: None,
            ..query
        },
        EVENTS_MAX_POLL,
    )?;
    log::debug!(
        "following the log after event {} ({})",
        follower.last_seq(),
        if follower.listening() {
            "listening"
        } else {
            "polling"
        }
    );
    let stdout = std::io::stdout();
    while !stop.load(Ordering::Relaxed) && left != Some(0) && !closed(&stdout) {
        let batch = follower.next_batch(&registry, TURN)?;
        let mut out = stdout.lock();
        for event in &batch {
            if left == Some(0) {
                break;
            }
            let written = out
                .write_all(line(ctx.format, event).as_bytes())
                .and_then(|()| out.flush());
            match written {
                // The reader went away (`| head`): its choice, not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                other => other?,
            }
            left = left.map(|n| n - 1);
        }
    }
    Ok(())
}

/// One event as printed: a table-like line of escaped text for people, a
/// line of JSON or a YAML document for programs.
fn line(format: Format, e: &Event) -> String {
    match format {
        Format::Json => format!("{}\n", serde_json::to_string(e).unwrap_or_default()),
        Format::Yaml => format!("---\n{}", serde_yaml::to_string(e).unwrap_or_default()),
        Format::Table => format!(
            "{}  {}  {}  {}  {}  {}\n",
            e.seq,
            e.at,
            e.op,
            escape_line(&subject(e)),
            escape_line(&by(e)),
            escape_line(&changes(e))
        ),
    }
}

/// Whether stdout is a pipe whose reader has gone (poll says error or
/// hang-up), so a follower waiting for events does not outlive `| head`.
fn closed(stdout: &std::io::Stdout) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let mut fds = [PollFd::new(stdout, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok()
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}
