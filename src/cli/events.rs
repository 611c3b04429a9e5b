//! `agents events …` and `agents resource history NAME`: the event log
//! read back (`registry::events`), and pruned. Every text an event holds
//! (names, actors — an MCP client chooses its own — and changes) is
//! escaped before the terminal; `-o json|yaml` is the library's `Event`.

mod follow;

use super::output::{emit, table};
use super::{Context, Outcome};
use clap::{Args, Subcommand};
use resource_host::model::ResourceKey;
use resource_host::registry::{
    EVENT_KINDS, Event, EventOp, EventQuery, EventsError, HistoryEntry, Since,
};
use resource_host::text::{escape_line, excerpt};

/// The longest `changes` shown in a table cell (all of it in `-o json`).
const CHANGES_SHOWN: usize = 160;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EventsArgs {
    #[command(subcommand)]
    command: Option<EventsCommand>,
    #[command(flatten)]
    query: QueryArgs,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Only events after this number, or at or after this time (2026-12-01, 2026-12-01T08:00:00Z).
    #[arg(long, value_name = "SEQ|TIME", value_parser = since_arg)]
    since: Option<Since>,
    /// Only events about this resource (by name, ULID or path; a removed one by its old name).
    #[arg(long, value_name = "NAME", value_parser = super::keys::key_arg)]
    resource: Option<ResourceKey>,
    /// With --resource: its descendants' events too.
    #[arg(long, requires = "resource")]
    below: bool,
    /// Only subjects of this kind: resource, link, type, plugin, sandbox, trust, settings, registry.
    #[arg(long = "type", value_name = "KIND", value_parser = kind_arg)]
    kind: Option<String>,
    /// Only this actor: a face (cli, mcp, python, library, watch), a name, or FACE:NAME.
    #[arg(long, value_name = "ACTOR")]
    actor: Option<String>,
    /// Only this operation (resource.registered, link.linked, …).
    #[arg(long, value_name = "OP", value_parser = op_arg)]
    op: Option<String>,
    /// At most N events (default 1000, at most 10000): the oldest after --since.
    /// With --follow: stop after N.
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// Keep printing each new event as it lands, from any process on this
    /// registry (Ctrl-C ends it). Without --since: from now on.
    #[arg(long, short = 'f')]
    follow: bool,
}

#[derive(Debug, Subcommand)]
pub enum EventsCommand {
    /// Delete old events (numbers are never reused).
    #[command(after_help = "Examples:\n  agents events prune --before 1200\n  \
        agents events prune --before 2026-09-01\n\n\
        To keep the log bounded on its own: agents registry settings events.keep 90d")]
    Prune {
        /// Delete the events before this number, or older than this time.
        #[arg(long, value_name = "SEQ|TIME", value_parser = since_arg)]
        before: Since,
    },
}

fn since_arg(text: &str) -> Result<Since, String> {
    Since::parse(text).map_err(|e| e.to_string())
}

/// `--op`: one of the operations (a usage error otherwise).
fn op_arg(text: &str) -> Result<String, String> {
    match EventOp::parse(text) {
        Some(op) => Ok(op.as_str().to_owned()),
        None => Err(EventsError::BadOp {
            value: text.to_owned(),
        }
        .to_string()),
    }
}

/// `--type`: one of the kinds of subject (a usage error otherwise).
fn kind_arg(text: &str) -> Result<String, String> {
    if EVENT_KINDS.contains(&text) {
        Ok(text.to_owned())
    } else {
        Err(EventsError::BadKind {
            value: text.to_owned(),
        }
        .to_string())
    }
}

pub fn run(ctx: &Context, args: EventsArgs) -> Outcome {
    match args.command {
        Some(EventsCommand::Prune { before }) => {
            let removed = ctx.open()?.prune_events(&before)?;
            let report = serde_json::json!({ "removed": removed });
            emit(ctx.format, &report, || {
                format!("removed {removed} events\n")
            })
        }
        None => list(ctx, args.query),
    }
}

fn list(ctx: &Context, q: QueryArgs) -> Outcome {
    let follow = q.follow;
    let query = EventQuery {
        since: q.since,
        resource: q.resource,
        below: q.below,
        kind: q.kind,
        actor: q.actor,
        op: q.op,
        limit: q.limit,
    };
    if follow {
        return follow::run(ctx, query);
    }
    let events = ctx.open()?.events(&query)?;
    emit(ctx.format, &events, || {
        let rows: Vec<Vec<String>> = events.iter().map(row).collect();
        table(&["SEQ", "AT", "OP", "SUBJECT", "BY", "CHANGES"], &rows)
    })
}

/// One event as table cells (the table escapes each).
fn row(e: &Event) -> Vec<String> {
    vec![
        e.seq.to_string(),
        e.at.clone(),
        e.op.to_string(),
        subject(e),
        by(e),
        changes(e),
    ]
}

pub(super) fn subject(e: &Event) -> String {
    let name = e
        .name
        .clone()
        .or_else(|| e.id.clone())
        .unwrap_or_else(|| "-".into());
    match &e.current_name {
        Some(now) => format!("{name} (now {now})"),
        None => name,
    }
}

pub(super) fn by(e: &Event) -> String {
    if e.actor.is_empty() {
        e.via.to_string()
    } else {
        format!("{}:{}", e.via, e.actor)
    }
}

pub(super) fn changes(e: &Event) -> String {
    e.changes
        .as_ref()
        .map(|c| excerpt(&c.to_string(), CHANGES_SHOWN).into_owned())
        .unwrap_or_else(|| "-".into())
}

/// `agents resource history NAME`.
pub fn history(ctx: &Context, key: &ResourceKey, limit: Option<u32>) -> Outcome {
    let entries = ctx.open()?.resource_history(key, limit)?;
    emit(ctx.format, &entries, || human_history(&entries))
}

fn human_history(entries: &[HistoryEntry]) -> String {
    let mut out = String::new();
    for entry in entries {
        let e = &entry.event;
        out.push_str(&format!(
            "#{}  {}  {}  {}  by {}\n",
            e.seq,
            e.at,
            e.op,
            escape_line(&subject(e)),
            escape_line(&by(e))
        ));
        if e.changes.is_some() {
            out.push_str(&format!("    {}\n", escape_line(&changes(e))));
        }
        for child in &entry.children {
            out.push_str(&format!(
                "    #{}  {}  {}  {}\n",
                child.seq,
                child.op,
                escape_line(&subject(child)),
                escape_line(&changes(child))
            ));
        }
    }
    if out.is_empty() {
        out.push_str("no events\n");
    }
    out
}
