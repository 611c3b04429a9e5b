"""Threads: one Registry shared by several, and the GIL released while a handler runs."""

import asyncio
import threading

import pytest

import resource_host
from resource_host import HandlerError

from conftest import wasm


def test_one_registry_serves_eight_threads_at_once(reg, tmp_path):
    failures = []

    def work(i):
        try:
            path = tmp_path / f"d{i}"
            path.mkdir()
            res = reg.register_resource("fs-directory", name=f"local/d{i}", location=path)
            for _ in range(20):
                assert reg.show_resource(res.resource_id).name == f"local/d{i}"
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert sorted(r.name for r in reg.list_resources() if r.name.count("/") == 1) == [
        f"local/d{i}" for i in range(8)
    ]


class _Watched(resource_host.Registry):
    """A registry telling when its register_resource call is under way (after watch())."""

    def watch(self):
        self.entered = threading.Event()
        self.returned = False
        return self

    def register_resource(self, *args, **kwargs):
        if not hasattr(self, "entered"):
            return super().register_resource(*args, **kwargs)
        self.entered.set()
        try:
            return super().register_resource(*args, **kwargs)
        finally:
            self.returned = True


def test_other_threads_run_registry_calls_while_a_handler_runs(home, tmp_path, folder):
    # A handler that sleeps until its deadline (3 s) runs on one thread;
    # the main thread counts the show_resource calls it completes while
    # that call is under way. Were the GIL held (or the registry locked)
    # during the call, none could complete until it ended: the main thread
    # gets the GIL back from the sleeper only when the call returns.
    reg = _Watched(home=home, handler_timeout=3)
    reg.add_plugin(wasm("faulty.wasm"))
    yaml = tmp_path / "sleep.yaml"
    yaml.write_text(
        "name: test/sleep\nresource_kind: physical\nuser_addable: true\n"
        "cli_args:\n  - {name: path, type: path, required: true}\n"
        "handler: test.faulty:Sleep\n"
    )
    reg.register_type(yaml)
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    watched = reg.watch()
    outcome = {}

    def slow():
        try:
            reg.register_resource("test/sleep", name="local/sleepy", location=folder)
        except HandlerError as e:
            outcome["error"] = e

    sleeper = threading.Thread(target=slow)
    sleeper.start()
    watched.entered.wait()
    during = 0
    while not watched.returned:
        reg.show_resource("local/folder")
        if not watched.returned:
            during += 1
    sleeper.join()
    assert outcome["error"].kind == "timeout"
    assert outcome["error"].class_name == "Sleep"
    assert during >= 50, during


def test_asyncio_runs_calls_in_threads(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)

    async def main():
        shown = await asyncio.gather(
            *(asyncio.to_thread(reg.show_resource, "local/folder") for _ in range(4))
        )
        return {r.name for r in shown}

    if not hasattr(asyncio, "to_thread"):
        pytest.skip("asyncio.to_thread is Python 3.9+")
    assert asyncio.run(main()) == {"local/folder"}
