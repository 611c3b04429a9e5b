"""A resource registry with a sandboxed WebAssembly handler host, embedded in Python.

The specification's ``ResourceRegistryService`` is :class:`Registry`::

    from resource_host import Registry
    reg = Registry(home="/var/lib/agents")
    repo = reg.register_resource("git-checkout", name="local/repo", location="/src/repo")
    print(reg.get_resource_tree("local/repo", depth=1))

``Registry`` and ``Transaction`` are the native classes themselves (their
signatures and documentation are in ``_native.pyi``); what they answer is
typed in :mod:`resource_host.views`. Refusals raise :class:`RegistryError`
subclasses (:mod:`resource_host.errors`).
"""

# Re-exported by the `X as X` form, and every error class by errors.__all__:
# no __all__ here, as mypy cannot follow `__all__ += errors.__all__` (stubtest
# then finds the two apart), and `import *` takes the same names without it.
from . import errors as errors, views as views
from ._native import Registry as Registry, Transaction as Transaction, __version__ as __version__
from .errors import *  # noqa: F403
from .views import Resource as Resource, ResourceType as ResourceType
