"""The registry's refusals as exceptions.

Every refusal of the library is a :class:`RegistryError`; its class is
the refusal's *kind* (the library's ``ErrorKind``, the word ``agents mcp``
puts in its tool errors), so a program catches the family it handles —
retry on :class:`ConflictError`, ask a person on :class:`NotTrustedError`,
fix its arguments on :class:`InvalidArgumentsError`.  ``str(err)`` is the
message ``agents`` prints after ``agents: error:``, word for word.

Every error has ``error_kind`` (the snake_case word, e.g. ``"not_found"``).
:class:`HandlerError` adds ``module``, ``class_name``, ``operation`` and
``kind`` (what went wrong in the call: ``trap``, ``timeout``,
``out_of_memory``, ``handler``, ``refused_result``, ``load``,
``sandbox``); :class:`CycleError` and :class:`IncompatibleLinkError` add
``parent`` and ``child``; :class:`OperationCancelledError` of a refresh
adds ``checked`` and ``changed``.
"""

from typing import Optional

__all__ = [
    "RegistryError",
    "NotFoundError",
    "ExistsError",
    "CycleError",
    "IncompatibleLinkError",
    "InvalidLinkError",
    "InvalidArgumentsError",
    "InUseError",
    "HandlerError",
    "NotTrustedError",
    "SandboxStateError",
    "SandboxFailedError",
    "SandboxRefusedError",
    "ContainerError",
    "NoRouteError",
    "ConflictError",
    "OtherMachineError",
    "OutsideRootsError",
    "StoreError",
    "OperationCancelledError",
    "RefusedError",
]


class RegistryError(Exception):
    """A refusal or failure of a registry operation."""

    #: The refusal's kind, as the library names it (``"not_found"``, …).
    error_kind: str = "refused"

    @property
    def message(self) -> str:
        """The message, as ``agents`` prints it."""
        return str(self.args[0]) if self.args else ""


class NotFoundError(RegistryError, LookupError):
    """No such resource, type, sandbox, checkpoint, plugin or link."""


class ExistsError(RegistryError):
    """A name, type or plugin that is taken."""


class CycleError(RegistryError):
    """A link that would close a cycle (the resource graph is a DAG)."""

    parent: Optional[str] = None
    child: Optional[str] = None


class IncompatibleLinkError(RegistryError):
    """A link that neither type's ``parent_types``/``child_types`` allows."""

    parent: Optional[str] = None
    child: Optional[str] = None


class InvalidLinkError(RegistryError):
    """A link of a resource to itself, or one that exists."""


class InvalidArgumentsError(RegistryError, ValueError):
    """An argument, name, file or document the operation cannot use."""


class InUseError(RegistryError):
    """What is asked for is in use (sandboxes, containers, resources of a type, …)."""


class HandlerError(RegistryError):
    """A handler trapped, timed out, ran out of memory or answered what the host refuses."""

    #: The handler's module (``None`` when the failure names none).
    module: Optional[str] = None
    #: The handler's class within its module.
    class_name: Optional[str] = None
    #: The operation called: ``describe``, ``validate``, ``discover``, ``content-hash``, ``inspect``.
    operation: Optional[str] = None
    #: What went wrong in the call (``trap``, ``timeout``, ``out_of_memory``, …).
    kind: Optional[str] = None


class NotTrustedError(RegistryError, PermissionError):
    """A devcontainer no person trusted (or whose configuration changed).

    Trust is a person's consent: it is given with ``agents resource trust``,
    never through this package.
    """


class SandboxStateError(RegistryError):
    """A sandbox not in a state that allows the operation (held by a session, interrupted)."""


class SandboxFailedError(RegistryError):
    """A sandbox strategy refused or failed (a conflict on apply, a git error, …)."""


class SandboxRefusedError(SandboxFailedError):
    """A sandbox strategy refused the resource (a read-only one, the wrong kind of file, …)."""


class ContainerError(RegistryError):
    """The container engine refused or failed."""


class NoRouteError(RegistryError):
    """No execution environment fits."""


class ConflictError(RegistryError):
    """Someone else changed what the operation read; running it again may work."""


class OtherMachineError(RegistryError):
    """The location belongs to another machine of a shared registry."""


class OutsideRootsError(RegistryError, PermissionError):
    """A location outside the roots the registry was given (``Registry(roots=…)``)."""


class StoreError(RegistryError):
    """The registry's store failed (disk, connection, schema)."""


class OperationCancelledError(RegistryError):
    """A ``progress`` callback answered ``False``: the operation stopped.

    A registration or discovery wrote nothing; a refresh kept what it had
    refreshed (``checked`` resources checked, ``changed`` of them changed).
    Not named ``CancelledError``, so that it never shadows
    :class:`asyncio.CancelledError` in a module that imports both.
    """

    #: Of a refresh: how many resources it checked, and changed, before it stopped.
    checked: Optional[int] = None
    changed: Optional[int] = None


class RefusedError(RegistryError):
    """Any other refusal."""
