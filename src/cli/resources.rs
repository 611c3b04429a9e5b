//! `agents resource …`: add, list, show, tree, link-child, unlink-child,
//! discover, inspect, remove, a devcontainer's start/stop/rebuild and
//! trust/untrust (`resources/trust.rs`) — and the `type` group (`refresh`
//! and `watch` print through `keeping`).

use super::add;
use super::keeping;
use super::output::{self, emit};
use super::types::{self, TypeCommand};
use super::{Context, Outcome};
use clap::Subcommand;
use resource_host::model::{Resource, ResourceKey, TypeName};
use resource_host::registry::{ContainerView, Depth, RemoveOptions};
use resource_host::text::{escape_block, escape_line};

/// Lines a discovery or refresh report lists for people (all in `-o json`).
pub(super) const LISTED: usize = 40;

#[derive(Debug, Subcommand)]
pub enum ResourceCommand {
    /// Resource types: add, list, show, explain, remove.
    #[command(subcommand)]
    Type(TypeCommand),
    /// Register a resource; the type's cli_args are its flags.
    #[command(
        disable_help_flag = true,
        after_help = "Usage of the rest: [NAME] [--<type flag> VALUE]... \
        [--description TEXT] [--sandbox-strategy STRATEGY] [--read-only]\n\n\
        Examples:\n  \
        agents resource add git-checkout local/api-repo --path /repos/api-service --branch main\n  \
        agents resource add fs-directory local/config-dir --path /etc/myapp\n  \
        agents resource add git-checkout --help      # the flags of one type"
    )]
    Add {
        /// The resource type (`agents resource type list` shows them).
        #[arg(value_name = "TYPE", allow_hyphen_values = true)]
        type_name: String,
        /// The optional NAME (namespace/name) followed by flags.
        #[arg(
            value_name = "NAME | FLAGS",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        rest: Vec<String>,
    },
    /// List resources: all, or by type, name glob or ancestor; natural order of names.
    #[command(
        after_help = "--type includes subtypes (a rule that names a type accepts its \
        subtypes); add --exact for that type only. --name matches the whole name, `*` \
        spanning `/`. On a terminal a last line says how many matched and how many are shown.\n\n\
        Examples:\n  agents resource list\n  agents resource list --type git-checkout\n  \
        agents resource list --under local/api-repo --name '*.py' --limit 20\n  \
        agents resource list --sort registered\n  \
        agents resource list --type container-instance --exact -o json"
    )]
    List(list::ListArgs),
    /// Show one resource by namespaced name, ULID or path.
    #[command(
        after_help = "NAME_OR_ID may be a path (absolute, or ./…, ../…, ~/…): the \
        resource located there; of several there (a checkout and its worktree directory) the \
        deepest in the DAG, or the one --type names. Every NAME_OR_ID takes a path the same way.\n\n\
        Examples:\n  agents resource show local/api-repo\n  \
        agents resource show \"local/api-repo/worktree/my notes.txt\"\n  \
        agents resource show ./src/main.py\n  \
        agents resource show --type git-checkout .\n  \
        agents resource show 01JD0000000000000000000000 -o json"
    )]
    Show {
        /// Of several resources at a path, the one of this type (or a subtype).
        #[arg(long = "type", value_name = "TYPE")]
        at_type: Option<TypeName>,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Draw the resources below one resource.
    #[command(
        after_help = "Each line is the part of the name below its parent, the type, and \
        the location where the parent's does not tell it (--locations: always; --full-names: \
        whole names and every location). On a terminal lines are cut to its width. --type \
        keeps the paths that lead to resources of that type (or its subtypes).\n\nExamples:\n  agents resource tree local/api-repo\n  \
        agents resource tree --depth 3 local/api-repo\n  \
        agents resource tree --type fs-directory local/api-repo"
    )]
    Tree {
        /// How many links deep to go (all when omitted; 1: the children).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// Only show paths to resources of this type.
        #[arg(long = "type", value_name = "TYPE")]
        type_name: Option<String>,
        /// Show every location, also those the parent's location tells.
        #[arg(long)]
        locations: bool,
        /// Whole names and every location on each line (the form before names were relative).
        #[arg(long)]
        full_names: bool,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Draw the DAG below a resource: dot, Mermaid or SVG (-o json: nodes and edges).
    #[command(
        after_help = "Each resource is drawn once (a shared child under all its parents), \
        physical ones as boxes, virtual identities as ellipses joined to their members by \
        dashed lines, each type in its own colour with a legend. A resource's children past \
        12, and everything past 150 resources, are folded into \"+N more\". With -o json or \
        -o yaml: the nodes, edges and folded counts, whatever --format says.\n\n\
        Examples:\n  agents resource graph local/api-repo | dot -Tpng > repo.png\n  \
        agents resource graph local/api-repo --format svg > repo.svg\n  \
        agents resource graph --depth 2 --format mermaid local/api-repo\n  \
        agents resource graph local/api-repo -o json"
    )]
    Graph {
        /// How many links deep to go (all when omitted; 1: the children).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// Only draw paths to resources of this type (or its subtypes).
        #[arg(long = "type", value_name = "TYPE")]
        type_name: Option<String>,
        /// What to draw: dot (default), mermaid or svg.
        #[arg(long, value_enum, default_value_t)]
        format: graph::GraphFormat,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// List the resources located at PATH or above it, nearest first.
    #[command(
        after_help = "At one location (a checkout and its worktree directory) the \
        deepest in the DAG comes first. Relative paths resolve against the working directory.\n\n\
        Examples:\n  agents resource which ./src/main.py\n  agents resource which ~/repos/api -o json"
    )]
    Which {
        #[arg(value_name = "PATH")]
        path: std::path::PathBuf,
    },
    /// Link CHILD below PARENT.
    #[command(
        after_help = "Refused when either is unknown, for a self link, a duplicate \
        link, a link that would close a cycle, or types that do not allow it.\n\n\
        Examples:\n  agents resource link-child local/api-repo local/some-subdir"
    )]
    LinkChild {
        #[arg(value_parser = which::key_arg)]
        parent: ResourceKey,
        #[arg(value_parser = which::key_arg)]
        child: ResourceKey,
    },
    /// Remove the link PARENT → CHILD (both resources stay).
    #[command(
        after_help = "Examples:\n  agents resource unlink-child local/api-repo local/some-subdir"
    )]
    UnlinkChild {
        #[arg(value_parser = which::key_arg)]
        parent: ResourceKey,
        #[arg(value_parser = which::key_arg)]
        child: ResourceKey,
    },
    /// Run discovery again below a resource (its children, or deeper).
    #[command(
        after_help = "Adds resources found for the first time, removes discovered \
        resources no longer found (and what only they kept), and updates the properties and \
        content hashes that changed (an unchanged resource is not rewritten). One \
        transaction: nothing is written if any level fails.\n\n\
        Examples:\n  agents resource discover local/pkg\n  \
        agents resource discover --depth 3 local/api-repo/git/branch/main\n  \
        agents resource discover --recursive local/config-dir"
    )]
    Discover {
        /// How many levels below the resource to explore (default 1: its children).
        #[arg(long, value_name = "N", conflicts_with = "recursive",
              value_parser = clap::value_parser!(u32).range(1..))]
        depth: Option<u32>,
        /// Explore every level below the resource.
        #[arg(long)]
        recursive: bool,
        /// Of several resources at a path, the one of this type (or a subtype).
        #[arg(long = "type", value_name = "TYPE")]
        at_type: Option<TypeName>,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Check resources for changes and bring what changed up to date.
    #[command(
        after_help = "A resource has changed when its handler's content hash differs from the \
        stored one. What changed is validated again with its stored arguments (fresh \
        properties) and rediscovered one level (new children added, vanished ones removed); \
        then what was explored below it is checked the same way. An unchanged registry is not \
        written. A resource whose location vanished or that no longer validates is marked \
        stale with the reason (shown by `resource show`); fix the cause and refresh again, or \
        remove it. One transaction per resource.\n\n\
        Examples:\n  agents resource refresh\n  agents resource refresh local/api-repo local/config-dir"
    )]
    Refresh {
        /// The resources to check (default: every resource you registered whose type has a
        /// handler), with what was explored below them.
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        keys: Vec<ResourceKey>,
    },
    /// Keep resources in step with the filesystem while this runs.
    #[command(
        after_help = "Watches the locations of the resources (default: every resource you \
        registered) for changes — inotify on Linux, FSEvents on macOS, kqueue elsewhere — and, \
        a moment after each burst, refreshes the resources whose location saw them (see \
        `agents resource refresh --help`). Git changes (a commit, a branch, a tag, a stash) \
        are seen through the repository's refs under .git. Prints one summary per refresh \
        (with -o json, one JSON object per line); stops cleanly on Ctrl-C.\n\n\
        Examples:\n  agents resource watch\n  agents -o json resource watch local/api-repo"
    )]
    Watch {
        /// The resources to watch (default: every resource you registered).
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        keys: Vec<ResourceKey>,
    },
    /// Show the handler's description of a resource, or of one file in it.
    #[command(after_help = "Examples:\n  agents resource inspect local/api-repo\n  \
        agents resource inspect --file src/main.py local/api-repo")]
    Inspect {
        /// A file inside the resource, relative to its location.
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
        /// Of several resources at a path, the one of this type (or a subtype).
        #[arg(long = "type", value_name = "TYPE")]
        at_type: Option<TypeName>,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Build and start a devcontainer (what the router's first selection does).
    #[command(
        after_help = "Uses the Dev Containers CLI (npm @devcontainers/cli) when it is \
        installed, else docker or podman directly. Examples:\n  \
        agents resource start local/my-repo-devcontainer"
    )]
    Start {
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Trust a devcontainer's configuration (or each below a resource), after showing what activation does.
    #[command(
        after_help = "Prints what activating it would do — commands on the host and in the \
        container, the image or Dockerfile, every mount (outside the repository called out), \
        every docker run option and what it grants, the environment, the tool — then asks \
        [y/N] on a terminal. --yes answers for a script (the summary is still printed); \
        without a terminal and without --yes nothing is recorded. The decision is yours \
        (your user, this machine), bound to the configuration and the files it builds from: \
        change one and start/rebuild/env resolve --activate refuse until you trust it again.\n\n\
        Examples:\n  agents resource trust local/my-repo-devcontainer\n  \
        agents resource trust local/my-repo --yes"
    )]
    Trust {
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
        /// Trust without asking (the summary is printed all the same).
        #[arg(long)]
        yes: bool,
    },
    /// Take back your trust in a devcontainer (or in each below a resource).
    #[command(after_help = "Examples:\n  agents resource untrust local/my-repo-devcontainer")]
    Untrust {
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Stop a running devcontainer (it stays until started again or rebuilt).
    #[command(after_help = "Examples:\n  agents resource stop local/my-repo-devcontainer")]
    Stop {
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Rebuild a devcontainer from its current devcontainer.json.
    #[command(
        after_help = "Removes the old container, builds and starts a new one. \
        `agents resource show` says when the configuration changed since the last build.\n\n\
        Examples:\n  agents resource rebuild local/my-repo-devcontainer"
    )]
    Rebuild {
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
    /// Remove a resource, its links, and the discovered resources only it kept.
    #[command(
        after_help = "Resources you registered yourself are never removed implicitly; \
        they only lose the link.\n\nExamples:\n  agents resource remove local/api-repo\n  \
        agents resource remove --dry-run local/api-repo\n\n\
        A resource with live sandboxes or containers (on it or on what would go with it) is \
        not removed; --force destroys those sandboxes and stops and removes those containers \
        first."
    )]
    Remove {
        /// Only show what would be removed.
        #[arg(long)]
        dry_run: bool,
        /// Destroy the sandboxes and remove the containers living on what goes, then remove.
        #[arg(long, conflicts_with = "dry_run")]
        force: bool,
        /// Of several resources at a path, the one of this type (or a subtype).
        #[arg(long = "type", value_name = "TYPE")]
        at_type: Option<TypeName>,
        #[arg(value_name = "NAME_OR_ID", value_parser = which::key_arg)]
        key: ResourceKey,
    },
}

pub fn run(ctx: &Context, cmd: ResourceCommand) -> Outcome {
    match cmd {
        ResourceCommand::Type(cmd) => types::run(ctx, cmd),
        ResourceCommand::Add { type_name, rest } => add::run(ctx, type_name, rest),
        ResourceCommand::List(args) => list::run(ctx, args),
        ResourceCommand::Show { key, at_type } => show_one(ctx, &which::of_type(key, at_type)?),
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
        } => discover(ctx, &which::of_type(key, at_type)?, depth, recursive),
        ResourceCommand::Refresh { keys } => {
            let mut progress = output::Progress::new("refreshing");
            let report = ctx
                .open()?
                .refresh_with(&keys, &mut |p| progress.show_refresh(p))?;
            progress.done();
            emit(ctx.format, &report, || keeping::refresh_summary(&report))
        }
        ResourceCommand::Watch { keys } => keeping::watch(ctx, &keys),
        ResourceCommand::Inspect { file, at_type, key } => {
            inspect(ctx, &which::of_type(key, at_type)?, file.as_deref())
        }
        ResourceCommand::Remove {
            dry_run,
            force,
            at_type,
            key,
        } => remove(ctx, &which::of_type(key, at_type)?, dry_run, force),
    }
}

/// `resource show KEY`: the resource, and a devcontainer's lifecycle
/// (other resources have none; any failure to read one is shown).
fn show_one(ctx: &Context, key: &ResourceKey) -> Outcome {
    let registry = ctx.open()?;
    let resource = registry.show_resource(key)?;
    let container = registry.container_of(key)?;
    let shown = Shown {
        resource: &resource,
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
    let report = ctx
        .open()?
        .discover_with(key, depth, &mut |p| progress.show(p))?;
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

/// `resource show`'s document: the resource, and a devcontainer's
/// lifecycle beside it.
#[derive(serde::Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    resource: &'a Resource,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<ContainerView>,
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

mod graph;
mod list;
mod text;
mod tree;
pub(super) mod trust;
mod which;
use text::{container_text, neighbours, removal, show};
pub(super) use which::key_arg;
