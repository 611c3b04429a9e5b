"""Types: bootstrap, register, list, show, as ResourceType objects."""

import dataclasses
from datetime import datetime, timezone

import pytest

import resource_host
from resource_host import ExistsError, NotFoundError, ResourceType

SPEC_TYPE = """\
name: myteam/notes
description: A folder of notes
resource_kind: physical
sandbox_strategy: copy_on_write
user_addable: true
cli_args:
  - name: path
    type: path
    required: true
    description: Path to the folder
  - name: topic
    type: string
parent_types:
  - git-checkout
child_types:
  - fs-directory
"""


@pytest.fixture
def spec_type(tmp_path):
    path = tmp_path / "notes.yaml"
    path.write_text(SPEC_TYPE)
    return path


def test_the_builtin_types_are_there_and_bootstrapping_again_changes_nothing(reg):
    before = reg.list_types(namespace="builtin")
    reg.bootstrap_builtin_types()
    after = reg.list_types(namespace="builtin")
    assert [t.name for t in before] == [t.name for t in after]
    assert {"git-checkout", "fs-directory"} <= {t.name for t in after}
    assert all(t.built_in for t in after)


def test_show_type_answers_the_specifications_fields(reg):
    ty = reg.show_type("git-checkout")
    assert isinstance(ty, ResourceType)
    assert ty.resource_kind == "physical"
    assert ty.sandbox_strategy == "git_worktree"
    assert ty.user_addable and ty.built_in
    assert "path" in [a["name"] for a in ty.cli_args]
    assert ty.capabilities["sandbox"] is True
    assert isinstance(ty.created_at, datetime)
    assert ty.created_at.tzinfo == timezone.utc
    assert repr(ty) == "<ResourceType git-checkout (physical, git_worktree, built-in)>"


def test_a_custom_type_registers_from_its_yaml_file_once(reg, spec_type):
    ty = reg.register_type(spec_type)
    assert ty.name == "myteam/notes"
    assert ty.handler is None
    assert ty.parent_types == ("git-checkout",)
    assert ty.child_types == ("fs-directory",)
    assert ty.source.endswith("notes.yaml")
    assert [t.name for t in reg.list_types(namespace="myteam")] == ["myteam/notes"]
    with pytest.raises(ExistsError) as refused:
        reg.register_type(spec_type)
    assert refused.value.error_kind == "exists"
    assert reg.register_type(spec_type, replace=True).name == ty.name


def test_a_keyword_registers_a_custom_types_argument(reg, spec_type, folder):
    reg.register_type(spec_type)
    res = reg.register_resource("myteam/notes", name="local/notes", location=folder, topic="rust")
    assert res.properties["topic"] == "rust"


def test_types_are_frozen_and_to_dict_gives_the_json_view_back(reg):
    ty = reg.show_type("fs-directory")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ty.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ty.capabilities["read"] = False  # type: ignore[index]
    view = ty.to_dict()
    assert view["name"] == "fs-directory"
    assert isinstance(view["cli_args"], list)
    assert view["created_at"].endswith("Z")
    assert ResourceType._from_view(view) == ty


def test_an_unknown_type_is_a_lookup_error(reg):
    with pytest.raises(LookupError) as refused:
        reg.show_type("acme/nothing")
    assert isinstance(refused.value, NotFoundError)
    assert isinstance(refused.value, resource_host.RegistryError)
    assert "acme/nothing" in str(refused.value)


def test_a_custom_type_is_removed_once_nothing_relies_on_it(reg, spec_type, folder):
    reg.register_type(spec_type)
    reg.register_resource("myteam/notes", name="local/notes", location=folder)
    with pytest.raises(resource_host.InUseError) as refused:
        reg.remove_type("myteam/notes")
    assert "1 resource(s) of this type" in str(refused.value)
    reg.remove_resource("local/notes")
    reg.remove_type("myteam/notes")
    with pytest.raises(NotFoundError):
        reg.show_type("myteam/notes")
