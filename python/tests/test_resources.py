"""Resources: register (type arguments as keywords), list, show, discover, refresh, inspect, remove."""

import dataclasses
import json
from datetime import datetime

import pytest

from resource_host import InvalidArgumentsError, NotFoundError, Resource, Registry

from conftest import git


def test_a_git_checkout_registers_with_its_arguments_as_keywords(reg, repo):
    res = reg.register_resource("git-checkout", name="local/repo", location=repo, branch="main")
    assert isinstance(res, Resource)
    assert res.name == "local/repo"
    assert res.resource_type_name == "git-checkout"
    assert res.classification == "physical"
    assert res.location == str(repo)
    assert res.properties["branch"] == "main"
    assert res.capabilities["sandboxable"] is True
    assert isinstance(res.created_at, datetime) and res.created_at == res.updated_at
    assert len(res.children) == 2  # its .git and its work tree, discovered
    assert repr(res) == f"<Resource local/repo (git-checkout) id={res.resource_id} at '{repo}'>"


def test_a_resource_is_shown_by_name_or_by_id_and_listed_by_type(reg, repo, folder):
    res = reg.register_resource("git-checkout", name="local/repo", location=repo)
    reg.register_resource("fs-directory", name="local/folder", location=str(folder))
    assert reg.show_resource("local/repo") == reg.show_resource(res.resource_id)
    names = [r.name for r in reg.list_resources(type_name="git-checkout")]
    assert names == ["local/repo"]
    everything = reg.list_resources()
    assert {"local/repo", "local/folder", "local/repo/worktree"} <= {r.name for r in everything}
    assert "local/repo/worktree" in {r.name for r in reg.list_resources("fs-directory")}
    assert [r.name for r in reg.list_resources("fs-directory", exact=True) if not r.auto_discovered] == [
        "local/folder"
    ]


def test_resources_are_frozen_and_their_dict_is_the_json_view(reg, folder):
    res = reg.register_resource("fs-directory", name="local/folder", location=folder, description="notes")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.name = "local/other"  # type: ignore[misc]
    view = res.to_dict()
    json.dumps(view)  # plain data
    assert view["description"] == "notes"
    assert view["created_at"].endswith("Z")
    assert Resource._from_view(view) == res


def test_an_unknown_keyword_is_refused_naming_the_types_arguments(reg, repo):
    with pytest.raises(InvalidArgumentsError) as refused:
        reg.register_resource("git-checkout", name="local/repo", location=repo, colour="red")
    assert str(refused.value).startswith("unknown flag --colour for type git-checkout; valid flags:")
    assert isinstance(refused.value, ValueError)
    assert reg.list_resources() == []


def test_a_value_that_is_not_text_a_number_a_bool_or_a_path_is_a_type_error(reg, repo):
    with pytest.raises(TypeError):
        reg.register_resource("git-checkout", location=repo, branch=["main"])


def test_a_missing_resource_is_a_lookup_error_and_a_malformed_name_a_value_error(reg):
    with pytest.raises(LookupError):
        reg.show_resource("local/nothing")
    with pytest.raises(NotFoundError):
        reg.get_children("01JD0000000000000000000000")
    with pytest.raises(ValueError):
        reg.show_resource("not a name!")


def test_discovery_finds_a_new_directory_and_refresh_sees_a_new_commit(reg, repo):
    reg.register_resource("git-checkout", name="local/repo", location=repo)
    folder = reg.register_resource("fs-directory", name="local/src", location=repo / "src")
    (repo / "src/pkg").mkdir()
    (repo / "src/pkg/mod.py").write_text("x = 1\n")
    report = reg.auto_discover_children(folder.resource_id)
    assert [r["name"] for r in report["added"]] == ["local/src/pkg"]
    assert reg.discover("local/src")["added"] == []
    deeper = reg.discover("local/src", depth=None)["added"]
    assert all(r["auto_discovered"] for r in deeper)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "second")
    before = reg.show_resource("local/repo").properties["head"]
    refreshed = reg.refresh("local/repo")
    assert "changed" in refreshed
    assert reg.show_resource("local/repo").properties["head"] != before
    assert reg.refresh() is not None


def test_inspect_answers_the_handlers_description(reg, repo):
    reg.register_resource("git-checkout", name="local/repo", location=repo)
    whole = reg.inspect("local/repo")
    assert whole
    one = reg.inspect("local/repo", file="README.md")
    assert one != whole


def test_remove_resource_reports_then_removes(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    dry = reg.remove_resource("local/folder", dry_run=True)
    assert reg.show_resource("local/folder")
    done = reg.remove_resource("local/folder")
    assert {**dry, "dry_run": False} == done
    with pytest.raises(NotFoundError):
        reg.show_resource("local/folder")


def test_the_home_comes_from_agents_home_when_none_is_given(monkeypatch, home, folder):
    monkeypatch.setenv("AGENTS_HOME", str(home))
    Registry().register_resource("fs-directory", name="local/folder", location=folder)
    assert Registry(home=home).show_resource("local/folder").location == str(folder)
    assert (home / "registry.db").exists()


def test_a_registry_url_names_another_sqlite_file(tmp_path, folder):
    db = tmp_path / "elsewhere.db"
    reg = Registry(home=tmp_path / "h", registry=f"sqlite://{db}")
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    assert db.exists()
    assert reg.info()
