"""The registry's objects: :class:`Resource` and :class:`ResourceType`.

Both are frozen dataclasses with the specification's field names (those of
``agents … -o json``): attributes cannot be reassigned, lists are tuples and
mappings are read-only.  ``to_dict()`` gives the JSON-shaped dict back
(timestamps as the registry's ISO 8601 text).
"""

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, Dict, Mapping, Optional, Tuple

__all__ = ["Resource", "ResourceType", "parse_timestamp"]


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
    """What both objects share: ``to_dict()`` and a short ``repr``."""

    def to_dict(self) -> Dict[str, Any]:
        """The object as the JSON view gives it (plain dicts and lists)."""
        return {
            f.name: _thawed(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
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

    @classmethod
    def _from_view(cls, view: Dict[str, Any]) -> "Resource":
        # Filled in place of __init__: a frozen dataclass's own __init__
        # sets each field through object.__setattr__, which cost more than
        # the registry call itself (show_resource is on an agent's hot path).
        obj = object.__new__(cls)
        obj.__dict__.update(
            resource_id=view["resource_id"],
            name=view["name"],
            resource_type_name=view["resource_type_name"],
            classification=view["classification"],
            description=view["description"],
            location=view["location"],
            sandbox_strategy=view["sandbox_strategy"],
            content_hash=view["content_hash"],
            parents=tuple(view["parents"]),
            children=tuple(view["children"]),
            properties=_frozen(view["properties"]),
            capabilities=MappingProxyType(view["capabilities"]),
            created_at=parse_timestamp(view["created_at"]),
            updated_at=parse_timestamp(view["updated_at"]),
            auto_discovered=view.get("auto_discovered", False),
            read_only=view.get("read_only", False),
            stale=view.get("stale"),
            equivalents=tuple(view.get("equivalents", ())),
        )
        return obj

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

    @classmethod
    def _from_view(cls, view: Dict[str, Any]) -> "ResourceType":
        return cls(
            name=view["name"],
            description=view["description"],
            resource_kind=view["resource_kind"],
            sandbox_strategy=view["sandbox_strategy"],
            user_addable=view["user_addable"],
            built_in=view["built_in"],
            cli_args=_frozen(view["cli_args"]),
            parent_types=tuple(view["parent_types"]),
            child_types=tuple(view["child_types"]),
            handler=view["handler"],
            capabilities=_frozen(view["capabilities"]),
            auto_discovery=_frozen(view["auto_discovery"]),
            equivalence=_frozen(view["equivalence"]),
            inherits=view["inherits"],
            source=view["source"],
            created_at=parse_timestamp(view["created_at"]),
            updated_at=parse_timestamp(view["updated_at"]),
        )

    def __repr__(self) -> str:
        kind = "built-in" if self.built_in else self.source
        return f"<ResourceType {self.name} ({self.resource_kind}, {self.sandbox_strategy}, {kind})>"
