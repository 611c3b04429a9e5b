//! The shape of `agents resource …` on the command line: its verbs,
//! their arguments and the help each shows (running them is `resources`).

use super::super::types::TypeCommand;
use super::{graph, list};
use crate::cli::keys::key_arg;
use clap::Subcommand;
use resource_host::model::{ResourceKey, TypeName};

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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
    },
    /// One resource's life from the event log, newest first, with its children's changes under
    /// each operation.
    #[command(
        after_help = "A removed resource is found by the name it had.\n\nExamples:\n  \
        agents resource history local/api-repo\n  \
        agents resource history local/api-repo -o json"
    )]
    History {
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
        /// At most N operations (default 1000).
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_parser = key_arg)]
        parent: ResourceKey,
        #[arg(value_parser = key_arg)]
        child: ResourceKey,
    },
    /// Remove the link PARENT → CHILD (both resources stay).
    #[command(
        after_help = "Examples:\n  agents resource unlink-child local/api-repo local/some-subdir"
    )]
    UnlinkChild {
        #[arg(value_parser = key_arg)]
        parent: ResourceKey,
        #[arg(value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
    },
    /// Build and start a devcontainer (what the router's first selection does).
    #[command(
        after_help = "Uses the Dev Containers CLI (npm @devcontainers/cli) when it is \
        installed, else docker or podman directly. Examples:\n  \
        agents resource start local/my-repo-devcontainer"
    )]
    Start {
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
        /// Trust without asking (the summary is printed all the same).
        #[arg(long)]
        yes: bool,
    },
    /// Take back your trust in a devcontainer (or in each below a resource).
    #[command(after_help = "Examples:\n  agents resource untrust local/my-repo-devcontainer")]
    Untrust {
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
    },
    /// Stop a running devcontainer (it stays until started again or rebuilt).
    #[command(after_help = "Examples:\n  agents resource stop local/my-repo-devcontainer")]
    Stop {
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
    },
    /// Rebuild a devcontainer from its current devcontainer.json.
    #[command(
        after_help = "Removes the old container, builds and starts a new one. \
        `agents resource show` says when the configuration changed since the last build.\n\n\
        Examples:\n  agents resource rebuild local/my-repo-devcontainer"
    )]
    Rebuild {
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
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
        #[arg(value_name = "NAME_OR_ID", value_parser = key_arg)]
        key: ResourceKey,
    },
}
