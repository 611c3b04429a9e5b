"""The event log from Python: ``Registry.events`` answers what changed
(with this program's label and the ``python`` face), filtered as ``agents
events`` is; ``Registry.follow_events`` yields a write another process —
the real ``agents`` CLI — makes, within a second, without a sleep: the
stream is read on a thread and the test waits on its queue with a
deadline."""

import queue
import subprocess
import threading
import time

import pytest

import resource_host


def cli(agents_bin, home, *args):
    subprocess.run(
        [agents_bin, "--home", str(home), *args], check=True, capture_output=True, timeout=60
    )


def test_events_name_the_change_the_actor_and_the_face(home, tmp_path):
    reg = resource_host.Registry(home=home, actor="runner-7")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        reg.register_resource("fs-directory", name=f"local/{name}", location=str(tmp_path / name))
    reg.link_child("local/a", "local/b")
    every = reg.events()
    assert [e["op"] for e in every][-3:] == [
        "resource.registered", "resource.registered", "link.linked",
    ]
    first = every[-3]
    assert (first["name"], first["kind"], first["actor"], first["via"]) == (
        "local/a", "resource", "runner-7", "python",
    )
    # `since` a number: only what came after it; a resource: its events
    # as the subject or the other end (the link's parent).
    assert [e["seq"] for e in reg.events(since=first["seq"])] == [e["seq"] for e in every[-2:]]
    assert [e["op"] for e in reg.events(resource="local/a")] == ["resource.registered", "link.linked"]
    assert len(reg.events(limit=1)) == 1
    assert reg.events(since="2000-01-01") == every
    with pytest.raises(resource_host.InvalidArgumentsError):
        reg.events(below=True)
    with pytest.raises(resource_host.InvalidArgumentsError):
        reg.events(since="yesterday")
    with pytest.raises(resource_host.InvalidArgumentsError):
        reg.follow_events(poll_interval=0)


def test_a_stream_yields_another_processs_write_within_a_second(home, tmp_path, agents_bin):
    reg = resource_host.Registry(home=home)
    stream = reg.follow_events(poll_interval=0.05)
    start = stream.last_seq
    seen: "queue.Queue[resource_host.views.Event]" = queue.Queue()

    def read():
        for event in stream:
            seen.put(event)

    threading.Thread(target=read, daemon=True).start()
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        cli(agents_bin, home, "resource", "add", "fs-directory", f"local/{name}",
            "--path", str(tmp_path / name))
        committed = time.monotonic()
        event = seen.get(timeout=1.0)
        assert time.monotonic() - committed <= 1.0
        assert (event["op"], event["name"], event["via"]) == ("resource.registered", f"local/{name}", "cli")
        assert event["seq"] > start
    # A stream from a number gives what came after it first.
    later = reg.follow_events(since=start)
    assert [next(later)["name"], next(later)["name"]] == ["local/one", "local/two"]
