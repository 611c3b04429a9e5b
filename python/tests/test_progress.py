"""Progress callbacks: called as registration, discovery and refresh go,
and the caller's way to stop them — a stopped registration or discovery
writes nothing, a stopped refresh keeps what it refreshed."""

import pytest

from resource_host import OperationCancelledError

from conftest import git


@pytest.fixture
def wide(tmp_path):
    """A directory of five subdirectories, each holding a file."""
    path = tmp_path / "wide"
    for i in range(5):
        (path / f"d{i}").mkdir(parents=True)
        (path / f"d{i}/f.txt").write_text(f"{i}\n")
    return path


def test_progress_is_reported_as_a_discovery_goes(reg, wide):
    seen = []
    reg.register_resource(
        "fs-directory", name="local/wide", location=wide, progress=lambda a, b: seen.append((a, b))
    )
    assert seen, "registration reports progress"
    visited = [a for a, _ in seen]
    assert visited == sorted(visited) and visited[-1] >= 1
    (wide / "d9").mkdir()
    again = []
    report = reg.discover("local/wide", depth=None, progress=lambda a, b: again.append((a, b)))
    assert [r["name"] for r in report["added"]] == ["local/wide/d9"]
    assert again[-1][1] >= 1


def test_a_callback_answering_false_stops_a_registration_which_registers_nothing(reg, wide):
    with pytest.raises(OperationCancelledError) as stopped:
        reg.register_resource("fs-directory", name="local/wide", location=wide, progress=lambda a, b: False)
    assert stopped.value.error_kind == "cancelled"
    assert reg.list_resources() == []
    # None (or anything but False) goes on.
    reg.register_resource("fs-directory", name="local/wide", location=wide, progress=lambda a, b: None)
    assert len(reg.list_resources()) > 1


def test_a_stopped_discovery_writes_nothing(reg, wide):
    reg.register_resource("fs-directory", name="local/wide", location=wide)
    before = [r.name for r in reg.list_resources()]
    (wide / "new").mkdir()
    with pytest.raises(OperationCancelledError):
        reg.discover("local/wide", progress=lambda a, b: False)
    assert [r.name for r in reg.list_resources()] == before
    assert [r["name"] for r in reg.discover("local/wide")["added"]] == ["local/wide/new"]


def test_an_exception_in_the_callback_stops_the_call_and_is_raised_from_it(reg, wide):
    calls = []

    def boom(a, b):
        calls.append(a)
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        reg.register_resource("fs-directory", name="local/wide", location=wide, progress=boom)
    assert len(calls) == 1, "not called again once it raised"
    assert reg.list_resources() == []


def test_a_stopped_refresh_keeps_what_it_refreshed_and_says_how_far_it_got(reg, repo, tmp_path):
    second = tmp_path / "second"
    second.mkdir()
    git(second, "init", "-q", "-b", "main")
    (second / "a.txt").write_text("a\n")
    git(second, "add", ".")
    git(second, "commit", "-q", "-m", "first")
    reg.register_resource("git-checkout", name="local/a", location=repo)
    reg.register_resource("git-checkout", name="local/b", location=second)
    for path in (repo, second):
        (path / "new.txt").write_text("new\n")
        git(path, "add", ".")
        git(path, "commit", "-q", "-m", "second")
    heads = {n: reg.show_resource(n).properties["head"] for n in ("local/a", "local/b")}
    with pytest.raises(OperationCancelledError) as stopped:
        reg.refresh("local/a", "local/b", progress=lambda checked, changed: checked < 1)
    assert stopped.value.checked >= 1
    moved = [n for n in heads if reg.show_resource(n).properties["head"] != heads[n]]
    assert moved, "what was refreshed before the stop stays refreshed"
    assert len(moved) < 2, "nothing is checked after the stop"
