"""What ``Registry`` and ``Transaction`` answer: every view, typed.

Resources and types are objects: :class:`Resource` and
:class:`ResourceType` are frozen dataclasses with the specification's
field names (those of ``agents … -o json``): attributes cannot be
reassigned, lists are tuples and mappings are read-only, and
``to_dict()`` gives the JSON-shaped dict back (timestamps as the
registry's ISO 8601 text). Every other answer — reports, sandboxes,
checkpoints, diffs, links, trees, plugins — is the plain dict of its
``-o json`` form, typed here as a ``TypedDict`` of the same name's
fields: ``reg.show_sandbox(sid)["workdir"]`` is checked by mypy, and the
dicts compare, copy and ``json.dumps`` as dicts do.

Why two kinds: resources and types were objects from the start (attribute
access, frozen, ``datetime`` timestamps) and programs rely on that; the
reports are documents people index and serialise, and a ``TypedDict``
types them without changing what they are at run time.
"""

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypedDict


def parse_timestamp(text: str) -> datetime:
    """The registry's RFC 3339 UTC text as an aware ``datetime``."""
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)


def _frozen(value: Any) -> Any:
    """Lists as tuples and dicts as read-only mappings, all the way down."""
    if type(value) is dict:
        return MappingProxyType(
            {k: v if type(v) in _SCALARS else _frozen(v) for k, v in value.items()}
        )
    if type(value) is list:
        return tuple(v if type(v) in _SCALARS else _frozen(v) for v in value)
    return value


_SCALARS = (str, int, float, bool, type(None))


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return value


class _View:
    """What both objects share: built from the JSON view, ``to_dict()`` and a short ``repr``."""

    @classmethod
    def _from_view(cls, view: Dict[str, Any]) -> Any:
        # Filled in place of __init__: a frozen dataclass's own __init__
        # sets each field through object.__setattr__, which cost more than
        # the registry call itself (show_resource is on an agent's hot path).
        obj = object.__new__(cls)
        plain, read, defaulted = _reads(cls)
        fields = obj.__dict__
        fields.update({name: view[name] for name in plain})
        fields.update({name: how(view[name]) for name, how in read})
        fields.update({name: how(view.get(name, default)) for name, how, default in defaulted})
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The object as the JSON view gives it (plain dicts and lists)."""
        return {
            f.name: _thawed(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
        }


_Reads = Tuple[List[str], List[Tuple[str, Callable[[Any], Any]]], List[Tuple[str, Callable[[Any], Any], Any]]]
_READS: Dict[type, _Reads] = {}


def _reads(cls: type) -> _Reads:
    """How ``cls``'s fields are read from the view: those taken as they are;
    those read (timestamps parsed, lists and mappings frozen); and those with
    a default, which the view may leave out."""
    if cls not in _READS:
        plain, read, defaulted = [], [], []
        for f in dataclasses.fields(cls):
            how = _READERS.get(f.type) or (_frozen if "[" in str(f.type) else _same)
            if f.default is not dataclasses.MISSING:
                defaulted.append((f.name, how, f.default))
            elif how is _same:
                plain.append(f.name)
            else:
                read.append((f.name, how))
        _READS[cls] = (plain, read, defaulted)
    return _READS[cls]


def _same(value: Any) -> Any:
    return value


#: Readers by field type; other generic types (tuples, mappings) are frozen deep.
_READERS: Dict[Any, Callable[[Any], Any]] = {
    datetime: parse_timestamp, Tuple[str, ...]: tuple, Mapping[str, bool]: MappingProxyType,
    Optional[str]: _same,
}


@dataclass(frozen=True, repr=False)
class Resource(_View):
    """A registered resource (the specification's ``Resource``)."""

    #: Its ULID.
    resource_id: str
    #: Its namespaced name (``local/api-repo``), if it has one.
    name: Optional[str]
    #: The type it belongs to.
    resource_type_name: str
    #: ``physical`` or ``virtual``.
    classification: str
    description: Optional[str]
    #: The filesystem path of a physical resource.
    location: Optional[str]
    #: The per-resource sandbox strategy override (``None``: the type's).
    sandbox_strategy: Optional[str]
    #: The hash of its contents, for change detection.
    content_hash: Optional[str]
    #: Parent resource ids in the DAG.
    parents: Tuple[str, ...]
    #: Child resource ids in the DAG.
    children: Tuple[str, ...]
    #: Type-specific properties (registration arguments, handler answers).
    properties: Mapping[str, Any]
    #: ``readable``, ``writable``, ``sandboxable``, ``checkpointable``.
    capabilities: Mapping[str, bool]
    created_at: datetime
    updated_at: datetime
    #: Found by discovery rather than registered by someone.
    auto_discovered: bool = False
    read_only: bool = False
    #: Why the last refresh could not bring it up to date (``None``: current).
    stale: Optional[str] = None
    #: The resources that are the same thing as this one (``show_resource`` only).
    equivalents: Tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The name if it has one, else the id: how messages refer to it."""
        return self.name or self.resource_id

    def __repr__(self) -> str:
        where = f" at {self.location!r}" if self.location else ""
        return (
            f"<Resource {self.label} ({self.resource_type_name}) "
            f"id={self.resource_id}{where}>"
        )


@dataclass(frozen=True, repr=False)
class ResourceType(_View):
    """A resource type, effective after inheritance (the specification's ``ResourceTypeSpec``)."""

    #: Unique name: bare for built-ins, ``namespace/name`` for custom types.
    name: str
    description: str
    #: ``physical`` or ``virtual``.
    resource_kind: str
    #: The default sandbox strategy of its resources.
    sandbox_strategy: str
    #: Whether people register resources of it (``register_resource``).
    user_addable: bool
    built_in: bool
    #: The registration arguments: each a mapping with ``name``, ``type``,
    #: ``required``, ``description``, ``default``, ``choices``.
    cli_args: Tuple[Mapping[str, Any], ...]
    parent_types: Tuple[str, ...]
    child_types: Tuple[str, ...]
    #: ``module:Class``, or ``None`` for a type without a handler.
    handler: Optional[str]
    #: ``read``, ``write``, ``sandbox``, ``checkpoint``.
    capabilities: Mapping[str, bool]
    auto_discovery: Optional[Mapping[str, Any]]
    equivalence: Optional[Mapping[str, Any]]
    #: The type it inherits from, if any.
    inherits: Optional[str]
    #: ``builtin``, or the file it was registered from.
    source: str
    created_at: datetime
    updated_at: datetime

    def __repr__(self) -> str:
        kind = "built-in" if self.built_in else self.source
        return f"<ResourceType {self.name} ({self.resource_kind}, {self.sandbox_strategy}, {kind})>"


#: A ``progress=`` callback: called with two counts after each handler call
#: (registration and discovery: handlers asked, resources found; refresh:
#: resources checked, of them changed); answering ``False`` stops the
#: operation (``OperationCancelledError``), and an exception it raises stops
#: it and is raised from the call.
Progress = Callable[[int, int], Optional[bool]]


# ---- the dict views (the ``-o json`` forms), in the order of Registry's methods ----

_ListStr = List[str]
_Resource = TypedDict("_Resource", {
    "resource_id": str, "name": Optional[str], "resource_type_name": str,
    "classification": str, "description": Optional[str], "location": Optional[str],
    "sandbox_strategy": Optional[str], "content_hash": Optional[str],
    "parents": _ListStr, "children": _ListStr, "properties": Dict[str, Any],
    "capabilities": Dict[str, bool], "created_at": str, "updated_at": str,
    "auto_discovered": bool, "read_only": bool,
})


class ResourceView(_Resource, total=False):
    """A resource inside a report: :class:`Resource`'s fields, as JSON."""

    stale: str
    equivalents: _ListStr
    #: Who registered it: ``face`` (``cli``, ``mcp``, ``python``) and ``name``.
    registered_by: Dict[str, str]


_Removal = TypedDict("_Removal", {"dry_run": bool, "removed": List[ResourceView], "unlinked": List[ResourceView]})


class RemovalReport(_Removal, total=False):
    """``remove_resource``; ``sandboxes`` / ``containers``: what refuses it (see ``force``)."""

    sandboxes: _ListStr
    containers: _ListStr


DiscoveryReport = TypedDict("DiscoveryReport", {
    "resource": ResourceView, "added": List[ResourceView], "removed": List[ResourceView],
    "kept": int, "updated": int,
})
ChangedResource = TypedDict("ChangedResource", {
    "resource_id": str, "resource": str, "properties_changed": bool, "added": _ListStr, "removed": _ListStr,
    "updated": int,
})
StaleResource = TypedDict("StaleResource", {"resource_id": str, "resource": str, "reason": str})
RefreshReport = TypedDict("RefreshReport", {
    "checked": int, "unchanged": int, "changed": List[ChangedResource], "stale": List[StaleResource],
})
InspectView = TypedDict("InspectView", {
    "resource": str, "handler": str, "file": Optional[str], "text": str, "fields": Dict[str, str],
})
LinkView = TypedDict("LinkView", {"parent_id": str, "child_id": str, "auto_discovered": bool, "created_at": str})
_Tree = TypedDict("_Tree", {
    "resource_id": str, "name": Optional[str], "resource_type_name": str, "location": Optional[str],
    "auto_discovered": bool, "children": List["TreeView"],
})


class TreeView(_Tree, total=False):
    """``get_resource_tree``; ``repeated``: shown above, children not repeated; ``placeholder``: a local-mode rule's pattern."""

    repeated: bool
    placeholder: str


GraphView = TypedDict("GraphView", {
    "root": str, "nodes": List[Dict[str, Any]], "edges": List[Dict[str, Any]], "folded": List[Dict[str, Any]],
})
PluginView = TypedDict("PluginView", {
    "module": str, "built_in": bool, "version": str, "sha256": str, "classes": List[Dict[str, Any]],
    "size_bytes": int, "source": str, "added_at": str, "used_by": _ListStr, "types": _ListStr,
    "provenance": Optional[Dict[str, Any]],
})
InstallView = TypedDict("InstallView", {
    "plugin": PluginView, "types_added": _ListStr, "types_replaced": _ListStr, "types_unchanged": _ListStr,
})
_Checkpoint = TypedDict("_Checkpoint", {"number": int, "reference": str, "created_at": str})


class CheckpointView(_Checkpoint, total=False):
    """A sandbox's checkpoint (``checkpoint_sandbox``, ``rollback_sandbox``, ``SandboxView``)."""

    label: str


_Sandbox = TypedDict("_Sandbox", {
    "sandbox_id": str, "resource_id": str, "resource": str, "strategy": str, "state": str,
    "isolated": bool, "original": str, "workdir": Optional[str], "area": str,
    "checkpoints": List[CheckpointView], "created_at": str, "updated_at": str,
})


class SandboxView(_Sandbox, total=False):
    """A sandbox (``create_sandbox``, ``show_sandbox``, ``list_sandboxes``, ``destroy_sandbox``)."""

    overlay_mode: str
    base: str
    last_error: str
    enumerated: List[Dict[str, Any]]


SandboxDiff = TypedDict("SandboxDiff", {"added": _ListStr, "modified": _ListStr, "deleted": _ListStr, "commits": _ListStr})
#: ``apply_sandbox``: ``branch`` (git_worktree) or ``copied_back`` (the others).
Applied = TypedDict("Applied", {"branch": str, "copied_back": SandboxDiff}, total=False)
#: ``resolve_environment`` (``hint`` and ``trust`` only when they apply).
RouteView = TypedDict("RouteView", {
    "environment": Dict[str, Any], "level": str, "priority": int, "reason": str, "hint": str, "trust": Dict[str, Any],
}, total=False)
Tally = TypedDict("Tally", {"added": int, "unchanged": int})
ImportReport = TypedDict("ImportReport", {
    "dry_run": bool, "types": Tally, "plugins": Tally, "resources": Tally, "links": Tally,
    "environment_settings": Tally, "plugin_files": _ListStr, "same_builtin_catalogue": bool,
    "credentials_removed": int,
})
InfoView = TypedDict("InfoView", {
    "backend": str, "location": str, "database": Optional[str], "schema_version": int,
    "supported_schema_version": int, "document_version": int, "builtin_catalogue": Optional[str],
    "size_bytes": Optional[int], "wal_bytes": Optional[int], "counts": Dict[str, int],
})
#: ``export_document``: the registry document (``format``, ``version``, ``types``, ``resources``, …).
RegistryDocument = Dict[str, Any]
#: ``Transaction.execute``, per statement: ``{"Rows": {"columns", "rows", "truncated"}}`` or ``{"Changed": n}``.
StatementOutcome = Dict[str, Any]
TxnCheckpoint = TypedDict("TxnCheckpoint", {"name": str, "label": Optional[str]})
TableChanges = TypedDict("TableChanges", {"inserted": int, "updated": int, "deleted": int})
#: ``Transaction.changes`` / ``apply``: rows per table, and schema changes.
TxnChanges = TypedDict("TxnChanges", {"rows": Dict[str, TableChanges], "schema": List[Any]})

_Event = TypedDict("_Event", {
    "seq": int, "at": str, "op": str, "kind": str, "id": Optional[str], "name": Optional[str],
    "changes": Optional[Dict[str, Any]], "actor": str, "via": str,
})


class Event(_Event, total=False):
    """One recorded change (``agents events -o json``): its number, time,
    operation, subject (``name`` as it was then), what changed, who and
    through which face (``cli``, ``mcp``, ``python``, ``library``,
    ``watch``)."""

    #: The subject's name now, when it still exists under another one.
    current_name: str
