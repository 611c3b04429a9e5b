//! Keeping up: what `agents resource refresh` and `watch` print.

use super::output::{self, LISTED};
use super::{Context, Outcome};
use resource_host::model::ResourceKey;
use resource_host::registry::{RefreshProgress, RefreshReport, WatchEvent, WatchOptions};
use resource_host::text::escape_line;

/// `agents resource watch`: until Ctrl-C, print what each refresh did
/// (a line of JSON per event with `-o json`/`yaml`), flushed as it
/// happens so that a reader of a pipe sees it at once.
pub fn watch(ctx: &Context, keys: &[ResourceKey]) -> Outcome {
    use std::io::Write;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
    let mut registry = ctx.acting_as(resource_host::model::Face::Watch).open()?;
    let mut progress = output::Progress::new("refreshing");
    let data = !matches!(ctx.format, output::Format::Table);
    let mut on_event = |event: WatchEvent| {
        if let WatchEvent::Progress { checked, changed } = event {
            // The watcher hears Ctrl-C itself, between refreshes.
            let _ = progress.show_refresh(RefreshProgress { checked, changed });
            return;
        }
        progress.done();
        let text = if data {
            format!("{}\n", serde_json::to_string(&event).unwrap_or_default())
        } else {
            match &event {
                WatchEvent::Watching { locations } => {
                    let mut text = format!(
                        "watching {} location{} (Ctrl-C to stop)\n",
                        locations.len(),
                        if locations.len() == 1 { "" } else { "s" }
                    );
                    for l in locations {
                        text.push_str(&format!("  {}\n", escape_line(l)));
                    }
                    text
                }
                WatchEvent::Refreshed {
                    paths,
                    more,
                    report,
                    ..
                } => format!(
                    "after changes under {}{}: {}",
                    paths
                        .first()
                        .map(|p| escape_line(p).into_owned())
                        .unwrap_or_default(),
                    match paths.len() + more {
                        0 | 1 => String::new(),
                        n => format!(" and {} more", n - 1),
                    },
                    refresh_summary(report)
                ),
                WatchEvent::Unwatched { location, reason } => {
                    log::warn!("not watching {}: {reason}", escape_line(location));
                    return;
                }
                WatchEvent::Progress { .. } => unreachable!("handled above"),
            }
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    };
    registry.watch(keys, WatchOptions::default(), &stop, &mut on_event)?;
    progress.done();
    Ok(())
}

/// What a refresh did, for people: one line of counts, then each changed
/// or stale resource (bounded).
pub fn refresh_summary(report: &RefreshReport) -> String {
    let mut text = format!(
        "checked {}: {} unchanged, {} changed, {} stale\n",
        report.checked,
        report.unchanged,
        report.changed.len(),
        report.stale.len()
    );
    let mut lines = Vec::new();
    for c in &report.changed {
        lines.push(format!(
            "changed {}: {} new, {} gone, {} updated{}",
            c.resource,
            c.added.len(),
            c.removed.len(),
            c.updated,
            if c.properties_changed {
                ", properties refreshed"
            } else {
                ""
            }
        ));
        lines.extend(c.added.iter().map(|r| format!("  + {r}")));
        lines.extend(c.removed.iter().map(|r| format!("  - {r}")));
    }
    for s in &report.stale {
        lines.push(format!("stale {}: {}", s.resource, escape_line(&s.reason)));
    }
    let total = lines.len();
    for line in lines.into_iter().take(LISTED) {
        text.push_str(&line);
        text.push('\n');
    }
    if total > LISTED {
        text.push_str(&format!(
            "… {} more lines (-o json lists all)\n",
            total - LISTED
        ));
    }
    text
}
