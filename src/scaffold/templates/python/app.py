"""@@MODULE@@: a resource handler component for `agents`, built with componentize-py.

componentize-py generates the bindings (the `wit_world` package) from the
contract in `wit/` (copied from `agents plugin wit`) while it builds. Each
class is a Python class listed in CLASSES; a resource type names one as
`handler: @@MODULE@@:<Class>`. Every call runs in a fresh sandbox that sees
only the resource's location, read-only: keep no state between calls.
"""

import os

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host
from wit_world.imports.types import (
    ClassInfo,
    Discovered,
    HandlerError_InvalidArgs,
    HandlerError_Unsupported,
    Inspection,
    PluginInfo,
    Property,
    ResourceView,
)

# The module name types use in `handler: @@MODULE@@:<Class>`.
MODULE = "@@MODULE@@"
VERSION = "0.1.0"

# An operation a class does not define answers `unsupported` (for discover
# and content_hash the host takes that as "no children" / "no hash"). Raise
# Err(HandlerError_…(text)) to refuse: InvalidArgs, NotFound, Io, Failed.
@@CLASSES@@

# Every class of this module: add a new one here too.
CLASSES = {cls.__name__: cls() for cls in [@@CLASS_LIST@@]}


def _operation(class_: str, name: str):
    """The method `name` of the class called `class_`, or `unsupported`."""
    found = CLASSES.get(class_)
    if found is None:
        raise Err(
            HandlerError_Unsupported(
                f"{MODULE} has no class {class_}; it has {', '.join(CLASSES)}"
            )
        )
    method = getattr(found, name, None)
    if method is None:
        raise Err(HandlerError_Unsupported(f"{MODULE}:{class_} does not implement {name}"))
    return method


class Handler(exports.Handler):
    """The contract's `handler` interface: dispatch by class name."""

    def describe(self) -> PluginInfo:
        classes = [ClassInfo(name, (c.__doc__ or "").strip()) for name, c in CLASSES.items()]
        return PluginInfo(MODULE, VERSION, classes)

    def validate(self, class_: str, args: list[Property]) -> list[Property]:
        return _operation(class_, "validate")({p.key: p.value for p in args})

    def discover(self, class_: str, r: ResourceView) -> list[Discovered]:
        return _operation(class_, "discover")(r)

    def content_hash(self, class_: str, r: ResourceView) -> str:
        return _operation(class_, "content_hash")(r)

    def inspect(self, class_: str, r: ResourceView, file: str | None) -> Inspection:
        return _operation(class_, "inspect")(r, file)
