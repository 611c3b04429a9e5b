//! `agents sandbox …`: make a private copy of a resource, change it,
//! checkpoint, roll back, diff, apply, destroy.

use super::output::{emit, fields, list, or_dash, table};
use super::{Context, Outcome};
use clap::Subcommand;
use resource_host::model::{ResourceKey, SandboxId, SandboxStrategy};
use resource_host::registry::SandboxView;
use resource_host::sandbox::{Applied, SandboxDiff};
use resource_host::text::escape_line;

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Make a sandbox of a resource with its sandbox strategy.
    #[command(
        after_help = "The strategy is --strategy if given, else the resource's own \
        sandbox_strategy, else its type's. The sandbox's working copy (`workdir`) is where an \
        agent changes things; the original is never written until `apply`, except with \
        strategy none, which isolates nothing. A git_worktree sandbox starts from the \
        checkout's HEAD: uncommitted changes of the original are not carried over (commit or \
        stash them first to have them).\n\n\
        Examples:\n  agents sandbox create local/api-repo\n  \
        agents sandbox create local/config-dir --strategy overlay"
    )]
    Create {
        #[arg(value_name = "RESOURCE", value_parser = super::keys::key_arg)]
        key: ResourceKey,
        /// Use this strategy instead of the resource's.
        #[arg(long, value_parser = parse_strategy)]
        strategy: Option<SandboxStrategy>,
    },
    /// List sandboxes (of one resource with --resource).
    List {
        #[arg(long, value_name = "RESOURCE", value_parser = super::keys::key_arg)]
        resource: Option<ResourceKey>,
    },
    /// Show a sandbox and its checkpoints.
    Show { id: SandboxId },
    /// Record the sandbox's whole state as the next checkpoint.
    #[command(after_help = "Examples:\n  agents sandbox checkpoint 01J… --label before-refactor")]
    Checkpoint {
        id: SandboxId,
        /// A name to roll back to (not a number).
        #[arg(long)]
        label: Option<String>,
    },
    /// Bring the working copy back to a checkpoint exactly (default: the latest).
    #[command(
        after_help = "CHECKPOINT is a number (1, #2), a label, or the reference `checkpoint` \
        answered (a git_worktree commit id, whole or abbreviated to 7 or more). Later \
        checkpoints are kept, so you can roll forward to them again."
    )]
    Rollback {
        id: SandboxId,
        checkpoint: Option<String>,
    },
    /// What changed in the sandbox against the original.
    Diff { id: SandboxId },
    /// Promote the sandbox's changes to the original, all or nothing.
    #[command(
        after_help = "git_worktree: the sandbox's state becomes a new branch of the \
        original repository (agents/sandbox-<id>) for you to merge; your branches and work \
        tree are not touched. copy_on_write and overlay: the changes are copied back, refused \
        (nothing written) when the original changed since the sandbox was created."
    )]
    Apply { id: SandboxId },
    /// Remove the sandbox's files and rows.
    Destroy { id: SandboxId },
    /// An interactive SQL session on a transaction_rollback sandbox.
    #[command(
        after_help = "The transaction lives as long as the session: SQL lines run \
        inside it; `checkpoint [LABEL]`, `rollback [CHECKPOINT]`, `checkpoints`, `changes`, \
        `apply` (commit and end) and `discard`/`quit` (roll back and end) are commands. \
        Ending the session any other way rolls back.\n\n\
        Bounded: one input may run --input-timeout seconds (a query past it is interrupted; a \
        write past it makes SQLite roll back the whole transaction, ending the session), the \
        database may grow by --max-growth MiB, one input may hold 4 MiB of SQL. While the \
        session lives, `agents sandbox destroy` refuses."
    )]
    Shell {
        id: SandboxId,
        /// Seconds one input may run before it is interrupted.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds)]
        input_timeout: f64,
        /// MiB the database may grow by during the session.
        #[arg(long, value_name = "MIB", default_value_t = 1024,
              value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
        max_growth: u64,
    },
}

/// `--input-timeout`: 0.01 to 86400 seconds.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if (0.01..=86_400.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "{text:?} is not a number of seconds from 0.01 to 86400"
        )),
    }
}

fn parse_strategy(text: &str) -> Result<SandboxStrategy, String> {
    SandboxStrategy::parse(text).ok_or_else(|| {
        format!(
            "not a sandbox strategy; use one of {}",
            SandboxStrategy::ALL.map(|s| s.as_str()).join(", ")
        )
    })
}

pub fn run(ctx: &Context, cmd: SandboxCommand) -> Outcome {
    match cmd {
        SandboxCommand::Create { key, strategy } => {
            let sandbox = ctx.open()?.create_sandbox(&key, strategy)?;
            if !sandbox.isolated {
                eprintln!(
                    "agents: warning: strategy none isolates nothing: the working copy is the \
                     original itself, changes cannot be rolled back — you proceed at your own risk"
                );
            }
            emit(ctx.format, &sandbox, || {
                format!(
                    "created sandbox {} ({} of {})\nworkdir: {}\n{}",
                    sandbox.sandbox_id,
                    sandbox.strategy.as_str(),
                    sandbox.resource,
                    escape_line(sandbox.workdir.as_deref().unwrap_or("-")),
                    enumerated_text(&sandbox)
                )
            })
        }
        SandboxCommand::List { resource } => {
            let sandboxes = ctx.open()?.list_sandboxes(resource.as_ref())?;
            emit(ctx.format, &sandboxes, || sandbox_table(&sandboxes))
        }
        SandboxCommand::Show { id } => {
            let sandbox = ctx.open()?.show_sandbox(id)?;
            emit(ctx.format, &sandbox, || show(&sandbox))
        }
        SandboxCommand::Checkpoint { id, label } => {
            let checkpoint = ctx.open()?.checkpoint_sandbox(id, label.as_deref())?;
            emit(ctx.format, &checkpoint, || {
                format!("checkpoint {} of sandbox {id}\n", checkpoint.label_text())
            })
        }
        SandboxCommand::Rollback { id, checkpoint } => {
            let to = ctx.open()?.rollback_sandbox(id, checkpoint.as_deref())?;
            emit(ctx.format, &to, || {
                format!(
                    "sandbox {id} rolled back to checkpoint {}\n",
                    to.label_text()
                )
            })
        }
        SandboxCommand::Diff { id } => {
            let diff = ctx.open()?.diff_sandbox(id)?;
            emit(ctx.format, &diff, || diff_text(&diff))
        }
        SandboxCommand::Apply { id } => {
            let applied = ctx.open()?.apply_sandbox(id)?;
            emit(ctx.format, &applied, || match &applied {
                Applied::Branch(branch) => format!(
                    "applied: the sandbox's state is on branch {} of the original repository; \
                     merge it when you are ready (your branches were not touched)\n",
                    escape_line(branch)
                ),
                Applied::CopiedBack(diff) if is_empty(diff) => {
                    "applied: nothing had changed\n".to_owned()
                }
                Applied::CopiedBack(diff) => {
                    format!("applied to the original:\n{}", diff_text(diff))
                }
            })
        }
        SandboxCommand::Destroy { id } => {
            let gone = ctx.open()?.destroy_sandbox(id)?;
            emit(ctx.format, &gone, || {
                format!(
                    "destroyed sandbox {id} ({} of {})\n",
                    gone.strategy.as_str(),
                    gone.resource
                )
            })
        }
        SandboxCommand::Shell {
            id,
            input_timeout,
            max_growth,
        } => {
            let limits = resource_host::sandbox::SessionLimits {
                input_timeout: std::time::Duration::from_secs_f64(input_timeout),
                max_growth_bytes: max_growth << 20,
                ..resource_host::sandbox::SessionLimits::default()
            };
            shell(ctx, id, limits)
        }
    }
}

/// The session of a `transaction_rollback` sandbox: lines from stdin
/// (a prompt only on a terminal), results on stdout.
fn shell(ctx: &Context, id: SandboxId, limits: resource_host::sandbox::SessionLimits) -> Outcome {
    use std::io::IsTerminal;
    let registry = ctx.open()?;
    let tx = registry.open_transaction(id, limits)?;
    drop(registry);
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    if interactive {
        eprintln!(
            "sandbox {id}: one transaction on {}; type SQL, or help. End of input rolls back.",
            escape_line(&tx.path().display().to_string())
        );
    }
    let end = resource_host::sandbox::shell(tx, stdin.lock(), std::io::stdout(), interactive)?;
    eprintln!(
        "{}",
        match end {
            resource_host::sandbox::ShellEnd::Applied => "applied: the transaction was committed",
            resource_host::sandbox::ShellEnd::Discarded =>
                "discarded: the transaction was rolled back; the database is as it was",
        }
    );
    Ok(())
}

fn is_empty(diff: &SandboxDiff) -> bool {
    diff.added.is_empty()
        && diff.modified.is_empty()
        && diff.deleted.is_empty()
        && diff.commits.is_empty()
}

fn sandbox_table(sandboxes: &[SandboxView]) -> String {
    if sandboxes.is_empty() {
        return "no sandboxes\n".to_owned();
    }
    let rows: Vec<Vec<String>> = sandboxes
        .iter()
        .map(|s| {
            vec![
                s.sandbox_id.to_string(),
                s.resource.clone(),
                s.strategy.as_str().to_owned(),
                s.state.to_string(),
                s.checkpoints.len().to_string(),
                or_dash(s.workdir.as_ref()),
            ]
        })
        .collect();
    table(
        &[
            "ID",
            "RESOURCE",
            "STRATEGY",
            "STATE",
            "CHECKPOINTS",
            "WORKDIR",
        ],
        &rows,
    )
}

fn show(s: &SandboxView) -> String {
    let mut pairs = vec![
        ("sandbox_id", s.sandbox_id.to_string()),
        ("resource", s.resource.clone()),
        (
            "strategy",
            match s.overlay_mode {
                Some(mode) => format!("{} ({mode})", s.strategy.as_str()),
                None => s.strategy.as_str().to_owned(),
            },
        ),
        ("state", s.state.to_string()),
        ("isolated", s.isolated.to_string()),
        ("original", s.original.clone()),
        ("workdir", or_dash(s.workdir.as_ref())),
        ("area", s.area.clone()),
        ("base", or_dash(s.base.as_ref())),
        ("created_at", s.created_at.clone()),
        ("updated_at", s.updated_at.clone()),
    ];
    if let Some(err) = &s.last_error {
        pairs.push(("last_error", err.clone()));
    }
    pairs.push((
        "checkpoints",
        list(s.checkpoints.iter().map(|c| c.label_text())),
    ));
    fields(&pairs) + &enumerated_text(s)
}

/// Local mode: what each rule found in the working copy, a line per rule
/// (`rule 1 (fs-file *.md): 3 entries: a.md, b.md, c.md`).
fn enumerated_text(s: &SandboxView) -> String {
    const SHOWN: usize = 20;
    let Some(rules) = &s.enumerated else {
        return String::new();
    };
    let mut text = String::from("enumerated by the type's rules (local mode, no handler):\n");
    for rule in rules {
        let mut names: Vec<String> = rule
            .entries
            .iter()
            .take(SHOWN)
            .map(|e| escape_line(e).into_owned())
            .collect();
        let more = rule.entries.len().saturating_sub(SHOWN);
        if more > 0 || rule.truncated {
            names.push(format!(
                "… {more}{} more",
                if rule.truncated { "+" } else { "" }
            ));
        }
        text.push_str(&format!(
            "  rule {} ({} {}): {} {}{}\n",
            rule.rule,
            rule.type_name,
            escape_line(&rule.pattern),
            rule.entries.len(),
            if rule.entries.len() == 1 {
                "entry"
            } else {
                "entries"
            },
            if names.is_empty() {
                String::new()
            } else {
                format!(": {}", names.join(", "))
            }
        ));
    }
    text
}

fn diff_text(diff: &SandboxDiff) -> String {
    if is_empty(diff) {
        return "no changes\n".to_owned();
    }
    let mut text = String::new();
    for commit in &diff.commits {
        text.push_str(&format!("commit {}\n", escape_line(commit)));
    }
    for (mark, paths) in [
        ("A", &diff.added),
        ("M", &diff.modified),
        ("D", &diff.deleted),
    ] {
        for path in paths {
            text.push_str(&format!("{mark} {}\n", escape_line(path)));
        }
    }
    text
}
