//! The tools that change nothing: types, resources, trees, inspect and
//! environment resolution.

use super::{Access, Count, Done, Progress, Tool, key, summary};
use crate::cli::mcp::kinds::Refusal;
use resource_host::model::Resource;
use resource_host::registry::{
    ContainerView, Inspection, ListOptions, Registry, ResourceFilter, ResourceList, ToolRequest,
    TreeView, TypeView,
};
use resource_host::routing::Route;
use resource_host::text::escape_line;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// List the resource types (built-in and registered), optionally of one namespace.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTypes {
    /// Only types of this namespace (e.g. acme).
    namespace: Option<String>,
}

impl Tool for ListTypes {
    type View = Types;
    const NAME: &'static str = "list_types";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let types = registry.list_types(self.namespace.as_deref())?;
        let text = format!("{} types", types.len());
        Done::new(&Types { types }, text)
    }
}

/// `list_types`' answer: the list, wrapped as MCP wants an object.
#[derive(Serialize, JsonSchema)]
pub struct Types {
    types: Vec<TypeView>,
}

/// Show one resource type as resolved through inheritance: its arguments, parent and child types, handler and discovery rules.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowType {
    /// The type's name, e.g. git-checkout.
    name: String,
}

impl Tool for ShowType {
    type View = TypeView;
    const NAME: &'static str = "show_type";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let ty = registry.show_type(&self.name)?;
        let text = format!("type {}", escape_line(ty.resolved().name.as_str()));
        Done::new(&ty, text)
    }
}

/// List registered resources: of a type (and its subtypes), whose name matches a glob (* and ?), below a resource; at most `limit`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListResources {
    /// Only resources of this type or a subtype of it.
    r#type: Option<String>,
    /// A glob over names: * any run of characters, ? one; \* and \? are those characters themselves.
    name: Option<String>,
    /// Only the descendants of this resource (name or id).
    under: Option<String>,
    /// At most this many (the total is in `total`).
    limit: Option<Count>,
}

impl Tool for ListResources {
    type View = ResourceList;
    const NAME: &'static str = "list_resources";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let options = ListOptions {
            filter: match self.r#type {
                None => ResourceFilter::All,
                Some(t) => ResourceFilter::TypeOrSubtype(t),
            },
            name: self.name,
            under: self.under.map(|u| key("under", &u)).transpose()?,
            limit: self.limit.map(|n| n.0 as usize),
            ..ListOptions::default()
        };
        let list = registry.list(&options)?;
        let text = match list.resources.len() {
            n if n == list.total => format!("{n} resources"),
            n => format!("{} resources ({n} shown)", list.total),
        };
        Done::new(&list, text)
    }
}

/// Show one resource: its type, location, properties, parents and children (ids), and a devcontainer's container state.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowResource {
    /// A resource's name (local/api-repo) or its id (a ULID).
    name_or_id: String,
}

impl Tool for ShowResource {
    type View = WithContainer<Resource>;
    const NAME: &'static str = "show_resource";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let key = key("name_or_id", &self.name_or_id)?;
        let resource = registry.show_resource(&key)?;
        let container = registry.container_of(&key)?;
        let text = summary(&resource);
        Done::new(
            &WithContainer {
                view: resource,
                container,
            },
            text,
        )
    }
}

/// The resource and its descendants as a tree, to a depth, optionally only of one type.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResourceTree {
    /// A resource's name (local/api-repo) or its id (a ULID).
    name_or_id: String,
    /// Levels below the resource (default: all).
    depth: Option<Count>,
    /// Keep only resources of this type (and what leads to them).
    r#type: Option<String>,
}

impl Tool for ResourceTree {
    type View = TreeView;
    const NAME: &'static str = "resource_tree";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let tree = registry.get_resource_tree(
            &key("name_or_id", &self.name_or_id)?,
            self.depth.map(|d| d.0),
            self.r#type.as_deref(),
        )?;
        Done::new(&tree, "the tree is in the structured content")
    }
}

/// What the resource's handler reports about it now (a checkout's branch and status, a file's blob), or about one file in it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Inspect {
    /// A resource's name (local/api-repo) or its id (a ULID).
    name_or_id: String,
    /// A path inside the resource (relative to its location).
    file: Option<String>,
}

impl Tool for Inspect {
    type View = Inspection;
    const NAME: &'static str = "inspect";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let inspection =
            registry.inspect(&key("name_or_id", &self.name_or_id)?, self.file.as_deref())?;
        let text = resource_host::text::escape_block(&inspection.text).into_owned();
        Done::new(&inspection, text)
    }
}

/// Where a tool acting on the resource runs (host or a container, and why). activate also makes the environment ready (starts a trusted devcontainer).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveEnvironment {
    /// A resource's name (local/api-repo) or its id (a ULID).
    resource: String,
    /// The plan whose settings apply.
    plan: Option<String>,
    /// The tool's preference: required:container, preferred:container or specific:NAME.
    tool_env: Option<String>,
    /// Make the environment ready, as running a tool would.
    activate: Option<bool>,
}

impl Tool for ResolveEnvironment {
    type View = WithContainer<Route>;
    const NAME: &'static str = "resolve_environment";
    const ACCESS: Access = Access::Read;

    fn call(self, registry: &mut Registry, _: &mut Progress) -> Result<Done, Refusal> {
        let key = key("resource", &self.resource)?;
        let plan = self.plan.as_deref();
        let tool = match self.tool_env {
            None => ToolRequest::default(),
            Some(t) => {
                ToolRequest::parse(&t).map_err(|e| Refusal::invalid(format!("tool_env: {e}")))?
            }
        };
        if !self.activate.unwrap_or(false) {
            let route = registry.resolve_environment(&key, plan, &tool)?;
            let view = WithContainer {
                view: route,
                container: None,
            };
            return Done::new(&view, "the route is in the structured content");
        }
        let (route, container) = match registry.enter_environment(&key, plan, &tool) {
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
        Done::new(
            &WithContainer {
                view: route,
                container,
            },
            "environment ready",
        )
    }
}

/// A view and, when its resource has one, the container's state.
#[derive(Serialize, JsonSchema)]
pub struct WithContainer<V> {
    #[serde(flatten)]
    view: V,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<ContainerView>,
}
