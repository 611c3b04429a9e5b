//! `agents resource trust` and `untrust`: a person's decision that a
//! devcontainer's configuration may be activated. The summary of what
//! activation would do is always printed first; then the person is asked
//! `[y/N]` on a terminal, `--yes` answers for a script, and anything else
//! (no terminal, no `--yes`) records nothing.

use crate::cli::output::{self, emit};
use crate::cli::{Context, Failure, Outcome};
use resource_host::devcontainer::{ABSENT, Section, Summary};
use resource_host::model::ResourceKey;
use resource_host::registry::{Consent, Registry, TrustState, TrustSummary};
use resource_host::text::escape_line;
use std::io::{BufRead, IsTerminal, Write};

/// A decision not taken: exit 1, nothing recorded.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct NotRecorded(String);

pub(in crate::cli) fn trust(ctx: &Context, key: &ResourceKey, yes: bool) -> Outcome {
    let mut registry = ctx.open()?;
    let summary = registry.trust_summary(key)?;
    let human = summary_text(&summary);
    let table = ctx.format == output::Format::Table;
    if table {
        print!("{human}");
        let _ = std::io::stdout().flush();
    }
    if !yes {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Err(Failure::from(NotRecorded(
                "nothing was trusted: no terminal to ask on; read what activation would do \
                 (above, or with -o json) and run again with --yes to trust it"
                    .into(),
            )));
        }
        if !table {
            eprint!("{human}");
        }
        eprint!(
            "trust {} as shown? [y/N] ",
            count(summary.devcontainers.len())
        );
        let mut answer = String::new();
        stdin.lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
            return Err(Failure::from(NotRecorded(
                "nothing was trusted: you did not answer yes".into(),
            )));
        }
    }
    record(ctx, &mut registry, summary)
}

/// Record the consent to `summary` and print what was recorded.
pub(in crate::cli) fn record(
    ctx: &Context,
    registry: &mut Registry,
    summary: TrustSummary,
) -> Outcome {
    let shown = serde_json::to_value(&summary).unwrap_or_default();
    let records = registry.trust(Consent::to(summary))?;
    let value = serde_json::json!({ "summary": shown, "trusted": records });
    emit(ctx.format, &value, || {
        records
            .iter()
            .map(|r| {
                format!(
                    "trusted {} for {} (digest {})\n",
                    r.name,
                    escape_line(&r.by),
                    &r.digest[..r.digest.len().min(16)]
                )
            })
            .collect()
    })
}

pub(in crate::cli) fn untrust(ctx: &Context, key: &ResourceKey) -> Outcome {
    let taken = ctx.open()?.untrust(key)?;
    emit(
        ctx.format,
        &serde_json::json!({ "untrusted": taken }),
        || {
            if taken.is_empty() {
                format!("{key}: nothing below it was trusted by you\n")
            } else {
                taken
                    .iter()
                    .map(|name| format!("no longer trusted: {name}\n"))
                    .collect()
            }
        },
    )
}

fn count(n: usize) -> String {
    if n == 1 {
        "this devcontainer".into()
    } else {
        format!("these {n} devcontainers")
    }
}

/// What activation would do, for people: every value escaped (the
/// configuration is the repository's text), what reaches the host marked
/// `!` and gathered first.
pub(in crate::cli) fn summary_text(summary: &TrustSummary) -> String {
    let mut out = String::new();
    for dc in &summary.devcontainers {
        let state = match &dc.trust {
            TrustState::Trusted { by, at } => format!("trusted by {by} at {at}"),
            TrustState::Untrusted => "not trusted".into(),
            TrustState::Changed { changed, .. } => {
                format!("changed since trusted: {}", changed.join(", "))
            }
            TrustState::NoPerson => "no person to trust it".into(),
        };
        out.push_str(&output::bold(&format!(
            "devcontainer {} ({})",
            dc.name,
            escape_line(&state)
        )));
        out.push('\n');
        out.push_str(&one(&dc.summary));
    }
    if !summary.brought_by_agents.is_empty() {
        out.push_str(&output::bold(
            "brought by an agent, NOT part of this decision (name one to trust it):",
        ));
        out.push('\n');
        for a in &summary.brought_by_agents {
            out.push_str(&format!(
                "  ! {} — {}\n",
                escape_line(&a.name),
                escape_line(&a.why)
            ));
        }
    }
    out
}

fn one(s: &Summary) -> String {
    let mut out = String::new();
    let mut line = |indent: &str, text: &str| {
        out.push_str(indent);
        out.push_str(&escape_line(text));
        out.push('\n');
    };
    line("  configuration: ", &s.config);
    line("  repository:    ", &s.repository);
    line("  run by:        ", &s.tool);
    let host: Vec<_> = s.reaching_host().collect();
    if host.is_empty() {
        line(
            "  ",
            "reaches the host: nothing beyond an ordinary container",
        );
    } else {
        line("  ", &format!("REACHES THE HOST ({}):", host.len()));
        for item in &host {
            line("    ! ", &item.text);
        }
    }
    let mut sections: Vec<Section> = s.items.iter().map(|i| i.section).collect();
    sections.sort();
    sections.dedup();
    for section in sections {
        line("  ", &format!("{}:", section.heading()));
        for item in s.items.iter().filter(|i| i.section == section) {
            let mark = if item.host { "    ! " } else { "      " };
            line(mark, &item.text);
        }
    }
    line("  ", "the digest covers:");
    for f in &s.files {
        let what = if f.sha256 == ABSENT {
            "absent now (one appearing asks you again)".to_owned()
        } else {
            format!("sha256 {}", &f.sha256[..f.sha256.len().min(16)])
        };
        line("      ", &format!("{} ({}) {what}", f.path, f.role));
    }
    line("  ", "not covered (can change without asking again):");
    for note in &s.not_covered {
        line("      ", note);
    }
    line("  digest: ", &s.digest);
    out
}
