"""A resource registry with a sandboxed WebAssembly handler host, embedded in Python.

The specification's ``ResourceRegistryService`` is :class:`Registry`::

    from resource_host import Registry
    reg = Registry(home="/var/lib/agents")
    repo = reg.register_resource("git-checkout", name="local/repo", location="/src/repo")
    print(reg.get_resource_tree("local/repo", depth=1))

Refusals raise :class:`RegistryError` subclasses (:mod:`resource_host.errors`).
"""

from . import errors
from ._model import Resource, ResourceType
from ._native import __version__
from ._registry import Registry, Transaction
from .errors import *  # noqa: F403 — every error class, named once in errors.__all__

__all__ = [
    "Registry",
    "Transaction",
    "Resource",
    "ResourceType",
    "errors",
    "__version__",
]
__all__ += errors.__all__
