//! What each tool calls ([`call`]): one library operation, the one its
//! CLI verb calls, answering the same JSON view.

mod answer;

pub use answer::{Args, Done, Progress};

use super::kinds::Refusal;
use resource_host::model::{ResourceKey, SandboxStrategy};
use resource_host::registry::{
    AddPluginOptions, Depth, DiscoveryProgress, ImportOptions, ListOptions, NewResource,
    RefreshProgress, RegisterTypeOptions, Registry, RemoveOptions, ResourceFilter, ToolRequest,
};
use resource_host::text::escape_line;
use serde_json::{Value, json};

/// Run tool `name` on `registry`.
pub fn call(
    registry: &mut Registry,
    name: &str,
    args: &Args<'_>,
    progress: &mut Progress,
) -> Result<Done, Refusal> {
    match name {
        "list_types" => {
            let types = registry.list_types(args.text("namespace")?.as_deref())?;
            Done::list("types", &types, format!("{} types", types.len()))
        }
        "show_type" => {
            let ty = registry.show_type(&args.required("name")?)?;
            let text = format!("type {}", escape_line(ty.resolved().name.as_str()));
            Done::new(&ty, text)
        }
        "list_resources" => list_resources(registry, args),
        "show_resource" => {
            let key = args.key("name_or_id")?;
            let resource = registry.show_resource(&key)?;
            let container = registry.container_of(&key)?;
            let text = summary(&resource);
            let mut value =
                serde_json::to_value(&resource).map_err(|e| Refusal::internal(e.to_string()))?;
            if let Some(c) = container {
                value["container"] =
                    serde_json::to_value(c).map_err(|e| Refusal::internal(e.to_string()))?;
            }
            Ok(Done {
                changed: Vec::new(),
                value,
                text,
            })
        }
        "register_resource" => register(registry, args, progress),
        "resource_tree" => {
            let tree = registry.get_resource_tree(
                &args.key("name_or_id")?,
                args.count("depth")?,
                args.text("type")?.as_deref(),
            )?;
            Done::new(&tree, "the tree is in the structured content")
        }
        "link_child" => {
            let (parent, child) = (args.key("parent")?, args.key("child")?);
            let link = registry.link_child(&parent, &child)?;
            let mut done = Done::new(&link, format!("linked {parent} → {child}"))?;
            done.changed = vec![parent.to_string(), child.to_string()];
            Ok(done)
        }
        "unlink_child" => {
            let (parent, child) = (args.key("parent")?, args.key("child")?);
            registry.unlink_child(&parent, &child)?;
            let value =
                json!({"unlinked": {"parent": parent.to_string(), "child": child.to_string()}});
            let mut done = Done::new(&value, format!("unlinked {parent} → {child}"))?;
            done.changed = vec![parent.to_string(), child.to_string()];
            Ok(done)
        }
        "remove_resource" => remove(registry, args),
        "discover" => {
            let key = args.key("name_or_id")?;
            let depth = Depth::Levels(args.count("depth")?.unwrap_or(1));
            let mut on = |p: DiscoveryProgress| {
                progress(
                    p.visited as u64,
                    None,
                    format!("{} visited, {} found", p.visited, p.found),
                )
            };
            let report = registry.discover(
                &key,
                resource_host::registry::DiscoverOptions {
                    depth,
                    progress: Some(&mut on),
                },
            )?;
            let text = format!(
                "discovered {}: {} new, {} gone, {} updated",
                escape_line(&report.resource.label()),
                report.added.len(),
                report.removed.len(),
                report.updated
            );
            let mut done = Done::new(&report, text)?;
            done.changed = vec![report.resource.resource_id.to_string()];
            Ok(done)
        }
        "refresh" => refresh(registry, args, progress),
        "inspect" => {
            let inspection =
                registry.inspect(&args.key("name_or_id")?, args.text("file")?.as_deref())?;
            let text = inspection.text.clone();
            Done::new(
                &inspection,
                resource_host::text::escape_block(&text).into_owned(),
            )
        }
        "resolve_environment" => resolve(registry, args),
        "sandbox_create" => {
            let strategy = match args.text("strategy")? {
                None => None,
                Some(s) => Some(SandboxStrategy::parse(&s).ok_or_else(|| {
                    Refusal::invalid(format!(
                        "strategy {s:?} is not a sandbox strategy; use one of {}",
                        SandboxStrategy::ALL.map(|s| s.as_str()).join(", ")
                    ))
                })?),
            };
            let sandbox = registry.create_sandbox(&args.key("resource")?, strategy)?;
            let text = format!(
                "created sandbox {} ({} of {}); workdir {}",
                sandbox.sandbox_id,
                sandbox.strategy.as_str(),
                escape_line(&sandbox.resource),
                escape_line(sandbox.workdir.as_deref().unwrap_or("-"))
            );
            Done::new(&sandbox, text)
        }
        "sandbox_list" => {
            let sandboxes = registry.list_sandboxes(args.optional_key("resource")?.as_ref())?;
            Done::list(
                "sandboxes",
                &sandboxes,
                format!("{} sandboxes", sandboxes.len()),
            )
        }
        "sandbox_show" => {
            let sandbox = registry.show_sandbox(args.sandbox()?)?;
            let text = format!(
                "sandbox {} ({})",
                sandbox.sandbox_id,
                sandbox.strategy.as_str()
            );
            Done::new(&sandbox, text)
        }
        "sandbox_checkpoint" => {
            let id = args.sandbox()?;
            let checkpoint = registry.checkpoint_sandbox(id, args.text("label")?.as_deref())?;
            let text = format!("checkpoint {} of sandbox {id}", checkpoint.label_text());
            Done::new(&checkpoint, text)
        }
        "sandbox_rollback" => {
            let id = args.sandbox()?;
            let to = registry.rollback_sandbox(id, args.text("checkpoint")?.as_deref())?;
            let text = format!("sandbox {id} rolled back to checkpoint {}", to.label_text());
            Done::new(&to, text)
        }
        "sandbox_diff" => {
            let diff = registry.diff_sandbox(args.sandbox()?)?;
            Done::new(&diff, "the changes are in the structured content")
        }
        "sandbox_apply" => {
            let id = args.sandbox()?;
            let applied = registry.apply_sandbox(id)?;
            Done::new(&applied, format!("applied sandbox {id}"))
        }
        "sandbox_destroy" => {
            let id = args.sandbox()?;
            let gone = registry.destroy_sandbox(id)?;
            Done::new(&gone, format!("destroyed sandbox {id}"))
        }
        "type_add" => {
            let path = absolute(&args.required("path")?)?;
            let mut options = RegisterTypeOptions::default();
            options.replace = args.flag("replace")?;
            let ty = registry.register_type(&path, options)?;
            let text = format!("added type {}", escape_line(ty.resolved().name.as_str()));
            Done::new(&ty, text)
        }
        "type_remove" => {
            let name = args.required("name")?;
            registry.remove_type(&name)?;
            Done::new(
                &json!({"removed": name}),
                format!("removed type {}", escape_line(&name)),
            )
        }
        "plugin_add" => {
            let path = absolute(&args.required("path")?)?;
            let module = match args.text("module")? {
                None => None,
                Some(m) => Some(
                    resource_host::model::ModuleName::parse(&m)
                        .map_err(|e| Refusal::invalid(format!("module: {e}")))?,
                ),
            };
            let mut options = AddPluginOptions::default();
            (options.module, options.replace) = (module, args.flag("replace")?);
            let plugin = registry.add_plugin(&path, options)?;
            Done::new(&plugin, "added the plugin")
        }
        "plugin_install" => {
            use resource_host::registry::InstallPluginOptions;
            let reference = args.required("reference")?;
            // An OCI layout is a directory on this machine: inside the
            // roots, as any file an admin tool reads.
            if let Some(layout) = reference.strip_prefix("oci-layout:") {
                let dir = layout.rsplit_once(':').map_or(layout, |(dir, _)| dir);
                let dir = absolute(dir)?;
                registry.check_file_in_roots(&dir, "reading an OCI layout")?;
            }
            let mut options = InstallPluginOptions::from(reference.clone());
            options.replace = args.flag("replace")?;
            let installed = registry.install_plugin(options)?;
            Done::new(
                &installed,
                format!(
                    "installed plugin {} from {}",
                    installed.plugin.module,
                    escape_line(&reference)
                ),
            )
        }
        "plugin_remove" => {
            let module = resource_host::model::ModuleName::parse(&args.required("module")?)
                .map_err(|e| Refusal::invalid(format!("module: {e}")))?;
            let plugin = registry.remove_plugin(&module)?;
            Done::new(&plugin, format!("removed plugin {module}"))
        }
        "registry_import" => {
            use resource_host::user_files::{InputKind, read_text};
            let path = absolute(&args.required("path")?)?;
            registry.check_file_in_roots(&path, "reading a registry document")?;
            let text = read_text(&path, InputKind::RegistryDocument)
                .map_err(|e| Refusal::new("invalid_arguments", e.to_string()))?;
            let document = resource_host::registry::RegistryDocument::parse(&text)
                .map_err(|e| Refusal::new("invalid_document", e.to_string()))?;
            let mut options = ImportOptions::default();
            options.dry_run = args.flag("dry_run")?;
            let report = registry.import_document(&document, options)?;
            Done::new(&report, "imported")
        }
        other => Err(Refusal::new(
            "unknown_tool",
            format!("no tool named {other}"),
        )),
    }
}

/// A path argument: absolute (the server's working directory is not the
/// agent's).
fn absolute(text: &str) -> Result<std::path::PathBuf, Refusal> {
    let path = std::path::PathBuf::from(text);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(Refusal::invalid(format!(
            "{text:?} is a relative path; give an absolute one (the server's working \
             directory is not yours)"
        )))
    }
}

/// One resource in a line: name (type) at location.
fn summary(r: &resource_host::model::Resource) -> String {
    let mut text = format!(
        "{} ({})",
        escape_line(&r.label()),
        r.resource_type_name.as_str()
    );
    if let Some(location) = &r.location {
        text.push_str(&format!(" at {}", escape_line(location)));
    }
    text
}

fn list_resources(registry: &mut Registry, args: &Args<'_>) -> Result<Done, Refusal> {
    let options = ListOptions {
        filter: match args.text("type")? {
            None => ResourceFilter::All,
            Some(t) => ResourceFilter::TypeOrSubtype(t),
        },
        name: args.text("name")?,
        under: args.optional_key("under")?,
        limit: args.count("limit")?.map(|n| n as usize),
        ..ListOptions::default()
    };
    let list = registry.list(&options)?;
    let text = match list.resources.len() {
        n if n == list.total => format!("{n} resources"),
        n => format!("{} resources ({n} shown)", list.total),
    };
    Done::new(&list, text)
}

fn register(
    registry: &mut Registry,
    args: &Args<'_>,
    progress: &mut Progress,
) -> Result<Done, Refusal> {
    let type_name = args.required("type")?;
    let form = registry.registration_form(&type_name)?;
    let mut flags = Vec::new();
    if let Some(given) = args.0.get("args") {
        let given = given
            .as_object()
            .ok_or_else(|| Refusal::invalid("args must be an object of flag: value"))?;
        for (flag, value) in given {
            let Some(arg) = form.args.iter().find(|a| &a.name == flag) else {
                let known: Vec<&str> = form.args.iter().map(|a| a.name.as_str()).collect();
                return Err(Refusal::invalid(format!(
                    "type {type_name} takes no argument {flag:?}; its arguments: {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => {
                    return Err(Refusal::invalid(format!(
                        "{flag} must be a string, number or boolean"
                    )));
                }
            };
            if arg.arg_type == resource_host::model::ArgType::Path {
                absolute(&text)?;
            }
            flags.push((flag.clone(), text));
        }
    }
    let request = NewResource {
        type_name,
        name: args.text("name")?,
        args: flags,
        description: args.text("description")?,
        sandbox_strategy: args.text("sandbox_strategy")?,
        read_only: false,
        base_dir: None,
    };
    let mut on = |p: DiscoveryProgress| {
        progress(
            p.visited as u64,
            None,
            format!("{} visited, {} found", p.visited, p.found),
        )
    };
    let resource = registry.register_resource(
        request,
        resource_host::registry::RegisterOptions {
            progress: Some(&mut on),
        },
    )?;
    let mut done = Done::new(&resource, format!("registered {}", summary(&resource)))?;
    done.changed = vec![resource.resource_id.to_string()];
    Ok(done)
}

fn remove(registry: &mut Registry, args: &Args<'_>) -> Result<Done, Refusal> {
    let key = args.key("name_or_id")?;
    let mut options = RemoveOptions::default();
    (options.dry_run, options.force) = (args.flag("dry_run")?, args.flag("force")?);
    let report = registry.remove_resource(&key, options)?;
    let mut before: Vec<String> = report
        .forced
        .containers
        .iter()
        .map(|(resource, container)| {
            format!("stopped and removed container {container} of {resource}")
        })
        .collect();
    before.extend(report.forced.sandboxes.iter().map(|gone| {
        format!(
            "destroyed sandbox {} ({} of {})",
            gone.sandbox_id,
            gone.strategy.as_str(),
            gone.resource
        )
    }));
    let mut value = serde_json::to_value(&report).map_err(|e| Refusal::internal(e.to_string()))?;
    if !before.is_empty() {
        value["stopped_first"] = json!(before);
    }
    let gone = report.removed.len();
    let text = if report.dry_run {
        format!("would remove {gone} resources")
    } else {
        format!("removed {gone} resources")
    };
    let changed = report
        .removed
        .iter()
        .map(|r| r.resource_id.to_string())
        .collect();
    Ok(Done {
        value,
        text,
        changed,
    })
}

fn refresh(
    registry: &mut Registry,
    args: &Args<'_>,
    progress: &mut Progress,
) -> Result<Done, Refusal> {
    let keys: Vec<ResourceKey> = match args.0.get("names") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| Refusal::invalid("names must be strings"))?
                    .parse::<ResourceKey>()
                    .map_err(|e| Refusal::invalid(format!("names: {e}")))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(Refusal::invalid("names must be a list of names or ids")),
    };
    let mut on = |p: RefreshProgress| {
        progress(
            p.checked as u64,
            None,
            format!("{} checked, {} changed", p.checked, p.changed),
        )
    };
    let report = registry.refresh(
        &keys,
        resource_host::registry::RefreshOptions {
            progress: Some(&mut on),
        },
    )?;
    let value = serde_json::to_value(&report).map_err(|e| Refusal::internal(e.to_string()))?;
    let changed = changed_ids(&value);
    let text = format!("refreshed: {} changed", changed.len());
    Ok(Done {
        value,
        text,
        changed,
    })
}

/// The ids a refresh report names as changed (updated, added, removed,
/// stale), wherever in the report they are.
fn changed_ids(report: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for field in ["updated", "added", "removed", "stale", "changed"] {
        if let Some(items) = report[field].as_array() {
            for item in items {
                for key in ["resource_id", "id"] {
                    if let Some(id) = item[key].as_str() {
                        ids.push(id.to_owned());
                    }
                }
            }
        }
    }
    ids
}

fn resolve(registry: &mut Registry, args: &Args<'_>) -> Result<Done, Refusal> {
    let key = args.key("resource")?;
    let plan = args.text("plan")?;
    let tool = match args.text("tool_env")? {
        None => ToolRequest::default(),
        Some(t) => {
            ToolRequest::parse(&t).map_err(|e| Refusal::invalid(format!("tool_env: {e}")))?
        }
    };
    if !args.flag("activate")? {
        let route = registry.resolve_environment(&key, plan.as_deref(), &tool)?;
        return Done::new(&route, "the route is in the structured content");
    }
    let (route, container) = match registry.enter_environment(&key, plan.as_deref(), &tool) {
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
    let mut value = serde_json::to_value(&route).map_err(|e| Refusal::internal(e.to_string()))?;
    if let Some(c) = container {
        value["container"] =
            serde_json::to_value(c).map_err(|e| Refusal::internal(e.to_string()))?;
    }
    Ok(Done {
        value,
        text: "environment ready".to_owned(),
        changed: Vec::new(),
    })
}
