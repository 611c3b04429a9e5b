"""The errors: one class per kind of refusal, and the CLI's words."""

import pytest

import resource_host
from resource_host import errors

from conftest import cli_error


def test_every_kind_of_the_library_has_its_class():
    kinds = {
        "not_found": errors.NotFoundError,
        "exists": errors.ExistsError,
        "cycle": errors.CycleError,
        "incompatible_link": errors.IncompatibleLinkError,
        "invalid_link": errors.InvalidLinkError,
        "invalid_arguments": errors.InvalidArgumentsError,
        "in_use": errors.InUseError,
        "handler_failed": errors.HandlerError,
        "not_trusted": errors.NotTrustedError,
        "sandbox_state": errors.SandboxStateError,
        "sandbox_failed": errors.SandboxFailedError,
        "container_failed": errors.ContainerError,
        "no_route": errors.NoRouteError,
        "conflict": errors.ConflictError,
        "other_machine": errors.OtherMachineError,
        "outside_roots": errors.OutsideRootsError,
        "store": errors.StoreError,
        "refused": errors.RefusedError,
    }
    for cls in kinds.values():
        assert issubclass(cls, resource_host.RegistryError)
    assert issubclass(errors.NotFoundError, LookupError)
    assert issubclass(errors.InvalidArgumentsError, ValueError)
    assert issubclass(errors.NotTrustedError, PermissionError)
    assert set(errors.__all__) >= {c.__name__ for c in kinds.values()} | {"SandboxRefusedError"}


@pytest.fixture
def linked(reg, tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        reg.register_resource("fs-directory", name=f"local/{name}", location=tmp_path / name)
    reg.link_child("local/a", "local/b")
    return reg


def refusal(call):
    with pytest.raises(resource_host.RegistryError) as refused:
        call()
    return str(refused.value)


def test_messages_are_the_clis_word_for_word(linked, home, agents_bin):
    reg = linked
    cases = [
        (lambda: reg.show_resource("local/nothing"), ["resource", "show", "local/nothing"]),
        (lambda: reg.link_child("local/b", "local/a"), ["resource", "link-child", "local/b", "local/a"]),
        (lambda: reg.link_child("local/a", "local/b"), ["resource", "link-child", "local/a", "local/b"]),
        (lambda: reg.show_type("acme/none"), ["resource", "type", "show", "acme/none"]),
        (
            lambda: reg.show_sandbox("01JD0000000000000000000000"),
            ["sandbox", "show", "01JD0000000000000000000000"],
        ),
        (lambda: reg.get_resource_tree("local/x"), ["resource", "tree", "local/x"]),
    ]
    for call, args in cases:
        assert refusal(call) == cli_error(agents_bin, home, *args), args


def test_a_bad_registry_url_is_refused_when_opening(tmp_path):
    with pytest.raises(resource_host.RegistryError) as refused:
        resource_host.Registry(home=tmp_path / "h", registry="ftp://somewhere")
    assert refused.value.error_kind == "store"
    assert "ftp://somewhere" in str(refused.value)


def test_a_handler_timeout_outside_its_bounds_is_refused(tmp_path):
    with pytest.raises(resource_host.InvalidArgumentsError):
        resource_host.Registry(home=tmp_path / "h", handler_timeout=0)
