"""Fixtures for the resource_host suite: real homes in temp dirs, real git
repositories made with ``git``, the real components from ``plugins/``.

``tests/python_wheel.rs`` runs this suite after building the extension
and names what it found: ``RESOURCE_HOST_WASM_DIR`` (the built
components), ``AGENTS_BIN`` (the CLI, whose messages the errors must
repeat word for word) and ``XDG_CACHE_HOME`` (one compile cache for every
home). Run by hand, the defaults are the repository's own build outputs.
"""

import os
import subprocess
from pathlib import Path

import pytest

import resource_host

REPO = Path(__file__).resolve().parents[2]
WASM_DIR = Path(
    os.environ.get("RESOURCE_HOST_WASM_DIR", REPO / "plugins/target/wasm32-wasip2/release")
)


def git(cwd, *args):
    """Run git in ``cwd`` with a fixed identity; its stdout."""
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture(autouse=True)
def _environment(monkeypatch, tmp_path_factory):
    # No stray home or registry from the person running the tests.
    monkeypatch.delenv("AGENTS_HOME", raising=False)
    monkeypatch.delenv("AGENTS_REGISTRY", raising=False)
    if "XDG_CACHE_HOME" not in os.environ:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


@pytest.fixture
def reg(home):
    return resource_host.Registry(home=home)


@pytest.fixture
def repo(tmp_path):
    """A git repository on branch main with one commit: README.md and src/app.py."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# repo\n")
    (path / "src").mkdir()
    (path / "src/app.py").write_text("print('hi')\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first")
    return path


@pytest.fixture
def folder(tmp_path):
    """A plain directory holding notes.txt and sub/."""
    path = tmp_path / "folder"
    (path / "sub").mkdir(parents=True)
    (path / "notes.txt").write_text("hello\n")
    return path


def wasm(name):
    path = WASM_DIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: build the plugins (cargo build builds them)")
    return path


@pytest.fixture
def agents_bin():
    """The `agents` binary, to compare messages with; a skip without one."""
    path = os.environ.get("AGENTS_BIN") or str(REPO / "target/debug/agents")
    if not os.path.exists(path):
        pytest.skip("no agents binary (set AGENTS_BIN)")
    return path


def cli_error(agents_bin, home, *args):
    """What `agents --home HOME ARGS…` prints after `agents: error: `."""
    done = subprocess.run(
        [agents_bin, "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
    )
    assert done.returncode != 0, done.stdout
    prefix = "agents: error: "
    assert done.stderr.startswith(prefix), done.stderr
    return done.stderr[len(prefix):].rstrip("\n")
