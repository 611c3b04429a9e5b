"""The DAG: link_child, unlink_child, get_children, get_resource_tree and their refusals."""

import pytest

from resource_host import (
    CycleError,
    IncompatibleLinkError,
    InvalidArgumentsError,
    InvalidLinkError,
    NotFoundError,
)


@pytest.fixture
def dirs(reg, tmp_path):
    made = {}
    for name in ("a", "b", "c"):
        path = tmp_path / name
        path.mkdir()
        made[name] = reg.register_resource("fs-directory", name=f"local/{name}", location=path)
    return made


def test_a_child_is_linked_listed_and_unlinked(reg, dirs):
    link = reg.link_child("local/a", "local/b")
    assert link["parent_id"] == dirs["a"].resource_id
    assert link["child_id"] == dirs["b"].resource_id
    assert [c.name for c in reg.get_children("local/a")] == ["local/b"]
    assert reg.show_resource("local/b").parents == (dirs["a"].resource_id,)
    reg.unlink_child("local/a", "local/b")
    assert reg.get_children("local/a") == []
    with pytest.raises(NotFoundError):
        reg.unlink_child("local/a", "local/b")


def test_the_tree_follows_depth_and_type_filter(reg, dirs, repo):
    reg.register_resource("git-checkout", name="local/repo", location=repo)
    reg.link_child("local/a", "local/b")
    reg.link_child("local/b", "local/c")
    tree = reg.get_resource_tree("local/a")
    assert tree["name"] == "local/a"
    assert tree["children"][0]["name"] == "local/b"
    assert tree["children"][0]["children"][0]["name"] == "local/c"
    shallow = reg.get_resource_tree("local/a", depth=1)
    assert shallow["children"][0]["children"] == []
    repo_tree = reg.get_resource_tree("local/repo", type_filter="git")
    assert [c["resource_type_name"] for c in repo_tree["children"]] == ["git"]


def test_a_cycle_is_refused_naming_both_ends(reg, dirs):
    reg.link_child("local/a", "local/b")
    reg.link_child("local/b", "local/c")
    with pytest.raises(CycleError) as refused:
        reg.link_child("local/c", "local/a")
    assert refused.value.parent == "local/c"
    assert refused.value.child == "local/a"
    assert refused.value.error_kind == "cycle"


def test_a_duplicate_link_and_a_self_link_are_invalid(reg, dirs):
    reg.link_child("local/a", "local/b")
    with pytest.raises(InvalidLinkError):
        reg.link_child("local/a", "local/b")
    with pytest.raises(InvalidLinkError):
        reg.link_child("local/a", "local/a")


def test_a_link_the_types_do_not_allow_is_incompatible(reg, dirs, repo):
    reg.register_resource("git-checkout", name="local/repo", location=repo)
    with pytest.raises(IncompatibleLinkError) as refused:
        reg.link_child("local/a", "local/repo")
    assert refused.value.error_kind == "incompatible_link"
    assert refused.value.parent == "local/a"


def test_the_graph_is_the_view_or_the_clis_drawing_of_it(reg, dirs, home, agents_bin):
    import subprocess

    reg.link_child("local/a", "local/b")
    reg.link_child("local/b", "local/c")
    view = reg.graph("local/a")
    assert [n["name"] for n in view["nodes"]] == ["local/a", "local/b", "local/c"]
    assert len(view["edges"]) == 2
    assert [n["name"] for n in reg.graph("local/a", depth=1)["nodes"]] == ["local/a", "local/b"]
    for fmt in ("dot", "mermaid", "svg"):
        drawn = reg.graph("local/a", format=fmt)
        cli = subprocess.run(
            [agents_bin, "--home", str(home), "resource", "graph", "local/a", "--format", fmt],
            capture_output=True, text=True, check=True,
        ).stdout
        assert drawn.rstrip("\n") == cli.rstrip("\n"), fmt
    with pytest.raises(InvalidArgumentsError):
        reg.graph("local/a", format="png")
