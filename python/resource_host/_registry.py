"""``Registry``: the specification's ``ResourceRegistryService``, and what the host adds.

Each method is one operation of the Rust library's façade
(``resource_host::registry::Registry``), run with the GIL released.
Methods that answer a resource or a type answer :class:`Resource` /
:class:`ResourceType`; the others answer the operation's view as plain
dicts and lists, in the form ``agents … -o json`` prints.  Refusals raise
the classes of :mod:`resource_host.errors`.
"""

import json
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _native
from ._model import Resource, ResourceType

__all__ = ["Registry", "Transaction"]

PathLike = Union[str, "os.PathLike[str]"]
#: A progress callback: called with two counts after each handler call
#: (registration and discovery: handlers asked, resources found; refresh:
#: resources checked, of them changed); answering ``False`` stops the
#: operation (:class:`~resource_host.errors.OperationCancelledError`), and an
#: exception it raises stops it and is raised from the call.
Progress = Callable[[int, int], Optional[bool]]
Document = Union[str, Mapping[str, Any]]


def _arg_text(name: str, value: Any) -> str:
    """A type argument as the text ``agents resource add --NAME VALUE`` would pass."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, os.PathLike):
        return str(os.fspath(value))
    raise TypeError(
        f"argument {name}={value!r}: give a str, an int, a bool or a path, "
        f"not {type(value).__name__}"
    )


class Registry:
    """A registry under a home directory.

    ``home`` is where the registry keeps its files (``registry.db``,
    plugins, sandboxes); default ``$AGENTS_HOME``, else
    ``$XDG_DATA_HOME/agents`` (``~/.local/share/agents``). ``registry`` is
    where the registry itself lives when not the home's ``registry.db``:
    ``sqlite:///path/registry.db`` or ``postgres://user@host/db`` (default
    ``$AGENTS_REGISTRY``). The rest is read from the environment as
    ``agents`` reads it (``PATH`` for ``git`` and the container tools,
    ``AGENTS_OVERLAY``, the OS user whose trust decisions apply).
    ``handler_timeout``: seconds one handler call may take (default 10,
    as ``agents --handler-timeout``). ``actor``: the label this program
    is recorded under as the registrant of what it registers and links
    (face ``python``; default: the OS user). ``roots``: the directories
    the registry may act in — registration, inspect, discovery, refresh,
    sandboxes, removal and links of a resource, import, type and plugin
    files outside every one are refused with :class:`OutsideRootsError`
    (what is registered elsewhere stays readable); each must be an
    existing directory, compared by its real path. Default: anywhere the
    user can, as at the CLI. Give it when the caller is an agent.

    One ``Registry`` may be used from several threads at once: each call
    runs on an open registry of its own (a few are kept), with the GIL
    released, so a long discovery does not hold up a ``show_resource``.
    From asyncio, run calls in a thread: ``await asyncio.to_thread(reg.show_resource, "local/repo")``.

    There is no ``trust`` method: trusting a devcontainer is a person's
    consent, given with ``agents resource trust`` after reading what it
    will run — never something a program holding a registry can do.
    """

    def __init__(
        self,
        home: Optional[PathLike] = None,
        registry: Optional[str] = None,
        *,
        handler_timeout: Optional[float] = None,
        actor: Optional[str] = None,
        roots: Optional[Sequence[PathLike]] = None,
    ) -> None:
        self._native = _native.Registry(
            os.fspath(home) if home is not None else None,
            registry,
            handler_timeout,
            actor,
            [os.fspath(r) for r in roots] if roots is not None else None,
        )

    @property
    def home(self) -> str:
        """The home directory."""
        return os.fspath(self._native.home)

    def __repr__(self) -> str:
        return f"<Registry home={self.home!r}>"

    # ---- types ----

    def bootstrap_builtin_types(self) -> None:
        """Register the built-in types (idempotent)."""
        self._native.bootstrap_builtin_types()

    def register_type(self, config_path: PathLike, *, replace: bool = False) -> ResourceType:
        """Register the custom type defined in the YAML file at ``config_path``.

        ``replace=True`` replaces a custom type of the same name (still
        checked against the resources and types that rely on it).
        """
        view = self._native.register_type(os.fspath(config_path), replace)
        return ResourceType._from_view(view)

    def list_types(self, namespace: Optional[str] = None) -> List[ResourceType]:
        """Every type, or those in ``namespace`` (``"builtin"`` for the built-ins)."""
        return [ResourceType._from_view(v) for v in self._native.list_types(namespace)]

    def remove_type(self, name: str) -> None:
        """Remove a custom type no resource or other type relies on."""
        self._native.remove_type(name)

    def show_type(self, name: str) -> ResourceType:
        """One type, effective (after inheritance)."""
        return ResourceType._from_view(self._native.show_type(name))

    # ---- resources ----

    def register_resource(
        self,
        type_name: str,
        name: Optional[str] = None,
        location: Optional[PathLike] = None,
        *,
        description: Optional[str] = None,
        sandbox_strategy: Optional[str] = None,
        read_only: bool = False,
        progress: Optional[Progress] = None,
        **type_args: Any,
    ) -> Resource:
        """Register a resource of ``type_name`` and discover what lies below it.

        ``location`` is the type's ``path`` argument (relative paths are
        taken from the current directory); the type's other arguments
        (its ``cli_args``) are keywords, as ``agents resource add`` takes
        them as flags: ``register_resource("git-checkout", name="local/repo",
        location="/src/repo", branch="main")``. A keyword spelled with
        ``_`` names the argument spelled with ``-`` when the type has no
        argument of that name. Values are ``str``, ``int``, ``bool`` or a
        path.

        ``progress`` is called as the discovery below it goes (see
        :data:`Progress`); cancelled, nothing is registered.
        """
        args = [(k, _arg_text(k, v)) for k, v in type_args.items()]
        if any("_" in k for k, _ in args):
            known = set(self._native.registration_form_args(type_name))
            args = [
                (k.replace("_", "-") if k not in known and k.replace("_", "-") in known else k, v)
                for k, v in args
            ]
        view = self._native.register_resource(
            type_name,
            name,
            os.fspath(location) if location is not None else None,
            args,
            description,
            sandbox_strategy,
            read_only,
            progress,
        )
        return Resource._from_view(view)

    def list_resources(self, type_name: Optional[str] = None, *, exact: bool = False) -> List[Resource]:
        """Resources in registration order; of ``type_name`` or its subtypes (``exact``: that type only)."""
        return [Resource._from_view(v) for v in self._native.list_resources(type_name, exact)]

    def show_resource(self, name_or_id: str) -> Resource:
        """One resource by namespaced name or ULID."""
        return Resource._from_view(self._native.show_resource(name_or_id))

    def remove_resource(self, name_or_id: str, *, dry_run: bool = False, force: bool = False) -> Dict[str, Any]:
        """Remove a resource, its links and the discovered resources only it kept.

        ``dry_run``: only report what would go. ``force``: first destroy
        the sandboxes and containers that would refuse it.
        """
        return self._native.remove_resource(name_or_id, dry_run, force)

    def auto_discover_children(self, resource_id: str) -> Dict[str, Any]:
        """Run the type's discovery rules below a resource, one level (the specification's call).

        Answers the discovery report: ``added``, ``removed``, ``updated``, ``kept``.
        """
        return self._native.discover(resource_id, 1)

    def discover(
        self, name_or_id: str, depth: Optional[int] = 1, *, progress: Optional[Progress] = None
    ) -> Dict[str, Any]:
        """Discover again below a resource, ``depth`` levels (``None``: all the way down).

        ``progress`` is called after each handler call (see :data:`Progress`);
        cancelled, the discovery writes nothing.
        """
        return self._native.discover(name_or_id, depth, progress)

    def refresh(self, *names_or_ids: str, progress: Optional[Progress] = None) -> Dict[str, Any]:
        """Refresh the resources named (none: every resource someone registered) and what lies below them.

        ``progress`` is called after each resource (see :data:`Progress`);
        cancelled, what was refreshed stays refreshed (each resource is its
        own transaction) and nothing further is checked.
        """
        return self._native.refresh(list(names_or_ids), progress)

    def inspect(self, name_or_id: str, file: Optional[str] = None) -> Dict[str, Any]:
        """The handler's description of a resource, or of one file in it."""
        return self._native.inspect(name_or_id, file)

    # ---- the DAG ----

    def link_child(self, parent: str, child: str) -> Dict[str, Any]:
        """Link ``child`` below ``parent``; answers the link."""
        return self._native.link_child(parent, child)

    def unlink_child(self, parent: str, child: str) -> None:
        """Remove the link ``parent`` → ``child`` (both resources stay)."""
        self._native.unlink_child(parent, child)

    def get_children(self, name_or_id: str) -> List[Resource]:
        """The direct children of a resource."""
        return [Resource._from_view(v) for v in self._native.get_children(name_or_id)]

    def get_resource_tree(
        self, name_or_id: str, depth: Optional[int] = None, type_filter: Optional[str] = None
    ) -> Dict[str, Any]:
        """The tree below a resource, ``depth`` links deep (all when ``None``).

        With ``type_filter``, only the paths to resources of that type (or
        its subtypes). Each node: ``resource_id``, ``name``,
        ``resource_type_name``, ``location``, ``auto_discovered``,
        ``children``. A tree deeper than 60 links is refused
        (``InvalidArgumentsError`` naming the bound): ask for ``depth``.
        """
        return self._native.get_resource_tree(name_or_id, depth, type_filter)

    def graph(
        self,
        name_or_id: str,
        *,
        format: str = "json",
        depth: Optional[int] = None,
        type_filter: Optional[str] = None,
        max_children: int = 12,
        max_nodes: int = 150,
    ) -> Any:
        """The DAG below a resource, as ``agents resource graph`` draws it.

        ``format="json"``: the view (``root``, ``nodes``, ``edges``,
        ``folded``) as a dict; ``"dot"``, ``"mermaid"`` or ``"svg"``: the
        drawing as text. Past ``max_children`` per resource or
        ``max_nodes`` in all, what is not drawn is folded into a
        "+N more" of its parent.
        """
        return self._native.graph(name_or_id, format, depth, type_filter, max_children, max_nodes)

    # ---- plugins ----

    def add_plugin(self, path: PathLike, *, module: Optional[str] = None, replace: bool = False) -> Dict[str, Any]:
        """Add the WebAssembly component at ``path`` to the plugin store."""
        return self._native.add_plugin(os.fspath(path), module, replace)

    def install_plugin(
        self, reference: str, *, allow_unsigned: bool = False, replace: bool = False
    ) -> Dict[str, Any]:
        """Install a plugin (and the types it carries) from an OCI registry
        (``HOST[:PORT]/REPOSITORY:TAG``, ``…@sha256:DIGEST``) or an OCI layout
        (``oci-layout:DIR:TAG``); refused without a publisher signature a
        trusted key verifies unless ``allow_unsigned``."""
        return self._native.install_plugin(reference, allow_unsigned, replace)

    def list_plugins(self) -> List[Dict[str, Any]]:
        """The built-in modules, then the added ones."""
        return self._native.list_plugins()

    # ---- sandboxes ----

    def create_sandbox(self, name_or_id: str, strategy: Optional[str] = None) -> Dict[str, Any]:
        """Make a sandbox of a resource (``strategy``: else the resource's, else its type's)."""
        return self._native.create_sandbox(name_or_id, strategy)

    def list_sandboxes(self, name_or_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every sandbox, or one resource's, oldest first."""
        return self._native.list_sandboxes(name_or_id)

    def show_sandbox(self, sandbox_id: str) -> Dict[str, Any]:
        """One sandbox and its checkpoints."""
        return self._native.show_sandbox(sandbox_id)

    def checkpoint_sandbox(self, sandbox_id: str, label: Optional[str] = None) -> Dict[str, Any]:
        """Record the working copy's whole state as the next checkpoint."""
        return self._native.checkpoint_sandbox(sandbox_id, label)

    def rollback_sandbox(self, sandbox_id: str, to: Optional[str] = None) -> Dict[str, Any]:
        """Bring the working copy back to a checkpoint (number or label; default the latest)."""
        return self._native.rollback_sandbox(sandbox_id, to)

    def diff_sandbox(self, sandbox_id: str) -> Dict[str, Any]:
        """What changed in the sandbox against the original."""
        return self._native.diff_sandbox(sandbox_id)

    def apply_sandbox(self, sandbox_id: str) -> Dict[str, Any]:
        """Promote the sandbox's changes to the original, all or nothing."""
        return self._native.apply_sandbox(sandbox_id)

    def destroy_sandbox(self, sandbox_id: str) -> Dict[str, Any]:
        """Remove everything the sandbox made, and its rows."""
        return self._native.destroy_sandbox(sandbox_id)

    def open_transaction(
        self,
        sandbox_id: str,
        *,
        input_timeout: Optional[float] = None,
        max_growth_bytes: Optional[int] = None,
    ) -> "Transaction":
        """Hold a ``transaction_rollback`` sandbox: its connection, inside its transaction.

        Use it as a context manager::

            with reg.open_transaction(sandbox["sandbox_id"]) as txn:
                txn.execute("UPDATE t SET x = 1")
                txn.apply()       # commit; without it, leaving the block rolls back

        Leaving the ``with`` block without :meth:`Transaction.apply` rolls
        everything back (whether or not an exception is propagating): the
        sandbox's changes reach the database only when promoted on purpose.
        ``input_timeout`` (seconds per ``execute``) and ``max_growth_bytes``
        bound the session (defaults 60 s, 1 GiB).
        """
        return Transaction(
            self._native.open_transaction(sandbox_id, input_timeout, max_growth_bytes)
        )

    # ---- environments ----

    def resolve_environment(
        self, name_or_id: str, plan: Optional[str] = None, tool: Optional[str] = None
    ) -> Dict[str, Any]:
        """Where a tool acting on a resource runs, and which level decided.

        ``tool``: what the tool asks for — ``required:container``,
        ``preferred:container``, ``specific:NAME``, or ``None``. Nothing is
        built or started.
        """
        return self._native.resolve_environment(name_or_id, plan, tool)

    # ---- moving data ----

    def export_document(self, *, with_plugins: bool = False) -> Dict[str, Any]:
        """Everything worth moving, as one document (``with_plugins``: each component embedded)."""
        document: Dict[str, Any] = json.loads(self._native.export_document(with_plugins))
        return document

    def import_document(self, document: Document, *, dry_run: bool = False) -> Dict[str, Any]:
        """Import a document (a dict, or JSON/YAML text); ``dry_run`` checks and writes nothing."""
        text = document if isinstance(document, str) else json.dumps(document)
        return self._native.import_document(text, dry_run)

    def info(self) -> Dict[str, Any]:
        """Which backend, where, which schema, how much."""
        return self._native.info()


class Transaction:
    """A held ``transaction_rollback`` sandbox (see :meth:`Registry.open_transaction`).

    SQL runs inside the sandbox's transaction; statements that would end or
    escape it (``COMMIT``, ``ATTACH``, …) are refused. Other writers wait
    for the database's lock while it is held; readers see committed data.
    """

    def __init__(self, native: "_native.Transaction") -> None:
        self._native = native

    def __enter__(self) -> "Transaction":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.discard()

    def __repr__(self) -> str:
        return f"<Transaction {'open' if self.is_open else 'ended'}>"

    @property
    def is_open(self) -> bool:
        """Whether the transaction is still open."""
        return self._native.is_open

    def execute(self, sql: str) -> List[Dict[str, Any]]:
        """Run one input of SQL (all or nothing); one outcome per statement.

        Each outcome is ``{"Rows": {"columns", "rows", "truncated"}}`` or ``{"Changed": n}``.
        """
        return self._native.execute(sql)

    def checkpoint(self, label: Optional[str] = None) -> str:
        """Record a checkpoint (a savepoint); answers its name."""
        return self._native.checkpoint(label)

    def checkpoints(self) -> List[Dict[str, Any]]:
        """The checkpoints so far: ``name`` and ``label`` of each."""
        return self._native.checkpoints()

    def rollback(self, to: Optional[str] = None) -> Dict[str, Any]:
        """Back to a checkpoint (its name or label; default the latest)."""
        return self._native.rollback(to)

    def changes(self) -> Dict[str, Any]:
        """What the transaction changed so far: rows per table and schema changes."""
        return self._native.changes()

    def apply(self) -> Dict[str, Any]:
        """Commit to the database and end the transaction; answers what it changed."""
        return self._native.apply()

    def discard(self) -> None:
        """Roll everything back and end the transaction (a no-op once ended)."""
        self._native.discard()
