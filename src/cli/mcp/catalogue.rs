//! The tools as `tools/list` shows them: names, descriptions, input and
//! output schemas, annotations, and who may call each ([`Access`]).

use super::Mode;
use super::kinds::Refusal;
use super::schema::{self, boolean, integer, name_or_id, object, sandbox_id, string};
use resource_host::registry::Registry;
use serde_json::{Value, json};

/// Who may call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Changes nothing.
    Read,
    /// Changes the registry or a sandbox.
    Write,
    /// What people do: types, plugins, import (`--allow-admin`).
    Admin,
}

/// One tool as `tools/list` shows it.
#[derive(Debug, Clone)]
pub struct Spec {
    pub name: &'static str,
    pub description: &'static str,
    pub input: Value,
    pub output: Value,
    pub access: Access,
    pub destructive: bool,
    pub idempotent: bool,
}

impl Spec {
    pub fn served_in(&self, mode: Mode) -> bool {
        match self.access {
            Access::Read => true,
            Access::Write => mode != Mode::ReadOnly,
            Access::Admin => mode == Mode::Admin,
        }
    }

    pub fn to_tool(&self) -> rmcp::model::Tool {
        let annotations = match self.access {
            Access::Read => rmcp::model::ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
            _ => rmcp::model::ToolAnnotations::new()
                .read_only(false)
                .destructive(self.destructive)
                .idempotent(self.idempotent)
                .open_world(false),
        };
        let as_object = |v: &Value| std::sync::Arc::new(v.as_object().cloned().unwrap_or_default());
        rmcp::model::Tool::new(self.name, self.description, as_object(&self.input))
            .with_raw_output_schema(as_object(&self.output))
            .with_annotations(annotations)
    }
}

#[allow(clippy::too_many_arguments)]
fn spec(
    name: &'static str,
    description: &'static str,
    input: Value,
    output: Value,
    access: Access,
    destructive: bool,
    idempotent: bool,
) -> Spec {
    Spec {
        name,
        description,
        input,
        output,
        access,
        destructive,
        idempotent,
    }
}

/// `register_resource`'s input schema: one branch per type a person can
/// add, from the types registered now.
pub fn registration(registry: &Registry) -> Result<Value, Refusal> {
    let mut forms = Vec::new();
    for ty in registry.list_types(None)? {
        if ty.is_user_addable() {
            forms.push(registry.registration_form(ty.name.as_str())?);
        }
    }
    Ok(schema::registration(&forms))
}

/// Every tool, in the order `tools/list` gives them. `registration` is
/// `register_resource`'s input schema (it depends on the types).
pub fn catalogue(registration: Value) -> Vec<Spec> {
    use Access::{Admin, Read, Write};
    let id = || object(&[("id", sandbox_id())], &["id"]);
    let key = || object(&[("name_or_id", name_or_id())], &["name_or_id"]);
    let pair = || {
        object(
            &[("parent", name_or_id()), ("child", name_or_id())],
            &["parent", "child"],
        )
    };
    vec![
        spec(
            "list_types",
            "List the resource types (built-in and registered), optionally of one namespace.",
            object(
                &[(
                    "namespace",
                    string("Only types of this namespace (e.g. acme)."),
                )],
                &[],
            ),
            schema::list_of("types", schema::resource_type()),
            Read,
            false,
            true,
        ),
        spec(
            "show_type",
            "Show one resource type as resolved through inheritance: its arguments, parent and child types, handler and discovery rules.",
            object(
                &[("name", string("The type's name, e.g. git-checkout."))],
                &["name"],
            ),
            schema::resource_type(),
            Read,
            false,
            true,
        ),
        spec(
            "list_resources",
            "List registered resources: of a type (and its subtypes), whose name matches a glob (* and ?), below a resource; at most `limit`.",
            object(
                &[
                    (
                        "type",
                        string("Only resources of this type or a subtype of it."),
                    ),
                    (
                        "name",
                        string(
                            "A glob over names: * any run of characters, ? one; \\* and \\? are those characters themselves.",
                        ),
                    ),
                    (
                        "under",
                        string("Only the descendants of this resource (name or id)."),
                    ),
                    (
                        "limit",
                        integer("At most this many (the total is in `total`).", 1),
                    ),
                ],
                &[],
            ),
            schema::output(
                &[
                    (
                        "resources",
                        json!({"type": "array", "items": schema::resource()}),
                    ),
                    ("total", json!({"type": "integer"})),
                ],
                &["resources", "total"],
            ),
            Read,
            false,
            true,
        ),
        spec(
            "show_resource",
            "Show one resource: its type, location, properties, parents and children (ids), and a devcontainer's container state.",
            key(),
            schema::resource(),
            Read,
            false,
            true,
        ),
        spec(
            "register_resource",
            "Register a resource of a type with the type's arguments (as `agents resource add TYPE --flag value`); the handler discovers its children.",
            registration,
            schema::resource(),
            Write,
            false,
            false,
        ),
        spec(
            "resource_tree",
            "The resource and its descendants as a tree, to a depth, optionally only of one type.",
            object(
                &[
                    ("name_or_id", name_or_id()),
                    (
                        "depth",
                        integer("Levels below the resource (default: all).", 1),
                    ),
                    (
                        "type",
                        string("Keep only resources of this type (and what leads to them)."),
                    ),
                ],
                &["name_or_id"],
            ),
            schema::any_object(),
            Read,
            false,
            true,
        ),
        spec(
            "link_child",
            "Link a child under a parent (refused for a cycle, a duplicate or types that do not allow the link).",
            pair(),
            schema::any_object(),
            Write,
            false,
            false,
        ),
        spec(
            "unlink_child",
            "Remove the link between a parent and a child (the resources stay).",
            pair(),
            schema::any_object(),
            Write,
            true,
            true,
        ),
        spec(
            "remove_resource",
            "Remove a resource and what it alone holds (its discovered children). dry_run says what would go; force first stops its containers and destroys its sandboxes.",
            object(
                &[
                    ("name_or_id", name_or_id()),
                    ("dry_run", boolean("Only say what would be removed.")),
                    (
                        "force",
                        boolean(
                            "Also stop the resource's containers and destroy its sandboxes first.",
                        ),
                    ),
                ],
                &["name_or_id"],
            ),
            schema::any_object(),
            Write,
            true,
            false,
        ),
        spec(
            "discover",
            "Ask the resource's handler again what lies below it (one level unless `depth`), adding new children and removing vanished ones. Sends progress.",
            object(
                &[
                    ("name_or_id", name_or_id()),
                    ("depth", integer("Levels to explore (default 1).", 1)),
                ],
                &["name_or_id"],
            ),
            schema::any_object(),
            Write,
            false,
            true,
        ),
        spec(
            "refresh",
            "Bring resources up to date with their locations (all when `names` is absent). Sends progress; subscribers of changed resources are told.",
            object(
                &[(
                    "names",
                    json!({"type": "array", "items": {"type": "string"}, "description": "Names or ids; all registered resources when absent."}),
                )],
                &[],
            ),
            schema::any_object(),
            Write,
            false,
            true,
        ),
        spec(
            "inspect",
            "What the resource's handler reports about it now (a checkout's branch and status, a file's blob), or about one file in it.",
            object(
                &[
                    ("name_or_id", name_or_id()),
                    (
                        "file",
                        string("A path inside the resource (relative to its location)."),
                    ),
                ],
                &["name_or_id"],
            ),
            schema::any_object(),
            Read,
            false,
            true,
        ),
        spec(
            "resolve_environment",
            "Where a tool acting on the resource runs (host or a container, and why). activate also makes the environment ready (starts a trusted devcontainer).",
            object(
                &[
                    ("resource", name_or_id()),
                    ("plan", string("The plan whose settings apply.")),
                    (
                        "tool_env",
                        string(
                            "The tool's preference: required:container, preferred:container or specific:NAME.",
                        ),
                    ),
                    (
                        "activate",
                        boolean("Make the environment ready, as running a tool would."),
                    ),
                ],
                &["resource"],
            ),
            schema::any_object(),
            Read,
            false,
            true,
        ),
        spec(
            "sandbox_create",
            "Create a sandbox of a resource: a private working copy (git worktree, copy, overlay or transaction) to change, checkpoint, roll back, diff and apply.",
            object(
                &[
                    ("resource", name_or_id()),
                    (
                        "strategy",
                        string(
                            "git_worktree, copy_on_write, overlay, transaction_rollback or none (default: the resource's).",
                        ),
                    ),
                ],
                &["resource"],
            ),
            schema::sandbox(),
            Write,
            false,
            false,
        ),
        spec(
            "sandbox_list",
            "List sandboxes, optionally of one resource.",
            object(&[("resource", name_or_id())], &[]),
            schema::list_of("sandboxes", schema::sandbox()),
            Read,
            false,
            true,
        ),
        spec(
            "sandbox_show",
            "Show one sandbox: its working directory, state and checkpoints.",
            id(),
            schema::sandbox(),
            Read,
            false,
            true,
        ),
        spec(
            "sandbox_checkpoint",
            "Record the sandbox's working copy as a checkpoint to roll back to.",
            object(
                &[
                    ("id", sandbox_id()),
                    ("label", string("A label for the checkpoint.")),
                ],
                &["id"],
            ),
            schema::any_object(),
            Write,
            false,
            false,
        ),
        spec(
            "sandbox_rollback",
            "Put the working copy back as a checkpoint had it (the last unless `checkpoint`).",
            object(
                &[
                    ("id", sandbox_id()),
                    (
                        "checkpoint",
                        string("A checkpoint's label, reference or abbreviation."),
                    ),
                ],
                &["id"],
            ),
            schema::any_object(),
            Write,
            true,
            true,
        ),
        spec(
            "sandbox_diff",
            "What changed in the sandbox's working copy against the original.",
            id(),
            schema::any_object(),
            Read,
            false,
            true,
        ),
        spec(
            "sandbox_apply",
            "Bring the sandbox's changes to the original (a branch for git_worktree; copied back otherwise).",
            id(),
            schema::any_object(),
            Write,
            true,
            false,
        ),
        spec(
            "sandbox_destroy",
            "Destroy a sandbox and its working copy.",
            id(),
            schema::any_object(),
            Write,
            true,
            true,
        ),
        spec(
            "type_add",
            "Register a custom resource type from a YAML type file.",
            object(
                &[
                    ("path", string("The type file's absolute path.")),
                    ("replace", boolean("Replace a type of that name.")),
                ],
                &["path"],
            ),
            schema::resource_type(),
            Admin,
            false,
            false,
        ),
        spec(
            "type_remove",
            "Remove a custom resource type that no resource uses.",
            object(&[("name", string("The type's name."))], &["name"]),
            schema::any_object(),
            Admin,
            true,
            true,
        ),
        spec(
            "plugin_add",
            "Add a handler component (.wasm) to the plugin store.",
            object(
                &[
                    ("path", string("The component's absolute path.")),
                    ("module", string("The module name (default: the file's).")),
                    ("replace", boolean("Replace a plugin of that module.")),
                ],
                &["path"],
            ),
            schema::any_object(),
            Admin,
            false,
            false,
        ),
        spec(
            "plugin_install",
            "Install a plugin from an OCI registry (HOST[:PORT]/REPOSITORY:TAG or @sha256:DIGEST) or an OCI layout (oci-layout:DIR:TAG), with the types it carries; only with a publisher signature a trusted key verifies (installing unsigned code is a person's decision, `agents plugin install --allow-unsigned`).",
            object(
                &[
                    ("reference", string("Where the plugin is.")),
                    (
                        "replace",
                        boolean("Replace a plugin of that module (and the types it carries)."),
                    ),
                ],
                &["reference"],
            ),
            schema::any_object(),
            Admin,
            false,
            false,
        ),
        spec(
            "plugin_remove",
            "Remove a plugin that no type uses.",
            object(
                &[("module", string("The plugin's module name."))],
                &["module"],
            ),
            schema::any_object(),
            Admin,
            true,
            true,
        ),
        spec(
            "registry_import",
            "Import a registry document (JSON or YAML, as `agents registry export` writes it).",
            object(
                &[
                    ("path", string("The document's absolute path.")),
                    ("dry_run", boolean("Only say what would be added.")),
                ],
                &["path"],
            ),
            schema::any_object(),
            Admin,
            false,
            true,
        ),
    ]
}
