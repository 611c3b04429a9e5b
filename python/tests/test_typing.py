"""The stub is the native module's: ``mypy --strict`` passes on the
installed package and on a client of it, ``stubtest`` finds no difference
between ``_native.pyi`` and the extension (a method added, renamed or
given another signature in ``python/src`` without its stub line fails
here), and the keyword-only flags are keyword-only at run time too."""

import subprocess
import sys

import pytest

CLIENT = """\
from resource_host import NotFoundError, Registry, Resource
from resource_host.views import GraphView, SandboxView

def use(reg: Registry) -> str:
    res: Resource = reg.register_resource("fs-directory", name="local/x", location="/tmp", read_only=True)
    reg.remove_resource(res.resource_id, dry_run=True)
    graph: GraphView = reg.graph("local/x")
    drawing: str = reg.graph("local/x", format="svg")
    box: SandboxView = reg.create_sandbox(res.resource_id)
    with reg.open_transaction(box["sandbox_id"]) as txn:
        txn.apply()
    seqs = [e["seq"] for e in reg.events(since=0, resource="local/x", below=True, limit=10)]
    for event in reg.follow_events(since=seqs[-1], poll_interval=0.1):
        drawing += event["op"] + (event["name"] or "")
        break
    try:
        reg.show_resource("local/y")
    except NotFoundError as e:
        return e.error_kind
    return box["workdir"] or box["original"] + drawing + graph["root"]
"""


def mypy(*args):
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def mypy_installed():
    pytest.importorskip("mypy", reason="mypy is not installed (.ci/run installs it)")


def test_the_package_and_a_client_pass_mypy_strict(mypy_installed, tmp_path):
    (tmp_path / "client.py").write_text(CLIENT)
    (tmp_path / "positional.py").write_text(
        CLIENT + 'def wrong(reg: Registry) -> None:\n    reg.remove_resource("local/x", True)\n'
    )
    strict = ["mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    for target in (["-p", "resource_host"], [str(tmp_path / "client.py")]):
        done = mypy(*strict, *target)
        assert done.returncode == 0, done.stdout + done.stderr
    refused = mypy(*strict, str(tmp_path / "positional.py"))
    assert refused.returncode == 1 and "Too many positional arguments" in refused.stdout, refused.stdout


def test_the_stub_agrees_with_the_native_module(mypy_installed):
    done = mypy("mypy.stubtest", "resource_host")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_flag_is_keyword_only(reg):
    with pytest.raises(TypeError):
        reg.remove_resource("local/x", True)
