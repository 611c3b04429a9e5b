//! The tools of types, resources, links and environments: reading them,
//! registering, linking, removing, discovering and refreshing.

use super::{Count, discovery, parsed, register, summary};
use crate::cli::mcp::kinds::Refusal;
use crate::cli::output::WithContainer;
use resource_host::model::{Link, Resource, ResourceKey};
use resource_host::registry::{
    Depth, DiscoverOptions, DiscoveryReport, Inspection, ListOptions, NewResource, RefreshOptions,
    RefreshProgress, RefreshReport, RegisterOptions, RemovalReport, RemoveOptions, ResourceFilter,
    ResourceList, ToolRequest, TreeView, TypeView,
};
use resource_host::routing::Route;
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

tools! {
    /// List the resource types (built-in and registered), optionally of one namespace.
    list_types: ListTypes(Read) -> Types {
        /// Only types of this namespace (e.g. acme).
        namespace: Option<String>,
    } |registry, args, _| {
        let types = registry.list_types(args.namespace.as_deref())?;
        let text = format!("{} types", types.len());
        Done::new(&Types { types }, text)
    }

    /// Show one resource type as resolved through inheritance: its arguments, parent and child types, handler and discovery rules.
    show_type: ShowType(Read) -> TypeView {
        /// The type's name, e.g. git-checkout.
        name: String,
    } |registry, args, _| {
        let ty = registry.show_type(&args.name)?;
        let text = format!("type {}", escape_line(ty.resolved().name.as_str()));
        Done::new(&ty, text)
    }

    /// List registered resources: of a type (and its subtypes), whose name matches a glob (* and ?), below a resource; at most `limit`.
    list_resources: ListResources(Read) -> ResourceList {
        /// Only resources of this type or a subtype of it.
        r#type: Option<String>,
        /// A glob over names: * any run of characters, ? one; \* and \? are those characters themselves.
        name: Option<String>,
        /// Only the descendants of this resource (name or id).
        under: Option<String>,
        /// At most this many (the total is in `total`).
        limit: Option<Count>,
        /// Only the resources changed after this event number (list_events gives the numbers: keep the last seq seen).
        since: Option<u64>,
    } |registry, args, _| {
        let changed = args.since.map(|n| super::events::changed_since(registry, n)).transpose()?;
        let limit = args.limit.map(|n| n.0 as usize);
        let options = ListOptions {
            filter: args.r#type.map_or(ResourceFilter::All, ResourceFilter::TypeOrSubtype),
            name: args.name,
            under: args.under.map(|u| parsed("under", &u)).transpose()?,
            // With `since`, the limit applies to what changed.
            limit: if changed.is_some() { None } else { limit },
            ..ListOptions::default()
        };
        let mut list = registry.list(&options)?;
        if let Some(changed) = changed {
            list.resources.retain(|r| changed.contains(&r.resource_id.to_string()));
            list.total = list.resources.len();
            list.resources.truncate(limit.unwrap_or(usize::MAX));
        }
        let text = match list.resources.len() {
            n if n == list.total => format!("{n} resources"),
            n => format!("{} resources ({n} shown)", list.total),
        };
        Done::new(&list, text)
    }

    /// Show one resource: its type, location, properties, parents and children (ids), and a devcontainer's container state.
    show_resource: ShowResource(Read) -> WithContainer<Resource> {
        /// A resource's name (local/api-repo) or its id (a ULID).
        name_or_id: String,
    } |registry, args, _| {
        let shown = shown(registry, &parsed("name_or_id", &args.name_or_id)?)?;
        let text = summary(&shown.view);
        Done::new(&shown, text)
    }

    /// Register a resource of a type with the type's arguments (as `agents resource add TYPE --flag value`); the handler discovers its children.
    register_resource: RegisterResource(Write, IDEMPOTENT = false; listed register::listed) -> Resource {
        r#type: String,
        name: Option<String>,
        args: Option<Map<String, Value>>,
        description: Option<String>,
        sandbox_strategy: Option<String>,
    } |registry, args, progress| {
        let flags = register::flags(registry, &args.r#type, args.args.unwrap_or_default())?;
        let request = NewResource {
            type_name: args.r#type,
            name: args.name,
            args: flags,
            description: args.description,
            sandbox_strategy: args.sandbox_strategy,
            read_only: false,
            base_dir: None,
        };
        let options = RegisterOptions { progress: Some(&mut discovery(progress)) };
        let resource = registry.register_resource(request, options)?;
        let done = Done::new(&resource, format!("registered {}", summary(&resource)))?;
        Ok(done.changing(vec![resource.resource_id.to_string()]))
    }

    /// The resource and its descendants as a tree, to a depth, optionally only of one type.
    resource_tree: ResourceTree(Read) -> TreeView {
        /// A resource's name (local/api-repo) or its id (a ULID).
        name_or_id: String,
        /// Levels below the resource (default: all).
        depth: Option<Count>,
        /// Keep only resources of this type (and what leads to them).
        r#type: Option<String>,
    } |registry, args, _| {
        let key = parsed("name_or_id", &args.name_or_id)?;
        let tree = registry.get_resource_tree(&key, args.depth.map(|d| d.0), args.r#type.as_deref())?;
        Done::new(&tree, "the tree is in the structured content")
    }

    /// Link a child under a parent (refused for a cycle, a duplicate or types that do not allow the link).
    link_child: LinkChild(Write, IDEMPOTENT = false) -> Link {
        /// A resource's name (local/api-repo) or its id (a ULID).
        parent: String,
        /// A resource's name (local/api-repo) or its id (a ULID).
        child: String,
    } |registry, args, _| {
        let (parent, child) = (parsed("parent", &args.parent)?, parsed("child", &args.child)?);
        let link = registry.link_child(&parent, &child)?;
        let done = Done::new(&link, format!("linked {parent} → {child}"))?;
        Ok(done.changing(vec![parent.to_string(), child.to_string()]))
    }

    /// Remove the link between a parent and a child (the resources stay).
    unlink_child: UnlinkChild(Write, DESTRUCTIVE = true) -> Unlinked {
        /// A resource's name (local/api-repo) or its id (a ULID).
        parent: String,
        /// A resource's name (local/api-repo) or its id (a ULID).
        child: String,
    } |registry, args, _| {
        let (parent, child) = (parsed("parent", &args.parent)?, parsed("child", &args.child)?);
        registry.unlink_child(&parent, &child)?;
        let (parent, child) = (parent.to_string(), child.to_string());
        let text = format!("unlinked {parent} → {child}");
        let unlinked = Edge { parent: parent.clone(), child: child.clone() };
        Ok(Done::new(&Unlinked { unlinked }, text)?.changing(vec![parent, child]))
    }

    /// Remove a resource and what it alone holds (its discovered children). dry_run says what would go; force first stops its containers and destroys its sandboxes.
    remove_resource: RemoveResource(Write, DESTRUCTIVE = true, IDEMPOTENT = false) -> RemovalReport {
        /// A resource's name (local/api-repo) or its id (a ULID).
        name_or_id: String,
        /// Only say what would be removed.
        dry_run: Option<bool>,
        /// Also stop the resource's containers and destroy its sandboxes first.
        force: Option<bool>,
    } |registry, args, _| {
        let key = parsed("name_or_id", &args.name_or_id)?;
        let mut options = RemoveOptions::default();
        options.dry_run = args.dry_run.unwrap_or(false);
        options.force = args.force.unwrap_or(false);
        let report = registry.remove_resource(&key, options)?;
        let forced = &report.forced;
        let mut before: Vec<String> = forced.containers.iter().map(|(resource, container)| {
            format!("stopped and removed container {container} of {resource}")
        }).collect();
        before.extend(forced.sandboxes.iter().map(|gone| {
            let (id, strategy) = (gone.sandbox_id, gone.strategy.as_str());
            format!("destroyed sandbox {id} ({strategy} of {})", gone.resource)
        }));
        let (gone, verb) = (report.removed.len(), if report.dry_run { "would remove" } else { "removed" });
        let mut done = Done::new(&report, format!("{verb} {gone} resources"))?;
        if !before.is_empty() {
            done.value["stopped_first"] = json!(before);
        }
        Ok(done.changing(report.removed.iter().map(|r| r.resource_id.to_string()).collect()))
    }

    /// Ask the resource's handler again what lies below it (one level unless `depth`), adding new children and removing vanished ones. Sends progress.
    discover: Discover(Write) -> DiscoveryReport {
        /// A resource's name (local/api-repo) or its id (a ULID).
        name_or_id: String,
        /// Levels to explore (default 1).
        depth: Option<Count>,
    } |registry, args, progress| {
        let key = parsed("name_or_id", &args.name_or_id)?;
        let depth = Depth::Levels(args.depth.map_or(1, |d| d.0));
        let options = DiscoverOptions { depth, progress: Some(&mut discovery(progress)) };
        let report = registry.discover(&key, options)?;
        let text = format!(
            "discovered {}: {} new, {} gone, {} updated",
            escape_line(&report.resource.label()),
            report.added.len(),
            report.removed.len(),
            report.updated
        );
        Ok(Done::new(&report, text)?.changing(vec![report.resource.resource_id.to_string()]))
    }

    /// Bring resources up to date with their locations (all when `names` is absent). Sends progress; subscribers of changed resources are told.
    refresh: Refresh(Write) -> RefreshReport {
        /// Names or ids; all registered resources when absent.
        names: Option<Vec<String>>,
    } |registry, args, progress| {
        let names = args.names.unwrap_or_default();
        let keys: Vec<ResourceKey> = names.iter().map(|n| parsed("names", n)).collect::<Result<_, _>>()?;
        let mut on = |p: RefreshProgress| {
            let message = format!("{} checked, {} changed", p.checked, p.changed);
            progress(p.checked as u64, None, message)
        };
        let report = registry.refresh(&keys, RefreshOptions { progress: Some(&mut on) })?;
        let changed = crate::cli::mcp::following::refreshed(&report);
        Ok(Done::new(&report, format!("refreshed: {} changed", changed.len()))?.changing(changed))
    }

    /// What the resource's handler reports about it now (a checkout's branch and status, a file's blob), or about one file in it.
    inspect: Inspect(Read) -> Inspection {
        /// A resource's name (local/api-repo) or its id (a ULID).
        name_or_id: String,
        /// A path inside the resource (relative to its location).
        file: Option<String>,
    } |registry, args, _| {
        let inspection = registry.inspect(&parsed("name_or_id", &args.name_or_id)?, args.file.as_deref())?;
        let text = resource_host::text::escape_block(&inspection.text).into_owned();
        Done::new(&inspection, text)
    }

    /// Where a tool acting on the resource runs (host or a container, and why). activate also makes the environment ready (starts a trusted devcontainer).
    resolve_environment: ResolveEnvironment(Read) -> WithContainer<Route> {
        /// A resource's name (local/api-repo) or its id (a ULID).
        resource: String,
        /// The plan whose settings apply.
        plan: Option<String>,
        /// The tool's preference: required:container, preferred:container or specific:NAME.
        tool_env: Option<String>,
        /// Make the environment ready, as running a tool would.
        activate: Option<bool>,
    } |registry, args, _| {
        let key = parsed("resource", &args.resource)?;
        let plan = args.plan.as_deref();
        let tool = match args.tool_env {
            None => ToolRequest::default(),
            Some(t) => ToolRequest::parse(&t).map_err(|e| Refusal::invalid(format!("tool_env: {e}")))?,
        };
        if !args.activate.unwrap_or(false) {
            let view = registry.resolve_environment(&key, plan, &tool)?;
            let view = WithContainer { view, container: None };
            return Done::new(&view, "the route is in the structured content");
        }
        let (view, container) = match registry.enter_environment(&key, plan, &tool) {
            Err(err) if err.kind() == resource_host::registry::ErrorKind::NotTrusted => {
                let mut refusal = Refusal::from(err);
                refusal.message.push_str(
                    " (an agent cannot give this consent: ask the person to run `agents resource \
                     trust` for it)",
                );
                return Err(refusal);
            }
            other => other?,
        };
        Done::new(&WithContainer { view, container }, "environment ready")
    }
}

/// `list_types`' answer: the list, wrapped as MCP wants an object.
#[derive(Serialize, JsonSchema)]
pub struct Types {
    types: Vec<TypeView>,
}

/// `show_resource`'s view, which `resources/read` answers too.
pub fn shown(registry: &Registry, key: &ResourceKey) -> Result<WithContainer<Resource>, Refusal> {
    let view = registry.show_resource(key)?;
    let container = registry.container_of(key)?;
    Ok(WithContainer { view, container })
}

/// `unlink_child`'s answer: the link that went, as it was named.
#[derive(Serialize, JsonSchema)]
pub struct Unlinked {
    unlinked: Edge,
}

#[derive(Serialize, JsonSchema)]
struct Edge {
    parent: String,
    child: String,
}
