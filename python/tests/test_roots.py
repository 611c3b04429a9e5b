"""Registry(roots=…): an agent's registry acts only inside its roots."""

import os

import pytest

import resource_host
from resource_host import InvalidArgumentsError, OutsideRootsError


@pytest.fixture
def places(tmp_path):
    """`proj/` (the root) with a symlink leading to `outside/`."""
    base = tmp_path.resolve()
    (base / "proj" / "files").mkdir(parents=True)
    (base / "proj" / "a.txt").write_text("a\n")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("secret\n")
    os.symlink(base / "outside" / "secret.txt", base / "proj" / "files" / "leak")
    os.symlink(base / "outside", base / "proj" / "link")
    return base


def test_roots_refuse_what_lies_outside_and_keep_a_persons_resources_visible(home, places):
    person = resource_host.Registry(home=home)
    person.register_resource("fs-directory", name="local/person", location=places / "outside")
    agent = resource_host.Registry(home=home, roots=[places / "proj"])

    with pytest.raises(OutsideRootsError) as refused:
        agent.register_resource("fs-directory", name="local/etc", location="/etc")
    assert "/etc is outside the roots" in str(refused.value)
    assert str(places / "proj") in str(refused.value)
    assert refused.value.error_kind == "outside_roots"
    with pytest.raises(OutsideRootsError):
        agent.register_resource("fs-directory", name="local/link", location=places / "proj" / "link")

    agent.register_resource("fs-directory", name="local/proj", location=places / "proj")
    assert agent.inspect("local/proj", file="a.txt")
    with pytest.raises(OutsideRootsError):
        agent.inspect("local/proj", file="files/leak")

    # Seen, never touched.
    assert agent.show_resource("local/person").location == str(places / "outside")
    for refused_call in (
        lambda: agent.inspect("local/person"),
        lambda: agent.create_sandbox("local/person"),
        lambda: agent.discover("local/person"),
        lambda: agent.refresh("local/person"),
        lambda: agent.remove_resource("local/person"),
        lambda: agent.link_child("local/proj", "local/person"),
    ):
        with pytest.raises(OutsideRootsError):
            refused_call()
    box = person.create_sandbox("local/person")
    with pytest.raises(OutsideRootsError):
        agent.apply_sandbox(box["sandbox_id"])
    # The person's own registry has no roots.
    assert person.inspect("local/person")


def test_a_root_must_be_an_existing_directory(home, tmp_path):
    with pytest.raises(InvalidArgumentsError, match="root"):
        resource_host.Registry(home=home, roots=[tmp_path / "missing"])
