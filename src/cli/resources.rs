//! Running `agents resource …` (its verbs and arguments are
//! `resources/command.rs`): add, list, show, tree, link-child,
//! unlink-child, discover, inspect, remove, a devcontainer's
//! start/stop/rebuild and trust/untrust (`resources/trust.rs`) — and the
//! `type` group (`refresh` and `watch` print through `keeping`).

use super::add;
use super::keeping;
use super::output::LISTED;
use super::output::{self, WithContainer, emit};
use super::types;
use super::{Context, Outcome};
use resource_host::model::ResourceKey;
use resource_host::registry::{ContainerView, Depth, RemoveOptions};
use resource_host::text::{escape_block, escape_line};

pub fn run(ctx: &Context, cmd: ResourceCommand) -> Outcome {
    match cmd {
        ResourceCommand::Type(cmd) => types::run(ctx, cmd),
        ResourceCommand::Add { type_name, rest } => add::run(ctx, type_name, rest),
        ResourceCommand::List(args) => list::run(ctx, args),
        ResourceCommand::History { key, limit } => super::events::history(ctx, &key, limit),
        ResourceCommand::Show { key, at_type } => {
            show_one(ctx, &super::keys::of_type(key, at_type)?)
        }
        ResourceCommand::Start { key } => {
            let view = ctx.open()?.start_container(&key)?;
            lifecycle(ctx, "started", &view)
        }
        ResourceCommand::Trust { key, yes } => trust::trust(ctx, &key, yes),
        ResourceCommand::Untrust { key } => trust::untrust(ctx, &key),
        ResourceCommand::Stop { key } => stop(ctx, &key),
        ResourceCommand::Rebuild { key } => {
            let view = ctx.open()?.rebuild_container(&key)?;
            lifecycle(ctx, "rebuilt", &view)
        }
        ResourceCommand::Tree {
            depth,
            type_name,
            locations,
            full_names,
            key,
        } => {
            let style = tree::TreeStyle {
                full_names,
                locations,
                width: None,
            };
            tree::run(ctx, &key, depth, type_name, style)
        }
        ResourceCommand::Graph {
            depth,
            type_name,
            format,
            key,
        } => graph::run(ctx, &key, depth, type_name, format),
        ResourceCommand::Which { path } => which::run(ctx, &path),
        ResourceCommand::LinkChild { parent, child } => link(ctx, &parent, &child),
        ResourceCommand::UnlinkChild { parent, child } => unlink(ctx, &parent, &child),
        ResourceCommand::Discover {
            depth,
            recursive,
            at_type,
            key,
        } => discover(ctx, &super::keys::of_type(key, at_type)?, depth, recursive),
        ResourceCommand::Refresh { keys } => {
            let mut progress = output::Progress::new("refreshing");
            let report = ctx.open()?.refresh(
                &keys,
                resource_host::registry::RefreshOptions {
                    progress: Some(&mut |p| progress.show_refresh(p)),
                },
            )?;
            progress.done();
            emit(ctx.format, &report, || keeping::refresh_summary(&report))
        }
        ResourceCommand::Watch { keys } => keeping::watch(ctx, &keys),
        ResourceCommand::Inspect { file, at_type, key } => {
            inspect(ctx, &super::keys::of_type(key, at_type)?, file.as_deref())
        }
        ResourceCommand::Remove {
            dry_run,
            force,
            at_type,
            key,
        } => remove(ctx, &super::keys::of_type(key, at_type)?, dry_run, force),
    }
}

/// `resource show KEY`: the resource, and a devcontainer's lifecycle
/// (other resources have none; any failure to read one is shown).
fn show_one(ctx: &Context, key: &ResourceKey) -> Outcome {
    let registry = ctx.open()?;
    let resource = registry.show_resource(key)?;
    let container = registry.container_of(key)?;
    let shown = WithContainer {
        view: &resource,
        container: container.clone(),
    };
    emit(ctx.format, &shown, || {
        // People read names: parents and children as `name (type)`, the
        // equivalents by name; JSON keeps the ids.
        let named = neighbours(&registry, &resource);
        let equivalents: Vec<String> = resource
            .equivalents
            .iter()
            .map(|id| {
                named
                    .get(id)
                    .map_or_else(|| id.to_string(), |l| l.label.clone())
            })
            .collect();
        // A devcontainer's live state is its container's: the `state`
        // discovery recorded ("detected") is not repeated.
        let hidden: &[&str] = if container.is_some() { &["state"] } else { &[] };
        let mut text = show(&resource, &named, &equivalents, hidden);
        if let Some(c) = &container {
            text.push_str(&container_text(c, &resource.label()));
        }
        text
    })
}

/// `resource stop KEY`: what is not running is answered as it is.
fn stop(ctx: &Context, key: &ResourceKey) -> Outcome {
    let view = ctx.open()?.stop_container(key)?;
    match &view.container_id {
        None => emit(ctx.format, &view, || {
            format!(
                "{key} is not running (state {}): nothing to stop\n",
                view.state
            )
        }),
        Some(_) => lifecycle(ctx, "stopped", &view),
    }
}

/// `resource link-child PARENT CHILD`.
fn link(ctx: &Context, parent: &ResourceKey, child: &ResourceKey) -> Outcome {
    let link = ctx.open()?.link_child(parent, child)?;
    emit(ctx.format, &link, || format!("linked {parent} → {child}\n"))
}

/// `resource unlink-child PARENT CHILD`.
fn unlink(ctx: &Context, parent: &ResourceKey, child: &ResourceKey) -> Outcome {
    ctx.open()?.unlink_child(parent, child)?;
    let value = serde_json::json!({
        "unlinked": { "parent": parent.to_string(), "child": child.to_string() }
    });
    emit(ctx.format, &value, || {
        format!("unlinked {parent} → {child}\n")
    })
}

/// `resource discover [--depth N | --recursive] KEY`.
fn discover(ctx: &Context, key: &ResourceKey, depth: Option<u32>, recursive: bool) -> Outcome {
    let depth = match (recursive, depth) {
        (true, _) => Depth::All,
        (false, n) => Depth::Levels(n.unwrap_or(1)),
    };
    let mut progress = output::Progress::new("discovering");
    let report = ctx.open()?.discover(
        key,
        resource_host::registry::DiscoverOptions {
            depth,
            progress: Some(&mut |p| progress.show(p)),
        },
    )?;
    progress.done();
    emit(ctx.format, &report, || {
        let mut text = format!(
            "discovered {}: {} new, {} gone, {} updated, {} unchanged\n",
            report.resource.label(),
            report.added.len(),
            report.removed.len(),
            report.updated,
            report.kept - report.updated
        );
        let lines = report
            .added
            .iter()
            .map(|r| ('+', r))
            .chain(report.removed.iter().map(|r| ('-', r)));
        let total = report.added.len() + report.removed.len();
        for (sign, r) in lines.take(LISTED) {
            text.push_str(&format!(
                "  {sign} {} ({})\n",
                r.label(),
                r.resource_type_name
            ));
        }
        if total > LISTED {
            text.push_str(&format!(
                "  … {} more (-o json lists all)\n",
                total - LISTED
            ));
        }
        text
    })
}

/// `resource inspect [--file PATH] KEY`.
fn inspect(ctx: &Context, key: &ResourceKey, file: Option<&str>) -> Outcome {
    let inspection = ctx.open()?.inspect(key, file)?;
    emit(ctx.format, &inspection, || {
        // The handler's own text: lines kept, nothing else that could
        // drive the terminal.
        let mut text = escape_block(&inspection.text).into_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    })
}

/// `resource remove [--dry-run | --force] KEY`: with `--force`, the
/// containers and sandboxes on what goes go first, each said on stderr.
fn remove(ctx: &Context, key: &ResourceKey, dry_run: bool, force: bool) -> Outcome {
    let mut registry = ctx.open()?;
    let mut options = RemoveOptions::default();
    (options.dry_run, options.force) = (dry_run, force);
    let report = registry.remove_resource(key, options)?;
    for (resource, container) in &report.forced.containers {
        eprintln!(
            "stopped and removed container {} of {}",
            escape_line(container),
            escape_line(resource)
        );
    }
    for gone in &report.forced.sandboxes {
        eprintln!(
            "destroyed sandbox {} ({} of {})",
            gone.sandbox_id,
            gone.strategy.as_str(),
            escape_line(&gone.resource)
        );
    }
    emit(ctx.format, &report, || removal(&report))
}

fn lifecycle(ctx: &Context, done: &str, view: &ContainerView) -> Outcome {
    emit(ctx.format, view, || {
        format!(
            "{done}: {} ({})\n",
            view.container_id.as_deref().unwrap_or("-"),
            view.state
        )
    })
}

mod command;
mod graph;
mod list;
mod text;
mod tree;
pub(super) mod trust;
mod which;
pub use command::ResourceCommand;
use text::{container_text, neighbours, removal, show};
